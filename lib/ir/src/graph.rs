//! The in-memory form of one `ascend` graph (a `func.func` of tensor ops), read from MLIR
//! by `autofuse-mlir::extract`. Passes analyse it; the reference interpreter runs it.
//!
//! Every node remembers its position in the function (`op_index`) so that diagnostics can
//! be reported at the MLIR op it came from.

use crate::attr::{parse_tensor_type, AttrValue, TextError};
use autofuse_symbolic::{DerivedSymbols, Expr};
use std::collections::BTreeMap;
use std::fmt;

/// Element types the compiler supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    F32,
    F16,
    BF16,
    I64,
    I32,
    I16,
    I8,
    U8,
    Bool,
}

impl DType {
    pub const ALL: [DType; 9] = [
        DType::F32,
        DType::F16,
        DType::BF16,
        DType::I64,
        DType::I32,
        DType::I16,
        DType::I8,
        DType::U8,
        DType::Bool,
    ];

    /// The MLIR spelling.
    pub fn mlir_name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::I64 => "i64",
            DType::I32 => "i32",
            DType::I16 => "i16",
            DType::I8 => "i8",
            DType::U8 => "ui8",
            DType::Bool => "i1",
        }
    }

    pub fn from_mlir(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.mlir_name() == name)
    }

    /// Bytes per element in memory (bool is one byte, as on the device).
    pub fn bytes(self) -> usize {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::F16 | DType::BF16 | DType::I16 => 2,
            DType::I64 => 8,
            DType::I8 | DType::U8 | DType::Bool => 1,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F16 | DType::BF16)
    }

    pub fn is_int(self) -> bool {
        matches!(
            self,
            DType::I64 | DType::I32 | DType::I16 | DType::I8 | DType::U8
        )
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mlir_name())
    }
}

/// One dimension: a known symbolic size (constants included), or a dynamic dim whose
/// symbol has not been assigned yet (before `--infer-symbolic-shapes`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    Known(Expr),
    Unknown,
}

impl Dim {
    pub fn constant(value: i64) -> Dim {
        Dim::Known(Expr::constant(value))
    }

    pub fn expr(&self) -> Option<&Expr> {
        match self {
            Dim::Known(e) => Some(e),
            Dim::Unknown => None,
        }
    }

    pub fn as_const(&self) -> Option<i64> {
        self.expr().and_then(Expr::as_const)
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(e) => write!(f, "{e}"),
            Dim::Unknown => f.write_str("?"),
        }
    }
}

/// A ranked tensor type with symbolic dims.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    pub dtype: DType,
    pub dims: Vec<Dim>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeError {
    Text(TextError),
    UnsupportedElement(String),
    NotRanked,
    BadEncoding(String),
}

impl fmt::Display for TypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeError::Text(e) => write!(f, "malformed type {e}"),
            TypeError::UnsupportedElement(e) => write!(
                f,
                "unsupported element type '{e}' (supported: f32, f16, bf16, i64, i32, i16, i8, ui8, i1)"
            ),
            TypeError::NotRanked => f.write_str("expected a ranked tensor type"),
            TypeError::BadEncoding(msg) => write!(f, "bad #ascend.dims encoding: {msg}"),
        }
    }
}

impl TensorType {
    pub fn new(dtype: DType, dims: Vec<Dim>) -> Self {
        TensorType { dtype, dims }
    }

