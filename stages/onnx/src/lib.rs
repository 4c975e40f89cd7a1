//! The ONNX front end: reads an ONNX model (protobuf) and writes an `ascend` graph.
//!
//! - `proto`: the ONNX messages, declared by hand for `prost` (no `protoc`).
//! - `data`: element types and tensor payloads (typed fields, raw data, external files).
//! - `emit`: the MLIR text builder; result types come from the compiler's shape rules.
//! - `ops`: one converter per covered ONNX operator (`ops_index`: the index and loss
//!   operators; `ops_misc`: windows, CenterCropPad, ReverseSequence, Einsum, LRN).
//!
//! What the importer guarantees (see `docs/onnx.md`):
//! - Graph inputs become function arguments (named by `loc("<input name>")`),
//!   initializers and `Constant` nodes become `ascend.constant`, graph outputs the
//!   function results.
//! - Dynamic dims become symbols in the `#ascend.dims` encoding: a `dim_param` keeps its
//!   name (made a valid symbol name: other characters become `_`), an anonymous dynamic
//!   dim gets a fresh `s<N>` that no `dim_param` of the model uses.
//! - Every op carries `loc("<node name>"("<op type>"))` (the first output's name when the
//!   node has no name).
//! - Covered operators become `ascend` ops; anything else, and covered operators in a
//!   form the importer does not handle (a non-constant `Reshape` target, ...), becomes a
//!   call of an external declaration `func.func private @<OpType>` typed from the
//!   model's value infos, so the model still imports; the summary lists them.
//! - A malformed model is an `ImportError`, never a panic.

pub mod data;
pub mod emit;
pub mod ops;
pub mod ops_attention;
pub mod ops_conv;
pub mod ops_index;
pub mod ops_misc;
pub mod ops_resize;
pub mod proto;
pub mod shape_values;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_attention;
#[cfg(test)]
mod tests_conv;
#[cfg(test)]
mod tests_index;
#[cfg(test)]
mod tests_misc;
#[cfg(test)]
mod tests_resize;

use autofuse_ir::attr::quote;
use autofuse_ir::graph::{DType, Dim, TensorType};
use autofuse_symbolic::Expr;
use data::{decode_tensor, dtype_of};
use emit::{Builder, Val};
use prost::Message;
use proto::{DimValue, GraphProto, ModelProto, NodeProto, TensorProto, TypeProto, TypeValue};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// The newest default-domain opset whose semantics the importer knows (onnx 1.23).
pub const MAX_KNOWN_OPSET: i64 = 28;
/// The oldest opset the importer is written for; older models import best-effort.
pub const MIN_OPSET: i64 = 13;

/// Why a model cannot be imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError(pub String);

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ImportError {}

/// What an import did, for the summary on stderr.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// The default-domain opset of the model.
    pub opset: i64,
    pub nodes: usize,
    /// Op types converted to `ascend` ops, with their counts.
    pub converted: BTreeMap<String, usize>,
    /// Op types imported as boundary calls: count and the reasons.
    pub boundary: BTreeMap<String, (usize, Vec<String>)>,
    pub warnings: Vec<String>,
}

impl Summary {
    /// The human-readable summary printed by `autofuse-import-onnx`.
    pub fn render(&self) -> String {
        let count = |m: &BTreeMap<String, usize>| m.values().sum::<usize>();
        let mut out = format!(
            "imported {} nodes (opset {}): {} converted to ascend ops, {} boundary calls\n",
            self.nodes,
            self.opset,
            count(&self.converted),
            self.boundary.values().map(|(n, _)| n).sum::<usize>()
        );
        if !self.converted.is_empty() {
            let list: Vec<String> = self
                .converted
                .iter()
                .map(|(op, n)| format!("{op} x{n}"))
                .collect();
            out.push_str(&format!("  converted: {}\n", list.join(", ")));
        }
        let library: Vec<String> = [
            "MatMul",
            "Gemm",
            "Conv",
            "ConvTranspose",
            "MaxPool",
            "AveragePool",
        ]
        .iter()
        .filter_map(|op| self.converted.get(*op).map(|n| format!("{op} x{n}")))
        .collect();
        if !library.is_empty() {
            out.push_str(&format!(
                "  boundary by design: {} (matmul, conv and pooling run as library kernels, never fused)\n",
                library.join(", ")
            ));
        }
        if !self.boundary.is_empty() {
            out.push_str("  not covered (kept as boundary calls, never fused):\n");
            for (op, (n, reasons)) in &self.boundary {
                out.push_str(&format!("    {op} x{n}: {}\n", reasons.join("; ")));
            }
        }
        for w in &self.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
        out
    }
}

