//! `--infer-symbolic-shapes`: gives every dynamic dim a symbol and every result its
//! symbolic shape.
//!
//! What it does, per `func.func` holding `ascend` ops (AscGraphs are skipped):
//! 1. Each dynamic dim of a graph argument without a symbolic size becomes a fresh
//!    symbol `s<N>`, numbered in argument order after any symbol the input already uses;
//!    static dims stay constants.
//! 2. Every `ascend` result type is recomputed by the shape rules of
//!    `autofuse_ascend::shape` and written back with a `#ascend.dims` encoding.
//! 3. Decisions that depended on a symbol's value are recorded as guards in the
//!    function attribute `ascend.guards` (`expect(...)` decided by a hint, `assert(...)`
//!    required with no hint), and the hints used in `ascend.symbol_hints`.
//! 4. The function type is updated to the new argument and result types.
//! 5. A result dim of more than `derived::TERM_LIMIT` terms (the sums of a chain of
//!    concats over distinct symbols) is named by a fresh derived symbol `d<N>`, defined
//!    in the function attribute `ascend.derived_symbols` (`dialects/ascend/src/derived.rs`),
//!    so that types stay short and the IR linear in the graph. A derived symbol already
//!    defined for the same expression is reused, so the pass is idempotent.
//!
//! Preconditions: the module verifies. Postconditions: every value of an `ascend` graph
//! has a fully known symbolic shape; a provable mismatch (broadcast of 4 against 3,
//! hints that contradict a required equality) is an error at the op and the pass fails.
//! Calls of external functions keep their declared signatures: their operands must
//! already be fully symbolic or static (a call is a boundary). Where a call's operand or
//! result types, now written canonically, are the same sizes as its declaration spells
//! them another way (a front end's `(1 + floor(((-1 + s0))/(2)))`), the declaration is
//! rewritten to the call's text, since MLIR's call verifier compares types as text.

use crate::options::PassOptions;
use crate::registry::{OptionInfo, PassInfo};
use crate::statistics;
use autofuse_ascend::derived::{self, DerivedSymbols};
use autofuse_ascend::shape::{infer, OpShapeQuery};
use autofuse_ir::graph::{Dim, Graph, TensorType, ValueDef};
use autofuse_mlir::extract::ExtractedGraph;
use autofuse_mlir::registry::{lookup, Dialect};
use autofuse_mlir::{diagnostics, extract, raw};
use autofuse_symbolic::{Expr, ShapeEnv, SymbolInfo};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef, RegionLike, ValueLike};
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub const PASS: PassInfo = PassInfo {
    argument: "infer-symbolic-shapes",
    summary: "Give every dynamic dim a symbol and every result its symbolic shape, recording guards",
    description: "Symbolizes dynamic dims of graph inputs (s0, s1, ... in input order), recomputes every \
                  ascend result type with the symbolic shape rules, records guards for decisions that \
                  depended on symbol values (`ascend.guards`), and updates function types. A provable \
                  mismatch is an error at the op. A result dim of more than 8 terms (the sums of concat \
                  chains over distinct symbols) is named by a derived symbol d<N> defined in \
                  `ascend.derived_symbols`, so types stay short. External declarations take their calls' \
                  canonical type text where the sizes are the same.",
    options: &[
        OptionInfo {
            name: "symbol-hints",
            kind: "list",
            default: "",
            help: "typical values of symbols, e.g. s0=4096,s1=8; decisions taken on hints are recorded as expect guards",
        },
        OptionInfo {
            name: "symbol-ranges",
            kind: "list",
            default: "",
            help: "value ranges of symbols, e.g. s0=1:4096,s1=8:8 (default 1 to unbounded); used to decide comparisons statically",
        },
    ],
    run,
};

fn parse_hints(text: &str) -> Result<Vec<(String, i64)>, String> {
    text.split([',', ':'])
        .filter(|s| !s.trim().is_empty())
        .map(|pair| {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("symbol hint '{pair}' must look like s0=4096"))?;
            let value: i64 = value
                .trim()
                .parse()
                .map_err(|_| format!("symbol hint '{pair}' needs an integer value"))?;
            if value < 1 {
                return Err(format!("symbol hint '{pair}' must be at least 1"));
            }
            Ok((name.trim().to_string(), value))
        })
        .collect()
}