    /// A tensor type whose dims are given as expression texts (`"s0"`, `"4"`,
    /// `"2*s1"`); an error names the first text that does not parse.
    pub fn with_dims(dtype: DType, dims: &[&str]) -> Result<Self, String> {
        let dims = dims
            .iter()
            .map(|d| {
                Expr::parse(d)
                    .map(Dim::Known)
                    .map_err(|e| format!("dim '{d}': {e}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(TensorType { dtype, dims })
    }

    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Reads an MLIR type as printed (`tensor<?x128xf32, #ascend.dims<["s0", "128"]>>`).
    pub fn parse_mlir(text: &str) -> Result<TensorType, TypeError> {
        // Kernels repeat a few types many times: successful parses are remembered per
        // thread (bounded).
        thread_local! {
            static MEMO: std::cell::RefCell<autofuse_symbolic::TextMemo<TensorType>> =
                std::cell::RefCell::new(autofuse_symbolic::TextMemo::new(1 << 14));
        }
        if let Some(known) = MEMO.with(|memo| memo.borrow().get(text)) {
            return Ok(known);
        }
        let parsed = TensorType::parse_mlir_uncached(text)?;
        MEMO.with(|memo| memo.borrow_mut().insert(text, parsed.clone()));
        Ok(parsed)
    }

    fn parse_mlir_uncached(text: &str) -> Result<TensorType, TypeError> {
        let parsed = parse_tensor_type(text).map_err(TypeError::Text)?;
        if !text.trim_start().starts_with("tensor<") {
            return Err(TypeError::NotRanked);
        }
        let dtype = DType::from_mlir(&parsed.element)
            .ok_or_else(|| TypeError::UnsupportedElement(parsed.element.clone()))?;
        let symbolic = match &parsed.encoding {
            None => None,
            Some(enc) => {
                let params = enc
                    .dialect_params("ascend.dims")
                    .ok_or_else(|| TypeError::BadEncoding("unknown tensor encoding".into()))?;
                let strs = params
                    .first()
                    .and_then(AttrValue::as_strs)
                    .ok_or_else(|| TypeError::BadEncoding("expected an array of strings".into()))?;
                if strs.len() != parsed.dims.len() {
                    return Err(TypeError::BadEncoding(format!(
                        "{} symbolic dims for a rank-{} tensor",
                        strs.len(),
                        parsed.dims.len()
                    )));
                }
                let exprs = strs
                    .iter()
                    .map(|s| {
                        Expr::parse(s)
                            .map_err(|e| TypeError::BadEncoding(format!("dim '{s}': {e}")))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Some(exprs)
            }
        };
        let mut dims = Vec::with_capacity(parsed.dims.len());
        for (index, dim) in parsed.dims.iter().enumerate() {
            let sym = symbolic.as_ref().map(|s| s[index].clone());
            dims.push(match (dim, sym) {
                (Some(n), Some(e)) => {
                    if e.as_const() != Some(*n) {
                        return Err(TypeError::BadEncoding(format!(
                            "dim {index} is static {n} but its symbolic size is '{e}'"
                        )));
                    }
                    Dim::constant(*n)
                }
                (Some(n), None) => Dim::constant(*n),
                (None, Some(e)) => Dim::Known(e),
                (None, None) => Dim::Unknown,
            });
        }
        Ok(TensorType { dtype, dims })
    }

    /// Whether every dim is a compile-time constant.
    pub fn is_static(&self) -> bool {
        self.dims.iter().all(|d| d.as_const().is_some())
    }

    /// The symbolic element count, if every dim is known.
    pub fn num_elements(&self) -> Option<Expr> {
        self.dims
            .iter()
            .try_fold(Expr::constant(1), |acc, d| Some(acc * d.expr()?.clone()))
    }

    /// The MLIR spelling, with a `#ascend.dims` encoding when some dim is symbolic.
    pub fn to_mlir(&self) -> String {
        let mut out = String::from("tensor<");
        for dim in &self.dims {
            match dim.as_const() {
                Some(n) => out.push_str(&n.to_string()),
                None => out.push('?'),
            }
            out.push('x');
        }
        out.push_str(self.dtype.mlir_name());
        let symbolic = self
            .dims
            .iter()
            .any(|d| matches!(d, Dim::Known(e) if e.as_const().is_none()));
        if symbolic {
            out.push_str(", #ascend.dims<[");
            let names: Vec<String> = self
                .dims
                .iter()
                .map(|d| match d {
                    Dim::Known(e) => crate::attr::quote(&e.to_string()),
                    Dim::Unknown => "\"?\"".to_string(),
                })
                .collect();
            out.push_str(&names.join(", "));
            out.push_str("]>");
        }
        out.push('>');
        out
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_mlir())
    }
}

/// Index of a value (function argument or op result) in `Graph::values`.
pub type ValueId = usize;

#[derive(Clone, Debug)]
pub struct Node {
    /// Full op name (`ascend.add`).
    pub op: String,
    pub operands: Vec<ValueId>,
    pub results: Vec<ValueId>,
    pub attrs: BTreeMap<String, AttrValue>,
    /// Position of the op in the function body, for diagnostics.
    pub op_index: usize,
}

impl Node {
    pub fn attr(&self, name: &str) -> Option<&AttrValue> {
        self.attrs.get(name)
    }

    /// The op name without its dialect prefix.
    pub fn short_name(&self) -> &str {
        self.op.split_once('.').map_or(&self.op, |(_, n)| n)
    }
}

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    Argument(usize),
    Result { node: usize, index: usize },
}

#[derive(Clone, Debug)]
pub struct Value {
    /// `None` when the type is not a supported tensor type (the verifier reports it).
    pub ty: Option<TensorType>,
    pub def: ValueDef,
}

/// One `func.func` of `ascend` ops.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub name: String,
    pub values: Vec<Value>,
    pub arguments: Vec<ValueId>,
    pub nodes: Vec<Node>,
    /// Operands of the `func.return`.
    pub outputs: Vec<ValueId>,
    /// Symbols named for long sizes and computed from the argument symbols
    /// (`ascend.derived_symbols`): executors evaluate them once the arguments are bound.
    pub derived: DerivedSymbols,
}

impl Graph {
    pub fn ty(&self, value: ValueId) -> Option<&TensorType> {
        self.values.get(value).and_then(|v| v.ty.as_ref())
    }

    /// The symbols of the argument types: the ones a caller binds.
    pub fn argument_symbols(&self) -> std::collections::BTreeSet<String> {
        let mut names = std::collections::BTreeSet::new();
        for ty in self.arguments.iter().filter_map(|&a| self.ty(a)) {
            for dim in &ty.dims {
                if let Dim::Known(e) = dim {
                    e.collect_symbols(&mut names);
                }
            }
        }
        names
    }

    /// Users of every value: (node index, operand index).
    pub fn users(&self) -> Vec<Vec<(usize, usize)>> {
        let mut users = vec![Vec::new(); self.values.len()];
        for (n, node) in self.nodes.iter().enumerate() {
            for (i, &operand) in node.operands.iter().enumerate() {
                if let Some(list) = users.get_mut(operand) {
                    list.push((n, i));
                }
            }
        }
        users
    }
}