/// An imported model: the MLIR text and the summary.
#[derive(Clone, Debug)]
pub struct Imported {
    pub mlir: String,
    pub summary: Summary,
}

/// Where weights kept by reference (`ascend.parameter`) are named from.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// The directory the IR's weight paths are relative to (the directory of the IR
    /// file that will hold them); `None` writes absolute paths.
    pub weights_relative_to: Option<PathBuf>,
}

/// The directory of `path` (`.` for a bare file name).
fn model_dir(path: &Path) -> PathBuf {
    path.parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                p.to_path_buf()
            }
        })
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The text of the error [`guarded`] makes of a converter's panic: a defect of the
/// importer, not of the model alone, which the fuzz target reports as a crash.
pub const UNCHECKED_DEFECT: &str = "the model is malformed where the importer does not check it";

/// Runs one node's converter so that a defect in it is a located error, never a crash:
/// converters read inputs, outputs and attributes through checked accessors
/// (`ops::req`, `NodeCtx::attr`, `Values::scalar_f64`, ...), and this is the last line of
/// defence should one still index past what a malformed model holds. The panic message
/// becomes the error (no backtrace is printed).
fn guarded(
    convert: impl FnOnce() -> Result<Vec<Option<Val>>, Fail>,
) -> Result<Vec<Option<Val>>, Fail> {
    use std::cell::Cell;
    use std::panic::{self, AssertUnwindSafe};
    thread_local! {
        static QUIET: Cell<bool> = const { Cell::new(false) };
    }
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(convert));
    QUIET.with(|q| q.set(false));
    result.unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown failure".into());
        Err(Fail::Invalid(format!(
            "{UNCHECKED_DEFECT} ({message}); please report this model"
        )))
    })
}

/// Reads and imports an ONNX model file; external data is read relative to its folder.
/// Weight paths in the IR are absolute (the IR is used in process).
pub fn import_file(path: &Path) -> Result<Imported, ImportError> {
    import_file_with(path, &ImportOptions::default())
}

/// Imports an ONNX model file, mapped rather than read: initializers stored in it
/// (`raw_data`) or in its external data are kept by reference when large
/// (`data::kept_by_reference`), so the import costs the model's structure, not its
/// weight bytes.
pub fn import_file_with(path: &Path, options: &ImportOptions) -> Result<Imported, ImportError> {
    let map = autofuse_ir::weights::mapped(path)
        .map_err(|e| ImportError(format!("cannot read '{}': {e}", path.display())))?;
    let start = map.as_ptr() as usize;
    let len = map.len();
    let bytes = bytes::Bytes::from_owner(MappedBytes(map));
    let model = ModelProto::decode(bytes).map_err(|e| {
        ImportError(format!(
            "not a valid ONNX model (protobuf decoding failed: {e})"
        ))
    })?;
    let weights = WeightFiles {
        model: Some(MappedModel {
            path: path.to_path_buf(),
            start,
            len,
        }),
        relative_to: options.weights_relative_to.clone(),
    };
    import_decoded(&model, Some(&model_dir(path)), weights)
}

/// A mapped file as the owner of `Bytes` (so decoded `raw_data` point into the map).
struct MappedBytes(autofuse_ir::weights::MappedFile);

impl AsRef<[u8]> for MappedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0[..]
    }
}

/// Imports a serialized `ModelProto`; `base_dir` is where external data files live.
/// Initializers in the bytes are inline; external data is kept by reference (absolute
/// paths).
pub fn import_bytes(bytes: &[u8], base_dir: Option<&Path>) -> Result<Imported, ImportError> {
    let model = ModelProto::decode(bytes).map_err(|e| {
        ImportError(format!(
            "not a valid ONNX model (protobuf decoding failed: {e})"
        ))
    })?;
    import_model(&model, base_dir)
}