/// Parses `s0=1:4096,s1=8:` into (name, min, max).
fn parse_ranges(text: &str) -> Result<Vec<(String, i64, Option<i64>)>, String> {
    text.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|entry| {
            let (name, range) = entry
                .split_once('=')
                .ok_or_else(|| format!("symbol range '{entry}' must look like s0=1:4096"))?;
            let (low, high) = range.split_once(':').unwrap_or((range, ""));
            let low: i64 = low
                .trim()
                .parse()
                .map_err(|_| format!("symbol range '{entry}' needs an integer minimum"))?;
            let high = match high.trim() {
                "" => None,
                h => Some(
                    h.parse::<i64>()
                        .map_err(|_| format!("symbol range '{entry}' has a bad maximum"))?,
                ),
            };
            if low < 0 || high.is_some_and(|h| h < low) {
                return Err(format!("symbol range '{entry}' is empty or negative"));
            }
            Ok((name.trim().to_string(), low, high))
        })
        .collect()
}

fn run(module: OperationRef, options: &PassOptions) -> Result<(), ()> {
    let parsed = parse_hints(options.get("symbol-hints").unwrap_or(""))
        .and_then(|h| parse_ranges(options.get("symbol-ranges").unwrap_or("")).map(|r| (h, r)));
    let (hints, ranges) = diagnostics::or_error(module.location(), parsed)?;
    let body = extract::module_body(module).ok_or(())?;
    let mut ok = true;
    for func in extract::functions(body) {
        let attrs = extract::read_attributes(&func);
        if attrs.contains_key("ascir.axes") {
            continue;
        }
        ok &= infer_function(func, &hints, &ranges);
    }
    // After every graph is retyped: its calls' operand and result types are now printed
    // canonically, their external declarations still in the front end's text.
    for func in extract::functions(body) {
        sync_external_declarations(body, func);
    }
    if ok {
        Ok(())
    } else {
        Err(())
    }
}

fn infer_function(
    func: OperationRef,
    hints: &[(String, i64)],
    ranges: &[(String, i64, Option<i64>)],
) -> bool {
    let Some(extracted) = extract::extract_function(func) else {
        return true;
    };
    let graph = &extracted.graph;
    if !graph.nodes.iter().any(|n| n.op.starts_with("ascend.")) {
        return true;
    }
    let mut types: Vec<Option<TensorType>> = graph.values.iter().map(|v| v.ty.clone()).collect();
    let created = symbolize_arguments(graph, &mut types);
    let mut env = symbol_env(&types, hints, ranges);
    let Some(mut namer) = DerivedNamer::new(&func, graph, &types, &mut env) else {
        return false;
    };
    if !infer_results(&extracted, &mut types, &mut env, &mut namer) {
        return false;
    }
    if !write_types(func, &extracted, &types) {
        return false;
    }
    record_guards(func, &env, hints);
    if !namer.derived.is_empty() {
        let entries: Vec<String> = namer
            .derived
            .entries()
            .iter()
            .map(|e| autofuse_ir::attr::quote(e))
            .collect();
        raw::set_attribute_text(
            &func,
            derived::ATTRIBUTE,
            &format!("[{}]", entries.join(", ")),
        );
    }
    // Only when there are any: the statistics of ordinary graphs stay as they were.
    if namer.created > 0 {
        statistics::add(
            PASS.argument,
            "symbols-derived",
            "Number of long dims named by a derived symbol",
            namer.created,
        );
    }
    statistics::add(
        PASS.argument,
        "symbols-created",
        "Number of dynamic dims given a symbol",
        created,
    );
    statistics::add(
        PASS.argument,
        "guards",
        "Number of guards recorded",
        env.guards().len() as u64,
    );
    true
}

