//! Reads `func.func` bodies into the Rust graph model of `autofuse-ir`.
//!
//! Preconditions: the module verified. Only the entry block of a function is read (our
//! graphs have one block). Types and attributes are read from their printed form (see
//! `autofuse_ir::attr`), so the model does not depend on MLIR lifetimes; `ops` keeps
//! the MLIR op of every node for diagnostics and rewriting.

use autofuse_ascend::derived::{self, DerivedSymbols};
use autofuse_ir::attr::{parse_attr, AttrValue};
use autofuse_ir::graph::{Graph, Node, TensorType, Value, ValueDef};
use melior::ir::{
    attribute::AttributeLike, block::BlockLike, operation::OperationLike, r#type::TypeLike,
    BlockRef, OperationRef, RegionLike, ValueLike,
};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

/// A function's graph and the MLIR op behind each node (same index).
pub struct ExtractedGraph<'c, 'a> {
    pub graph: Graph,
    pub ops: Vec<OperationRef<'c, 'a>>,
    /// The `func.return`, if present.
    pub terminator: Option<OperationRef<'c, 'a>>,
    /// Type text that failed to parse, per value (for the verifier's messages).
    pub type_errors: Vec<Option<String>>,
}

/// Name of a `func.func` (its `sym_name`).
pub fn function_name<'c, 'a>(func: &OperationRef<'c, 'a>) -> String {
    func.attribute("sym_name")
        .ok()
        .and_then(|a| melior::ir::attribute::StringAttribute::try_from(a).ok())
        .map(|s| s.value().to_string())
        .unwrap_or_default()
}

/// The callees of the `func.call` ops directly in a function's body, read without
/// extracting the function (cheap enough to run over every function of a module).
pub fn callees<'c, 'a>(func: &OperationRef<'c, 'a>) -> Vec<String> {
    let mut out = Vec::new();
    let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return out;
    };
    let mut next = block.first_operation();
    while let Some(op) = next {
        if op.name().as_string_ref().as_str() == Ok("func.call") {
            if let Some(callee) = op
                .attribute("callee")
                .ok()
                .and_then(|a| melior::ir::attribute::FlatSymbolRefAttribute::try_from(a).ok())
            {
                out.push(callee.value().to_string());
            }
        }
        next = op.next_in_block();
    }
    out
}

/// Every `func.func` directly inside the module body.
pub fn functions<'c, 'a>(module_body: BlockRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut out = Vec::new();
    let mut next = module_body.first_operation();
    while let Some(op) = next {
        if op.name().as_string_ref().as_str() == Ok("func.func") {
            out.push(op);
        }
        next = op.next_in_block();
    }
    out
}

/// The attributes of an op, read into values.
pub fn read_attributes<'c, 'a>(op: &OperationRef<'c, 'a>) -> BTreeMap<String, AttrValue> {
    with_printed_forms(|printed| printed.attributes(op))
}

thread_local! {
    /// The printed forms shared by every read inside `with_print_cache`.
    static SHARED_FORMS: RefCell<Option<PrintedForms>> = const { RefCell::new(None) };
}

/// Runs `body` with one cache of printed attributes and types shared by every read
/// (`read_attributes`, `extract_function`) inside it, e.g. one pass run plus the
/// verification after it. Nested calls share the outermost cache.
///
/// The caller guarantees the context outlives the call (storage addresses are the keys);
/// mutating the IR is fine, since attribute and type storage is never freed before its
/// context is.
pub fn with_print_cache<R>(body: impl FnOnce() -> R) -> R {
    let outermost = SHARED_FORMS.with(|forms| {
        let mut forms = forms.borrow_mut();
        let outermost = forms.is_none();
        if outermost {
            *forms = Some(PrintedForms::default());
        }
        outermost
    });
    struct Clear(bool);
    impl Drop for Clear {
        fn drop(&mut self) {
            if self.0 {
                SHARED_FORMS.with(|forms| *forms.borrow_mut() = None);
            }
        }
    }
    let _clear = Clear(outermost);
    body()
}

/// Runs `read` with the shared cache when one is active, else with a fresh one.
fn with_printed_forms<R>(read: impl FnOnce(&mut PrintedForms) -> R) -> R {
    SHARED_FORMS.with(|forms| match forms.borrow_mut().as_mut() {
        Some(shared) => read(shared),
        None => read(&mut PrintedForms::default()),
    })
}

/// Printed forms of attributes and types already read, keyed by their uniqued storage.
///
/// Printing builds an `AsmState` per call, which dominated the extraction of large
/// functions; attributes and types repeat a lot (views, loop axes, tensor types), so one
/// extraction reads each distinct one once. The cache must not outlive the extraction:
/// storage addresses are unique only while their context lives.
#[derive(Default)]
struct PrintedForms {
    attributes: HashMap<*const std::ffi::c_void, AttrValue>,
    types: HashMap<*const std::ffi::c_void, String>,
    locations: HashMap<*const std::ffi::c_void, String>,
}

/// The value of one attribute, from the shared cache of printed forms.
pub fn attribute_value(attr: melior::ir::Attribute) -> AttrValue {
    with_printed_forms(|printed| printed.attribute_value(attr))
}