/// Imports a decoded model (initializers inline, external data by absolute path).
pub fn import_model(model: &ModelProto, base_dir: Option<&Path>) -> Result<Imported, ImportError> {
    import_decoded(model, base_dir, WeightFiles::default())
}

/// The mapped model file whose `raw_data` the decoded model points into.
#[derive(Clone, Debug)]
struct MappedModel {
    path: PathBuf,
    start: usize,
    len: usize,
}

/// Where the importer may refer to weights instead of copying them.
#[derive(Clone, Debug, Default)]
struct WeightFiles {
    model: Option<MappedModel>,
    relative_to: Option<PathBuf>,
}

impl WeightFiles {
    /// The byte offset in the model file of `raw` if it lies inside the mapped model.
    fn model_offset(&self, raw: &[u8]) -> Option<(&Path, u64)> {
        let model = self.model.as_ref()?;
        let at = raw.as_ptr() as usize;
        let inside = at >= model.start && at + raw.len() <= model.start + model.len;
        inside.then(|| (model.path.as_path(), (at - model.start) as u64))
    }

    /// `file` as the IR names it.
    fn ir_path(&self, file: &Path) -> String {
        let path = match &self.relative_to {
            Some(dir) => autofuse_ir::weights::relative_path(dir, file),
            None => std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf()),
        };
        path.to_string_lossy().into_owned()
    }
}