/// Gives each dynamic dim of a graph argument a fresh symbol; returns how many it
/// created. Symbols already present in the input keep their names; new ones
/// continue the count.
fn symbolize_arguments(graph: &Graph, types: &mut [Option<TensorType>]) -> u64 {
    let mut used = std::collections::BTreeSet::new();
    for ty in types.iter().flatten() {
        for dim in &ty.dims {
            if let Dim::Known(e) = dim {
                used.extend(e.symbols());
            }
        }
    }
    let mut next = 0usize;
    let mut fresh = || loop {
        let name = format!("s{next}");
        next += 1;
        if !used.contains(&name) {
            return name;
        }
    };
    let mut created = 0u64;
    for &arg in &graph.arguments {
        if let Some(ty) = types[arg].as_mut() {
            for dim in ty.dims.iter_mut() {
                if *dim == Dim::Unknown {
                    *dim = Dim::Known(Expr::symbol(&fresh()));
                    created += 1;
                }
            }
        }
    }
    created
}

/// Names long result dims by derived symbols (`ascend.derived_symbols`), one name per
/// distinct expression.
struct DerivedNamer {
    derived: DerivedSymbols,
    by_definition: HashMap<Expr, String>,
    /// Every symbol name of the function's types and definitions: fresh names avoid them.
    used: BTreeSet<String>,
    next: usize,
    created: u64,
}

impl DerivedNamer {
    /// Starts from the function's existing definitions (declared in `env`); a malformed
    /// `ascend.derived_symbols` is an error at the function.
    fn new(
        func: &OperationRef,
        graph: &Graph,
        types: &[Option<TensorType>],
        env: &mut ShapeEnv,
    ) -> Option<DerivedNamer> {
        let mut arguments = BTreeSet::new();
        for &arg in &graph.arguments {
            for dim in types[arg].iter().flat_map(|t| t.dims.iter()) {
                if let Dim::Known(e) = dim {
                    e.collect_symbols(&mut arguments);
                }
            }
        }
        let attrs = extract::read_attributes(func);
        let entries = attrs
            .get(derived::ATTRIBUTE)
            .and_then(autofuse_ir::attr::AttrValue::as_strs)
            .unwrap_or_default();
        let parsed = DerivedSymbols::parse(&entries, &arguments);
        let derived = diagnostics::or_error(func.location(), parsed).ok()?;
        let mut used = arguments;
        for ty in types.iter().flatten() {
            for dim in &ty.dims {
                if let Dim::Known(e) = dim {
                    e.collect_symbols(&mut used);
                }
            }
        }
        let mut by_definition = HashMap::new();
        for (name, definition) in derived.iter() {
            env.define(name, definition);
            by_definition.insert(definition.clone(), name.to_string());
            used.insert(name.to_string());
        }
        Some(DerivedNamer {
            derived,
            by_definition,
            used,
            next: 0,
            created: 0,
        })
    }

    /// `ty` with every dim of more than `TERM_LIMIT` terms replaced by its derived symbol.
    fn shorten(&mut self, mut ty: TensorType, env: &mut ShapeEnv) -> TensorType {
        for dim in ty.dims.iter_mut() {
            let Dim::Known(e) = dim else { continue };
            if e.term_count() <= derived::TERM_LIMIT {
                continue;
            }
            let name = match self.by_definition.get(e) {
                Some(name) => name.clone(),
                None => self.fresh(e, env),
            };
            *dim = Dim::Known(Expr::symbol(&name));
        }
        ty
    }

    fn fresh(&mut self, definition: &Expr, env: &mut ShapeEnv) -> String {
        let name = loop {
            let name = format!("d{}", self.next);
            self.next += 1;
            if !self.used.contains(&name) {
                break name;
            }
        };
        env.define(&name, definition);
        self.derived.push(&name, definition.clone());
        self.by_definition.insert(definition.clone(), name.clone());
        self.used.insert(name.clone());
        self.created += 1;
        name
    }
}

/// The shape env of a function: every symbol of `types` (at least 1, unbounded),
/// then the `ranges` and `hints` of the options.
fn symbol_env(
    types: &[Option<TensorType>],
    hints: &[(String, i64)],
    ranges: &[(String, i64, Option<i64>)],
) -> ShapeEnv {
    let mut env = ShapeEnv::new();
    for ty in types.iter().flatten() {
        for dim in &ty.dims {
            if let Dim::Known(e) = dim {
                for s in e.symbols() {
                    if env.info(&s).is_none() {
                        env.declare(SymbolInfo {
                            name: s.clone(),
                            hint: None,
                            min: 1,
                            max: None,
                        });
                    }
                }
            }
        }
    }
    for (name, min, max) in ranges {
        let hint = env.info(name).and_then(|i| i.hint);
        env.declare(SymbolInfo {
            name: name.clone(),
            hint,
            min: *min,
            max: *max,
        });
    }
    for (name, value) in hints {
        env.set_hint(name, *value);
    }
    env
}