/// The printed form of a type, from the shared cache of printed forms.
pub fn type_text(ty: melior::ir::Type) -> String {
    with_printed_forms(|printed| printed.type_text(ty))
}

/// The printed form of a location (as `raw::location_text`), cached like attributes.
pub fn location_text(location: melior::ir::Location) -> String {
    with_printed_forms(|printed| {
        printed
            .locations
            .entry(location.to_raw().ptr as *const _)
            .or_insert_with(|| crate::raw::location_text(location))
            .clone()
    })
}

impl PrintedForms {
    fn attributes<'c, 'a>(&mut self, op: &OperationRef<'c, 'a>) -> BTreeMap<String, AttrValue> {
        op.attributes()
            .map(|(name, attr)| {
                let key = name.as_string_ref().as_str().unwrap_or("").to_string();
                (key, self.attribute_value(attr))
            })
            .collect()
    }

    fn attribute_value(&mut self, attr: melior::ir::Attribute) -> AttrValue {
        self.attributes
            .entry(attr.to_raw().ptr as *const _)
            .or_insert_with(|| {
                let text = crate::raw::attribute_text(attr);
                parse_attr(&text).unwrap_or(AttrValue::Other(text))
            })
            .clone()
    }

    fn type_text(&mut self, ty: melior::ir::Type) -> String {
        self.types
            .entry(ty.to_raw().ptr as *const _)
            .or_insert_with(|| crate::raw::type_text(ty))
            .clone()
    }
}

/// Reads the entry block of a `func.func`.
pub fn extract_function<'c, 'a>(func: OperationRef<'c, 'a>) -> Option<ExtractedGraph<'c, 'a>> {
    with_printed_forms(|printed| extract_with(func, printed))
}

fn extract_with<'c, 'a>(
    func: OperationRef<'c, 'a>,
    printed: &mut PrintedForms,
) -> Option<ExtractedGraph<'c, 'a>> {
    let region = func.region(0).ok()?;
    let block = region.first_block()?;
    let mut graph = Graph {
        name: function_name(&func),
        ..Graph::default()
    };
    let mut type_errors = Vec::new();
    let mut ids: HashMap<*const std::ffi::c_void, usize> = HashMap::new();
    for index in 0..block.argument_count() {
        let Ok(arg) = block.argument(index) else {
            continue;
        };
        let id = add_value(
            &mut graph,
            &mut type_errors,
            &mut ids,
            arg.to_raw().ptr,
            printed.type_text(arg.r#type()),
            ValueDef::Argument(index),
        );
        graph.arguments.push(id);
    }
    let mut ops = Vec::new();
    let mut terminator = None;
    let mut next = block.first_operation();
    let mut op_index = 0;
    while let Some(op) = next {
        next = op.next_in_block();
        let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
        let operands: Vec<usize> = op
            .operands()
            .map(|v| {
                ids.get(&(v.to_raw().ptr as *const _))
                    .copied()
                    .unwrap_or(usize::MAX)
            })
            .collect();
        if name == "func.return" {
            graph.outputs = operands;
            terminator = Some(op);
            op_index += 1;
            continue;
        }
        let node_index = graph.nodes.len();
        let mut results = Vec::new();
        for (index, result) in op.results().enumerate() {
            results.push(add_value(
                &mut graph,
                &mut type_errors,
                &mut ids,
                result.to_raw().ptr,
                printed.type_text(result.r#type()),
                ValueDef::Result {
                    node: node_index,
                    index,
                },
            ));
        }
        graph.nodes.push(Node {
            op: name,
            operands,
            results,
            attrs: printed.attributes(&op),
            op_index,
        });
        ops.push(op);
        op_index += 1;
    }
    graph.derived = derived_symbols(&func, &graph, printed);
    Some(ExtractedGraph {
        graph,
        ops,
        terminator,
        type_errors,
    })
}

/// The function's `ascend.derived_symbols` (none when absent; a malformed attribute
/// reads as none here, the verifier reports it).
fn derived_symbols(
    func: &OperationRef,
    graph: &Graph,
    printed: &mut PrintedForms,
) -> DerivedSymbols {
    let Ok(attr) = func.attribute(derived::ATTRIBUTE) else {
        return DerivedSymbols::default();
    };
    let value = printed.attribute_value(attr);
    let entries = value.as_strs().unwrap_or_default();
    DerivedSymbols::parse(&entries, &graph.argument_symbols()).unwrap_or_default()
}

fn add_value(
    graph: &mut Graph,
    type_errors: &mut Vec<Option<String>>,
    ids: &mut HashMap<*const std::ffi::c_void, usize>,
    raw: *const std::ffi::c_void,
    ty_text: String,
    def: ValueDef,
) -> usize {
    let parsed = TensorType::parse_mlir(&ty_text);
    type_errors.push(
        parsed
            .as_ref()
            .err()
            .map(|e| format!("{e} in type '{ty_text}'")),
    );
    let id = graph.values.len();
    graph.values.push(Value {
        ty: parsed.ok(),
        def,
    });
    ids.insert(raw, id);
    id
}

/// The body block of a `builtin.module` op (what module passes walk).
pub fn module_body<'c, 'a>(module: OperationRef<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    module.region(0).ok().and_then(|r| r.first_block())
}