fn import_decoded(
    model: &ModelProto,
    base_dir: Option<&Path>,
    weights: WeightFiles,
) -> Result<Imported, ImportError> {
    let graph = model
        .graph
        .as_ref()
        .ok_or_else(|| ImportError("the model has no graph".into()))?;
    let mut summary = Summary::default();
    let opset = model
        .opset_import
        .iter()
        .find(|o| o.domain.is_empty() || o.domain == "ai.onnx")
        .map(|o| o.version);
    let opset = match opset {
        Some(v) => v,
        None => {
            summary.warnings.push(format!(
                "the model imports no version of the default ONNX domain; assuming opset {MAX_KNOWN_OPSET}"
            ));
            MAX_KNOWN_OPSET
        }
    };
    if opset < MIN_OPSET {
        summary.warnings.push(format!(
            "opset {opset} is older than {MIN_OPSET}; operators are imported with their opset-{opset} \
             semantics where the importer knows them (best effort)"
        ));
    } else if opset > MAX_KNOWN_OPSET {
        summary.warnings.push(format!(
            "opset {opset} is newer than the importer knows ({MAX_KNOWN_OPSET}); operators are \
             imported with opset-{MAX_KNOWN_OPSET} semantics"
        ));
    }
    summary.opset = opset;
    summary.nodes = graph.node.len();
    let local_functions: HashSet<(String, String)> = model
        .functions
        .iter()
        .map(|f| (f.domain.clone(), f.name.clone()))
        .collect();
    let mut importer = Importer {
        b: Builder::new(),
        values: HashMap::new(),
        graph,
        initializers: graph
            .initializer
            .iter()
            .map(|t| (t.name.as_str(), t))
            .collect(),
        declared: graph
            .value_info
            .iter()
            .chain(&graph.output)
            .chain(&graph.input)
            .filter_map(|v| Some((v.name.as_str(), v.r#type.as_ref()?)))
            .collect(),
        opset,
        symbols: Symbols::new(graph),
        base_dir: base_dir.map(Path::to_path_buf),
        weights,
        local_functions,
        summary,
    };
    let mlir = importer.run()?;
    Ok(Imported {
        mlir,
        summary: importer.summary,
    })
}

/// Symbol names of dynamic dims: `dim_param`s keep their (sanitized) names, anonymous
/// dims get fresh `s<N>`s. All `dim_param`s of the graph are reserved up front so a
/// fresh name never collides with a later one.
struct Symbols {
    by_param: HashMap<String, String>,
    used: HashSet<String>,
    next: usize,
    /// Symbols whose name differs from the model's `dim_param`.
    renamed: BTreeMap<String, String>,
}

impl Symbols {
    fn new(graph: &GraphProto) -> Symbols {
        let mut symbols = Symbols {
            by_param: HashMap::new(),
            used: HashSet::new(),
            next: 0,
            renamed: BTreeMap::new(),
        };
        let params = graph
            .input
            .iter()
            .chain(&graph.output)
            .chain(&graph.value_info)
            .filter_map(|v| match v.r#type.as_ref()?.value.as_ref()? {
                TypeValue::TensorType(t) => t.shape.as_ref(),
                _ => None,
            })
            .flat_map(|s| &s.dim)
            .filter_map(|d| match &d.value {
                Some(DimValue::DimParam(p)) => Some(p.clone()),
                _ => None,
            });
        for param in params {
            symbols.named(&param);
        }
        symbols
    }

    /// The symbol of a `dim_param`.
    fn named(&mut self, param: &str) -> String {
        if let Some(s) = self.by_param.get(param) {
            return s.clone();
        }
        let mut base: String = param
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        if base.is_empty() {
            return self.fresh();
        }
        if base.starts_with(|c: char| c.is_ascii_digit()) {
            base.insert_str(0, "d_");
        }
        let mut name = base.clone();
        let mut n = 1;
        while self.used.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        self.by_param.insert(param.to_string(), name.clone());
        if name != param {
            self.renamed.insert(name.clone(), param.to_string());
        }
        name
    }

    /// A fresh symbol for an anonymous dynamic dim.
    fn fresh(&mut self) -> String {
        loop {
            let name = format!("s{}", self.next);
            self.next += 1;
            if self.used.insert(name.clone()) {
                return name;
            }
        }
    }
}

/// The reason of operators without a converter.
pub const NOT_COVERED: &str = "not covered";

/// Why a node was not converted.
pub enum Fail {
    /// The operator, or this form of it, is not covered: it becomes a boundary call.
    Unsupported(String),
    /// The model is wrong (missing required inputs, bad attributes): an import error.
    Invalid(String),
}

impl From<String> for Fail {
    /// Errors of the shape rules and the builder: the importer could not express the
    /// node, which makes it a boundary op rather than a failed import.
    fn from(message: String) -> Fail {
        Fail::Unsupported(message)
    }
}

pub type Converted = Result<Vec<Option<Val>>, Fail>;

/// The state of one import.
pub struct Importer<'m> {
    pub b: Builder,
    values: HashMap<String, Val>,
    graph: &'m GraphProto,
    initializers: HashMap<&'m str, &'m TensorProto>,
    /// Types declared in the model (value_info, outputs, inputs), read when needed.
    declared: HashMap<&'m str, &'m TypeProto>,
    pub opset: i64,
    symbols: Symbols,
    pub base_dir: Option<PathBuf>,
    weights: WeightFiles,
    local_functions: HashSet<(String, String)>,
    summary: Summary,
}

impl<'m> Importer<'m> {
    fn run(&mut self) -> Result<String, ImportError> {
        let graph = self.graph;
        if !graph.sparse_initializer.is_empty() {
            return Err(ImportError(
                "sparse initializers are not supported".to_string(),
            ));
        }
        // Arguments: graph inputs that are not initializers (an input with an
        // initializer is a constant with a default, imported as the constant).
        let mut args = Vec::new();
        for input in &graph.input {
            if self.initializers.contains_key(input.name.as_str()) {
                continue;
            }
            if input.name.is_empty() {
                return Err(ImportError("a graph input has no name".into()));
            }
            let ty = input
                .r#type
                .as_ref()
                .ok_or_else(|| ImportError(format!("graph input '{}': no type", input.name)))
                .and_then(|t| {
                    self.tensor_type(t)
                        .map_err(|e| ImportError(format!("graph input '{}': {e}", input.name)))
                })?;
            let val = self.b.argument(args.len(), ty);
            self.values.insert(input.name.clone(), val.clone());
            args.push((val, input.name.clone()));
        }
        for (index, node) in self.topological_order()?.into_iter().enumerate() {
            self.import_node(node, index)?;
        }
        let mut outputs = Vec::new();
        for output in &graph.output {
            let val = self.value(&output.name).map_err(|_| {
                ImportError(format!(
                    "graph output '{}' is not produced by any node, input or initializer",
                    output.name
                ))
            })?;
            if let Some(TypeValue::TensorType(t)) =
                output.r#type.as_ref().and_then(|t| t.value.as_ref())
            {
                if let Ok(dtype) = dtype_of(t.elem_type) {
                    if dtype != val.dtype() {
                        return Err(ImportError(format!(
                            "graph output '{}' is declared {} but computes {}",
                            output.name,
                            dtype,
                            val.dtype()
                        )));
                    }
                }
            }
            outputs.push(val);
        }
        let mut func_attrs = vec![
            ("onnx.opset".to_string(), format!("{} : i64", self.opset)),
            (
                "onnx.outputs".to_string(),
                format!(
                    "[{}]",
                    graph
                        .output
                        .iter()
                        .map(|o| quote(&o.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        ];
        if !self.symbols.renamed.is_empty() {
            func_attrs.push((
                "onnx.dim_params".to_string(),
                format!(
                    "{{{}}}",
                    self.symbols
                        .renamed
                        .iter()
                        .map(|(sym, param)| format!("{} = {}", quote(sym), quote(param)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        let name = if graph.name.is_empty() {
            "main".to_string()
        } else {
            graph.name.clone()
        };
        let builder = std::mem::take(&mut self.b);
        let mut text = format!(
            "// Imported from ONNX by autofuse-import-onnx (opset {}).\n",
            self.opset
        );
        text.push_str(&builder.finish(&name, &args, &outputs, &func_attrs));
        Ok(text)
    }

    /// The nodes in an order where every input is defined before use (ONNX requires
    /// topological order; this also accepts models that do not keep it).
    fn topological_order(&self) -> Result<Vec<&'m NodeProto>, ImportError> {
        let nodes = &self.graph.node;
        let mut producer: HashMap<&str, usize> = HashMap::new();
        for (i, node) in nodes.iter().enumerate() {
            for out in node.output.iter().filter(|o| !o.is_empty()) {
                if producer.insert(out.as_str(), i).is_some() {
                    return Err(ImportError(format!(
                        "value '{out}' is produced by more than one node"
                    )));
                }
            }
        }
        let mut pending = vec![0usize; nodes.len()];
        let mut users: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (i, node) in nodes.iter().enumerate() {
            for input in node.input.iter().filter(|n| !n.is_empty()) {
                if let Some(&p) = producer.get(input.as_str()) {
                    if p != i {
                        pending[i] += 1;
                        users[p].push(i);
                    }
                }
            }
        }
        // The smallest ready index first: a model already in topological order keeps
        // its order (and so the order of the ops in the output).
        let mut ready: BTreeSet<usize> = (0..nodes.len()).filter(|&i| pending[i] == 0).collect();
        let mut order = Vec::with_capacity(nodes.len());
        while let Some(i) = ready.pop_first() {
            order.push(&nodes[i]);
            for &u in &users[i] {
                pending[u] -= 1;
                if pending[u] == 0 {
                    ready.insert(u);
                }
            }
        }
        if order.len() != nodes.len() {
            let stuck = nodes
                .iter()
                .enumerate()
                .find(|(i, _)| pending[*i] > 0)
                .map(|(_, n)| node_label(n))
                .unwrap_or_default();
            return Err(ImportError(format!(
                "the graph has a cycle (node {stuck} depends on its own output)"
            )));
        }
        Ok(order)
    }

    /// The value named `name` (an argument, an earlier result, or an initializer,
    /// decoded on first use).
    fn value(&mut self, name: &str) -> Result<Val, String> {
        if let Some(v) = self.values.get(name) {
            return Ok(v.clone());
        }
        let Some(tensor) = self.initializers.get(name).copied() else {
            return Err(format!(
                "'{name}' is not a graph input, an initializer or the output of a node"
            ));
        };
        let saved = std::mem::replace(&mut self.b.loc, format!("loc({})", quote(name)));
        let val = self
            .tensor_value(tensor)
            .map_err(|e| format!("initializer '{name}': {e}"));
        self.b.loc = saved;
        let val = val?;
        self.values.insert(name.to_string(), val.clone());
        Ok(val)
    }

    /// The tensor type of a `TypeProto`, with symbols for dynamic dims.
    fn tensor_type(&mut self, ty: &TypeProto) -> Result<TensorType, String> {
        let t = match &ty.value {
            Some(TypeValue::TensorType(t)) => t,
            Some(other) => {
                let kind = match other {
                    TypeValue::SequenceType(_) => "a sequence type",
                    TypeValue::MapType(_) => "a map type",
                    TypeValue::OpaqueType(_) => "an opaque type",
                    TypeValue::SparseTensorType(_) => "a sparse tensor type",
                    TypeValue::OptionalType(_) => "an optional type",
                    TypeValue::TensorType(_) => "a tensor type",
                };
                return Err(format!("{kind} (only dense tensors are supported)"));
            }
            None => return Err("no type".into()),
        };
        let dtype = dtype_of(t.elem_type)?;
        let shape = t
            .shape
            .as_ref()
            .ok_or("no shape (an unknown rank; the compiler needs ranked tensors)")?;
        let dims = shape
            .dim
            .iter()
            .map(|d| match &d.value {
                Some(DimValue::DimValue(v)) if *v >= 0 => Ok(Dim::constant(*v)),
                Some(DimValue::DimValue(v)) => Err(format!("a negative dim {v}")),
                Some(DimValue::DimParam(p)) => symbol_dim(&self.symbols.named(p)),
                None => symbol_dim(&self.symbols.fresh()),
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(TensorType::new(dtype, dims))
    }

    fn import_node(&mut self, node: &'m NodeProto, index: usize) -> Result<(), ImportError> {
        let label = node_label(node);
        let loc_name = if !node.name.is_empty() {
            node.name.clone()
        } else {
            node.output
                .iter()
                .find(|o| !o.is_empty())
                .cloned()
                .unwrap_or_else(|| format!("{}_{index}", node.op_type))
        };
        let mut inputs = Vec::with_capacity(node.input.len());
        for name in &node.input {
            if name.is_empty() {
                inputs.push(None);
            } else {
                let val = self
                    .value(name)
                    .map_err(|e| ImportError(format!("node {label}: input {e}")))?;
                inputs.push(Some(val));
            }
        }
        self.b.loc = format!("loc({}({}))", quote(&loc_name), quote(&node.op_type));
        let default_domain = node.domain.is_empty() || node.domain == "ai.onnx";
        let result = if !default_domain {
            Err(Fail::Unsupported(format!("domain '{}'", node.domain)))
        } else if self
            .local_functions
            .contains(&(node.domain.clone(), node.op_type.clone()))
        {
            Err(Fail::Unsupported("a model-local function".into()))
        } else {
            let ctx = ops::NodeCtx {
                node,
                inputs: &inputs,
                opset: self.opset,
            };
            guarded(|| ops::convert(self, &ctx))
        };
        let outputs = match result {
            Ok(outputs) => {
                *self
                    .summary
                    .converted
                    .entry(node.op_type.clone())
                    .or_default() += 1;
                outputs
            }
            Err(Fail::Invalid(message)) => {
                return Err(ImportError(format!("node {label}: {message}")));
            }
            Err(Fail::Unsupported(reason)) => self.boundary(node, &inputs, &label, reason)?,
        };
        for (i, name) in node.output.iter().enumerate() {
            if name.is_empty() {
                continue;
            }
            match outputs.get(i).cloned().flatten() {
                Some(val) => {
                    self.values.insert(name.clone(), val);
                }
                None => {
                    return Err(ImportError(format!(
                        "node {label}: output #{i} ('{name}') is not supported by the importer"
                    )))
                }
            }
        }
        Ok(())
    }

    /// Imports `node` as a call of an external declaration, typed from the model.
    fn boundary(
        &mut self,
        node: &NodeProto,
        inputs: &[Option<Val>],
        label: &str,
        reason: String,
    ) -> Result<Vec<Option<Val>>, ImportError> {
        let mut result_types = Vec::new();
        for name in node.output.iter().filter(|n| !n.is_empty()) {
            // A covered op the importer could not express (a provable shape mismatch, a
            // form it does not handle) is reported as such, not as "not covered".
            let failed = |detail: String| {
                if reason == NOT_COVERED {
                    ImportError(format!(
                        "node {label} is not covered by the importer and {detail}"
                    ))
                } else {
                    ImportError(format!(
                        "node {label}: {reason}; it cannot stay a boundary call because {detail}"
                    ))
                }
            };
            let declared = self.declared.get(name.as_str()).copied().ok_or_else(|| {
                failed(format!(
                    "the model does not declare the type of its output '{name}' (a boundary \
                     call needs it; onnx.shape_inference.infer_shapes adds it)"
                ))
            })?;
            let ty = self.tensor_type(declared).map_err(|e| {
                failed(format!(
                    "the declared type of its output '{name}' cannot be used: {e}"
                ))
            })?;
            result_types.push(ty);
        }
        if node
            .attribute
            .iter()
            .any(|a| a.g.is_some() || !a.graphs.is_empty())
        {
            self.summary.warnings.push(format!(
                "node {label}: subgraph attributes are not imported (the call stands for the whole op)"
            ));
        }
        let operands: Vec<&Val> = inputs.iter().flatten().collect();
        let callee = if node.domain.is_empty() || node.domain == "ai.onnx" {
            node.op_type.clone()
        } else {
            format!("{}.{}", node.domain, node.op_type)
        };
        let results = self.b.call(&callee, &operands, &result_types);
        let entry = self.summary.boundary.entry(callee).or_default();
        entry.0 += 1;
        if !entry.1.contains(&reason) {
            entry.1.push(reason);
        }
        let mut results = results.into_iter();
        Ok(node
            .output
            .iter()
            .map(|n| if n.is_empty() { None } else { results.next() })
            .collect())
    }

    /// Decodes a tensor attribute.
    pub fn decode(&self, tensor: &TensorProto) -> Result<data::TensorData, String> {
        decode_tensor(tensor, self.base_dir.as_deref())
    }

    /// The value of an initializer or a `Constant`'s tensor: by reference to the bytes
    /// where they are stored when large (`data::kept_by_reference`) and stored
    /// little-endian in a file, else an inline constant.
    pub fn tensor_value(&mut self, tensor: &TensorProto) -> Result<Val, String> {
        if let Some((dtype, dims, file, offset)) = self.reference_of(tensor)? {
            let file = self.weights.ir_path(&file);
            return Ok(self.b.parameter(dtype, &dims, &file, offset));
        }
        let d = self.decode(tensor)?;
        Ok(self.b.constant(d.dtype, &d.dims, d.values))
    }

    /// Where a tensor kept by reference is stored (file and byte offset), checked
    /// against the file; `None` for tensors that stay inline.
    #[allow(clippy::type_complexity)]
    fn reference_of(
        &self,
        tensor: &TensorProto,
    ) -> Result<Option<(DType, Vec<usize>, PathBuf, u64)>, String> {
        let dtype = dtype_of(tensor.data_type)?;
        let count = data::element_count(&tensor.dims)?;
        if !data::kept_by_reference(dtype, count) || tensor.segment.is_some() {
            return Ok(None);
        }
        let bytes = count
            .checked_mul(dtype.bytes())
            .ok_or("the tensor has too many bytes")?;
        let dims: Vec<usize> = tensor.dims.iter().map(|&d| d as usize).collect();
        if tensor.data_location == proto::DATA_LOCATION_EXTERNAL {
            let (file, offset) = data::external_range(tensor, self.base_dir.as_deref(), bytes)?;
            return Ok(Some((dtype, dims, file, offset)));
        }
        if tensor.raw_data.is_empty() {
            return Ok(None);
        }
        if tensor.raw_data.len() != bytes {
            return Err(format!(
                "raw data has {} bytes, {count} {dtype} elements need {bytes}",
                tensor.raw_data.len()
            ));
        }
        Ok(self
            .weights
            .model_offset(&tensor.raw_data)
            .map(|(file, offset)| (dtype, dims, file.to_path_buf(), offset)))
    }
}

/// `'name' (OpType)` for messages.
pub fn node_label(node: &NodeProto) -> String {
    if node.name.is_empty() {
        format!(
            "{} (output '{}')",
            node.op_type,
            node.output.first().map(String::as_str).unwrap_or("")
        )
    } else {
        format!("'{}' ({})", node.name, node.op_type)
    }
}

/// A dim of symbol `name` (names are sanitized, so this only fails on a bug).
fn symbol_dim(name: &str) -> Result<Dim, String> {
    Expr::try_symbol(name)
        .map(Dim::Known)
        .map_err(|e| format!("symbol '{name}': {e}"))
}