/// Recomputes the result types of every `ascend` op by the shape rules, recording
/// guards in `env`; false after an error at an op.
fn infer_results(
    extracted: &ExtractedGraph,
    types: &mut [Option<TensorType>],
    env: &mut ShapeEnv,
    namer: &mut DerivedNamer,
) -> bool {
    let mut ok = true;
    for (node, op) in extracted.graph.nodes.iter().zip(&extracted.ops) {
        let is_ascend = lookup(&node.op).is_some_and(|s| s.dialect == Dialect::Ascend);
        if !is_ascend {
            continue;
        }
        let operands: Option<Vec<TensorType>> = node
            .operands
            .iter()
            .map(|v| types.get(*v).cloned().flatten())
            .collect();
        let declared: Option<Vec<TensorType>> = node
            .results
            .iter()
            .map(|v| types.get(*v).cloned().flatten())
            .collect();
        let (Some(operands), Some(declared)) = (operands, declared) else {
            diagnostics::error(
                op.location(),
                "operand or result type is not a supported tensor type",
            );
            ok = false;
            continue;
        };
        let query = OpShapeQuery {
            op: &node.op,
            operands: &operands,
            attrs: &node.attrs,
            declared: &declared,
        };
        match infer(&query, env) {
            Err(e) => {
                diagnostics::error(op.location(), e.0);
                ok = false;
            }
            Ok(results) => {
                for (value, ty) in node.results.iter().zip(results) {
                    types[*value] = Some(namer.shorten(ty, env));
                }
            }
        }
    }
    ok
}

/// Writes the types back (arguments, results, then the function type); false when
/// one cannot be built.
/// The MLIR type of `value` as printed.
fn current_type_text(
    block: &melior::ir::BlockRef<'_, '_>,
    extracted: &ExtractedGraph,
    value: &autofuse_ir::graph::Value,
) -> Option<String> {
    match value.def {
        ValueDef::Argument(index) => block.argument(index).ok().map(|a| a.r#type().to_string()),
        ValueDef::Result { node, index } => extracted
            .ops
            .get(node)?
            .result(index)
            .ok()
            .map(|r| r.r#type().to_string()),
    }
}

fn write_types(
    func: OperationRef,
    extracted: &ExtractedGraph,
    types: &[Option<TensorType>],
) -> bool {
    let graph = &extracted.graph;
    let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return false;
    };
    for (value_id, value) in graph.values.iter().enumerate() {
        let Some(ty) = &types[value_id] else { continue };
        let text = ty.to_mlir();
        // Equal types can differ in their text (`(s0*s1)` and `s0*s1`): the canonical
        // text is written, since MLIR compares the encodings as strings (a kernel's
        // signature, printed canonically, must match its call's types).
        if Some(ty) == value.ty.as_ref()
            && current_type_text(&block, extracted, value) == Some(text.clone())
        {
            continue;
        }
        let Some(new_type) = raw::parse_type_near(&func, &text) else {
            diagnostics::error(
                func.location(),
                format!("internal error: cannot build type {ty}"),
            );
            return false;
        };
        match value.def {
            ValueDef::Argument(index) => {
                if let Ok(arg) = block.argument(index) {
                    arg.set_type(new_type);
                }
            }
            ValueDef::Result { node, index } => {
                if let Ok(result) = extracted.ops[node].result(index) {
                    result.set_type(new_type);
                }
            }
        }
    }
    let arg_types: Vec<String> = graph
        .arguments
        .iter()
        .map(|&a| type_text(types, a))
        .collect();
    let result_types: Vec<String> = graph.outputs.iter().map(|&o| type_text(types, o)).collect();
    let function_type = format!(
        "({}) -> ({})",
        arg_types.join(", "),
        result_types.join(", ")
    );
    raw::set_attribute_text(&func, "function_type", &function_type);
    true
}

/// Rewrites the signature of each external function (a `func.func` without a body)
/// called from `func` to its call's operand and result types as now printed, where they
/// are the same symbolic types written differently. MLIR's call verifier compares types
/// as text, and this pass writes every type canonically (`floor((s0-1)/2)+1` for a front
/// end's `(1 + floor(((-1 + s0))/(2)))`, e.g. a PyTorch fallback's declaration). A type that
/// differs in meaning is left alone, for the verifier to report at the call.
fn sync_external_declarations(body: melior::ir::BlockRef, func: OperationRef) {
    let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return;
    };
    let mut next = block.first_operation();
    while let Some(call) = next {
        next = call.next_in_block();
        if call.name().as_string_ref().as_str() != Ok("func.call") {
            continue;
        }
        let Some(callee) = call
            .attribute("callee")
            .ok()
            .and_then(|a| melior::ir::attribute::FlatSymbolRefAttribute::try_from(a).ok())
            .map(|c| c.value().to_string())
        else {
            continue;
        };
        let Some(declaration) = extract::functions(body).into_iter().find(|f| {
            extract::function_name(f) == callee
                && f.region(0).ok().and_then(|r| r.first_block()).is_none()
        }) else {
            continue;
        };
        let Some(declared) = declared_signature(&declaration) else {
            continue;
        };
        let operands: Vec<String> = (0..call.operand_count())
            .filter_map(|i| call.operand(i).ok().map(|v| v.r#type().to_string()))
            .collect();
        let results: Vec<String> = (0..call.result_count())
            .filter_map(|i| call.result(i).ok().map(|v| v.r#type().to_string()))
            .collect();
        let at_call: Vec<&String> = operands.iter().chain(&results).collect();
        let same_meaning = at_call.len() == declared.len()
            && at_call.iter().zip(&declared).all(|(now, was)| {
                *now == was
                    || matches!((TensorType::parse_mlir(now), TensorType::parse_mlir(was)),
                                (Ok(a), Ok(b)) if a == b)
            });
        if same_meaning && at_call.iter().zip(&declared).any(|(now, was)| *now != was) {
            let function_type = format!("({}) -> ({})", operands.join(", "), results.join(", "));
            raw::set_attribute_text(&declaration, "function_type", &function_type);
        }
    }
}

/// The input then result types of a function's `function_type`, as printed.
fn declared_signature(func: &OperationRef) -> Option<Vec<String>> {
    let attr = func.attribute("function_type").ok()?;
    let ty = melior::ir::attribute::TypeAttribute::try_from(attr)
        .ok()?
        .value();
    let function = melior::ir::r#type::FunctionType::try_from(ty).ok()?;
    let inputs = (0..function.input_count()).map(|i| function.input(i).ok().map(|t| t.to_string()));
    let results =
        (0..function.result_count()).map(|i| function.result(i).ok().map(|t| t.to_string()));
    inputs.chain(results).collect()
}

/// Records the guards of `env` in `ascend.guards` and the hints used in
/// `ascend.symbol_hints`.
fn record_guards(func: OperationRef, env: &ShapeEnv, hints: &[(String, i64)]) {
    let guards: Vec<String> = env
        .guards()
        .iter()
        .map(|g| autofuse_ir::attr::quote(&g.to_string()))
        .collect();
    raw::set_attribute_text(&func, "ascend.guards", &format!("[{}]", guards.join(", ")));
    if !hints.is_empty() {
        let entries: BTreeMap<&str, i64> = hints.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        let dict: Vec<String> = entries
            .iter()
            .map(|(n, v)| format!("{n} = {v} : i64"))
            .collect();
        raw::set_attribute_text(
            &func,
            "ascend.symbol_hints",
            &format!("{{{}}}", dict.join(", ")),
        );
    }
}

fn type_text(types: &[Option<TensorType>], value: usize) -> String {
    types
        .get(value)
        .and_then(|t| t.as_ref())
        .map(TensorType::to_mlir)
        .unwrap_or_else(|| "none".to_string())
}
