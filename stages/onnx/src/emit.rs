//! The MLIR text builder of the ONNX importer: values with their tensor types (and
//! their values when known at import time), `ascend` ops in generic form whose result
//! types come from the compiler's own shape rules (`autofuse_ascend::shape::infer`, so the
//! output verifies by construction), constants, boundary calls of external
//! declarations, dead-code elimination and the final function text.
//!
//! Values whose operands are all known are also evaluated with the reference
//! interpreter (small tensors only); the ops stay in the graph until dead-code
//! elimination. Ops on shape values (elements that are expressions of the dims, see
//! `shape_values`) are evaluated symbolically instead and emitted as one
//! `ascend.symbolic_constant`, so later nodes read shape-like inputs (a `Reshape` target
//! computed by `Shape -> Gather -> Concat`, as exporters write them) as expressions.

use super::data::{to_le_bytes, Values};
use super::shape_values::{self, Operand};
use autofuse_ascend::interp::run_node;
use autofuse_ascend::shape::{infer, OpShapeQuery};
use autofuse_ir::attr::{quote, AttrValue};
use autofuse_ir::graph::{DType, Dim, TensorType};
use autofuse_ir::tensor::Tensor;
use autofuse_symbolic::{Expr, ShapeEnv};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

/// Largest tensor the importer evaluates while importing.
const FOLD_LIMIT: usize = 1 << 16;
/// Constants with more elements than this are written as hex dense data.
const HEX_THRESHOLD: usize = 64;

/// One SSA value of the graph being built.
#[derive(Clone, Debug)]
pub struct Val {
    pub ssa: String,
    pub ty: TensorType,
    /// Its values, when known at import time (constants and what follows from them).
    pub known: Option<Rc<Values>>,
    /// Its elements as shape expressions, when it is a shape value (see
    /// `shape_values`): computed from dims, known at import time up to the symbols.
    pub sym: Option<Rc<Vec<Expr>>>,
}

impl Val {
    pub fn dtype(&self) -> DType {
        self.ty.dtype
    }

    pub fn rank(&self) -> usize {
        self.ty.rank()
    }

    /// The elements as shape expressions: a shape value's, or integral known values.
    pub fn exprs(&self) -> Option<Vec<Expr>> {
        if let Some(sym) = &self.sym {
            return Some(sym.to_vec());
        }
        let known = self.known.as_ref()?;
        match known.as_ref() {
            Values::I(v) => Some(v.iter().map(|&x| Expr::constant(x)).collect()),
            Values::F(v) => v
                .iter()
                .map(|&x| (x.fract() == 0.0 && x.abs() < 9.0e15).then(|| Expr::constant(x as i64)))
                .collect(),
        }
    }

    /// The static sizes of every dim, if all are static.
    pub fn static_shape(&self) -> Option<Vec<usize>> {
        self.ty
            .dims
            .iter()
            .map(|d| d.as_const().and_then(|n| usize::try_from(n).ok()))
            .collect()
    }
}

/// An attribute of an emitted op.
#[derive(Clone, Debug)]
pub enum A {
    I(i64),
    F(f64),
    B(bool),
    S(String),
    Ints(Vec<i64>),
    /// Integers and shape expressions (strings), e.g. symbolic slice bounds.
    Exprs(Vec<Expr>),
}

/// The attribute element of an expression: an integer when constant.
fn expr_attr(e: &Expr) -> AttrValue {
    match e.as_const() {
        Some(v) => AttrValue::Int(v),
        None => AttrValue::Str(e.to_string()),
    }
}

impl A {
    fn text(&self) -> String {
        match self {
            A::I(v) => format!("{v} : i64"),
            A::F(v) => {
                let v = *v as f32;
                if v.is_finite() {
                    format!("{} : f32", f32_text(v))
                } else {
                    // MLIR spells non-finite float attributes as bit patterns.
                    format!("0x{:08X} : f32", v.to_bits())
                }
            }
            A::B(b) => b.to_string(),
            A::S(s) => quote(s),
            A::Ints(v) => format!(
                "[{}]",
                v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
            ),
            A::Exprs(v) => format!(
                "[{}]",
                v.iter()
                    .map(|e| match e.as_const() {
                        Some(c) => c.to_string(),
                        None => quote(&e.to_string()),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    fn value(&self) -> AttrValue {
        match self {
            A::I(v) => AttrValue::Int(*v),
            // The attribute is printed as f32, so the shape rules see that value.
            A::F(v) => AttrValue::Float(*v as f32 as f64),
            A::B(b) => AttrValue::Bool(*b),
            A::S(s) => AttrValue::Str(s.clone()),
            A::Ints(v) => AttrValue::Array(v.iter().map(|&x| AttrValue::Int(x)).collect()),
            A::Exprs(v) => AttrValue::Array(v.iter().map(expr_attr).collect()),
        }
    }
}

/// A float as an MLIR float literal (always with a '.', which MLIR requires).
pub fn float_text(v: f64) -> String {
    let s = format!("{v:e}");
    match s.split_once('e') {
        Some((mantissa, exp)) if !mantissa.contains('.') => format!("{mantissa}.0e{exp}"),
        _ => s,
    }
}

/// An f32 as the shortest MLIR float literal that reads back as the same f32.
pub fn f32_text(v: f32) -> String {
    let s = format!("{v:e}");
    match s.split_once('e') {
        Some((mantissa, exp)) if !mantissa.contains('.') => format!("{mantissa}.0e{exp}"),
        _ => s,
    }
}

/// One element of a dense literal in `dtype`.
fn element_text(dtype: DType, values: &Values, index: usize) -> String {
    match values {
        Values::F(v) => {
            let x = v[index];
            if x.is_finite() {
                return float_text(x);
            }
            // MLIR spells non-finite floats as bit patterns of the element type.
            let (inf, nan) = match dtype {
                DType::F16 => (0x7C00u64, 0x7E00u64),
                DType::BF16 => (0x7F80, 0x7FC0),
                _ => (0x7F80_0000, 0x7FC0_0000),
            };
            let sign = match dtype {
                DType::F16 | DType::BF16 => 0x8000u64,
                _ => 0x8000_0000,
            };
            let bits = if x.is_nan() {
                nan
            } else if x < 0.0 {
                inf | sign
            } else {
                inf
            };
            format!("0x{bits:X}")
        }
        Values::I(v) if dtype == DType::Bool => (v[index] != 0).to_string(),
        Values::I(v) => v[index].to_string(),
    }
}

/// The `dense<...>` literal of `values` with shape `dims`.
pub fn dense_text(dtype: DType, dims: &[usize], values: &Values) -> String {
    // MLIR's own form of a tensor without elements; walking its dims instead would visit
    // every index of the non-zero ones (2^40 rows of nothing).
    if dims.contains(&0) {
        return "dense<>".to_string();
    }
    let count = values.len();
    if count > 1
        && (0..count).all(|i| element_text(dtype, values, i) == element_text(dtype, values, 0))
    {
        return format!("dense<{}>", element_text(dtype, values, 0));
    }
    let hexable = !matches!(dtype, DType::Bool | DType::F16 | DType::BF16)
        && matches!(values, Values::I(_)) != dtype.is_float();
    if count > HEX_THRESHOLD && hexable {
        let bytes = to_le_bytes(dtype, values);
        let mut hex = String::with_capacity(bytes.len() * 2 + 2);
        hex.push_str("0x");
        for b in bytes {
            hex.push_str(&format!("{b:02X}"));
        }
        return format!("dense<\"{hex}\">");
    }
    fn nest(dtype: DType, dims: &[usize], values: &Values, offset: &mut usize, out: &mut String) {
        match dims.split_first() {
            None => {
                out.push_str(&element_text(dtype, values, *offset));
                *offset += 1;
            }
            Some((&n, rest)) => {
                out.push('[');
                for i in 0..n {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    nest(dtype, rest, values, offset, out);
                }
                out.push(']');
            }
        }
    }
    let mut out = String::from("dense<");
    nest(dtype, dims, values, &mut 0, &mut out);
    out.push('>');
    out
}

/// A static tensor type.
pub fn static_type(dtype: DType, dims: &[usize]) -> TensorType {
    TensorType::new(
        dtype,
        dims.iter().map(|&d| Dim::constant(d as i64)).collect(),
    )
}

/// One emitted operation, kept apart so that dead ops can be dropped at the end.
struct Line {
    results: Vec<String>,
    operands: Vec<String>,
    text: String,
    /// The callee of a boundary call (its declaration is printed if the call is live).
    callee: Option<String>,
}

/// An external function declaration (the target of boundary calls).
struct Decl {
    inputs: Vec<TensorType>,
    outputs: Vec<TensorType>,
}

/// Builds the body of one `func.func`.
pub struct Builder {
    lines: Vec<Line>,
    next: usize,
    env: ShapeEnv,
    /// The `loc(...)` of the ops being emitted (the current ONNX node).
    pub loc: String,
    decls: BTreeMap<String, Decl>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    pub fn new() -> Builder {
        Builder {
            lines: Vec::new(),
            next: 0,
            env: ShapeEnv::new(),
            loc: "loc(unknown)".into(),
            decls: BTreeMap::new(),
        }
    }

    /// The shape env of the graph being built (symbol ranges: dims are >= 1).
    pub fn env(&self) -> &ShapeEnv {
        &self.env
    }

    /// The shape env, for decisions that record assertions.
    pub fn env_mut(&mut self) -> &mut ShapeEnv {
        &mut self.env
    }

    fn fresh(&mut self) -> String {
        let name = format!("%{}", self.next);
        self.next += 1;
        name
    }

    /// Emits an op without operands, `"<op>"() {<attrs>} : () -> <ty>`, and names its result.
    fn leaf(&mut self, op: &str, attrs: &str, ty: &TensorType) -> String {
        let ssa = self.fresh();
        let text = format!(
            "{ssa} = \"{op}\"() {{{attrs}}} : () -> {} {}",
            ty.to_mlir(),
            self.loc
        );
        self.lines.push(Line {
            results: vec![ssa.clone()],
            operands: Vec::new(),
            text,
            callee: None,
        });
        ssa
    }

    /// A constant tensor.
    pub fn constant(&mut self, dtype: DType, dims: &[usize], values: Values) -> Val {
        let ty = static_type(dtype, dims);
        let attrs = format!(
            "value = {} : {}",
            dense_text(dtype, dims, &values),
            ty.to_mlir()
        );
        let ssa = self.leaf("ascend.constant", &attrs, &ty);
        Val {
            ssa,
            ty,
            known: Some(Rc::new(values)),
            sym: None,
        }
    }

    /// A weight by reference: `ascend.parameter` reading the tensor of `dtype` and `dims`
    /// at byte `offset` of `file` (its value is not known to the importer).
    pub fn parameter(&mut self, dtype: DType, dims: &[usize], file: &str, offset: u64) -> Val {
        let ty = static_type(dtype, dims);
        let attrs = format!("file = {}, offset = {offset} : i64", quote(file));
        let ssa = self.leaf("ascend.parameter", &attrs, &ty);
        Val {
            ssa,
            ty,
            known: None,
            sym: None,
        }
    }

    /// A shape value: an `ascend.symbolic_constant` holding `elements` (a plain constant
    /// when they are all integers).
    pub fn symbolic(&mut self, dtype: DType, dims: &[usize], elements: Vec<Expr>) -> Val {
        let constants: Option<Vec<i64>> = elements.iter().map(Expr::as_const).collect();
        if let Some(values) = constants {
            let values = if dtype.is_float() {
                Values::F(values.iter().map(|&v| v as f64).collect())
            } else {
                Values::I(values)
            };
            return self.constant(dtype, dims, values);
        }
        let ty = static_type(dtype, dims);
        let attrs = format!("values = {}", A::Exprs(elements.clone()).text());
        let ssa = self.leaf("ascend.symbolic_constant", &attrs, &ty);
        Val {
            ssa,
            ty,
            known: None,
            sym: Some(Rc::new(elements)),
        }
    }

    /// A rank-0 constant of `dtype`.
    pub fn scalar(&mut self, dtype: DType, value: f64) -> Val {
        let values = if dtype.is_float() {
            Values::F(vec![value])
        } else {
            Values::I(vec![value as i64])
        };
        self.constant(dtype, &[], values)
    }

    /// A 1-D i64 constant.
    pub fn ints(&mut self, values: &[i64]) -> Val {
        self.constant(DType::I64, &[values.len()], Values::I(values.to_vec()))
    }

    /// Emits `ascend.<name>`. The result type comes from the shape rules, given the
    /// result dtype and, for ops whose result type defines the shape (reshape,
    /// broadcast_to), the result dims.
    pub fn op(
        &mut self,
        name: &str,
        operands: &[&Val],
        attrs: &[(&str, A)],
        dtype: DType,
        dims: Option<Vec<Dim>>,
    ) -> Result<Val, String> {
        let full = format!("ascend.{name}");
        let operand_types: Vec<TensorType> = operands.iter().map(|v| v.ty.clone()).collect();
        let attr_values: BTreeMap<String, AttrValue> = attrs
            .iter()
            .map(|(k, a)| (k.to_string(), a.value()))
            .collect();
        let declared_dims = match dims {
            Some(d) => d,
            None => operands
                .first()
                .map(|v| v.ty.dims.clone())
                .unwrap_or_default(),
        };
        let declared = TensorType::new(dtype, declared_dims);
        let inferred = infer(
            &OpShapeQuery {
                op: &full,
                operands: &operand_types,
                attrs: &attr_values,
                declared: std::slice::from_ref(&declared),
            },
            &mut self.env,
        )
        .map_err(|e| format!("ascend.{name}: {e}"))?;
        let ty = inferred
            .into_iter()
            .next()
            .ok_or_else(|| format!("ascend.{name}: no result type"))?;
        if ty.dims.contains(&Dim::Unknown) {
            return Err(format!(
                "ascend.{name}: cannot determine the result shape ({})",
                ty.dims
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("x")
            ));
        }
        let known = self.evaluate(&full, operands, &attr_values, &ty);
        if known.is_none() {
            if let Some(elements) = self.evaluate_symbolic(&full, operands, &attr_values, &ty) {
                let dims = Val {
                    ssa: String::new(),
                    ty: ty.clone(),
                    known: None,
                    sym: None,
                }
                .static_shape()
                .unwrap_or_default();
                return Ok(self.symbolic(ty.dtype, &dims, elements));
            }
        }
        let ssa = self.fresh();
        let attr_text = if attrs.is_empty() {
            String::new()
        } else {
            format!(
                " {{{}}}",
                attrs
                    .iter()
                    .map(|(k, a)| format!("{k} = {}", a.text()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let text = format!(
            "{ssa} = \"{full}\"({}){attr_text} : ({}) -> {} {}",
            operands
                .iter()
                .map(|v| v.ssa.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            operand_types
                .iter()
                .map(TensorType::to_mlir)
                .collect::<Vec<_>>()
                .join(", "),
            ty.to_mlir(),
            self.loc
        );
        self.lines.push(Line {
            results: vec![ssa.clone()],
            operands: operands.iter().map(|v| v.ssa.clone()).collect(),
            text,
            callee: None,
        });
        Ok(Val {
            ssa,
            ty,
            known,
            sym: None,
        })
    }

    /// Evaluates a shape computation whose operands are shape values (at least one of
    /// them symbolic) into element expressions.
    fn evaluate_symbolic(
        &self,
        op: &str,
        operands: &[&Val],
        attrs: &BTreeMap<String, AttrValue>,
        ty: &TensorType,
    ) -> Option<Vec<Expr>> {
        if !operands.iter().any(|v| v.sym.is_some()) {
            return None;
        }
        let out_shape = ty
            .dims
            .iter()
            .map(|d| d.as_const().and_then(|n| usize::try_from(n).ok()))
            .collect::<Option<Vec<usize>>>()?;
        let shapes: Vec<Vec<usize>> = operands
            .iter()
            .map(|v| v.static_shape())
            .collect::<Option<_>>()?;
        let elements: Vec<Vec<Expr>> = operands.iter().map(|v| v.exprs()).collect::<Option<_>>()?;
        let symbolic: Vec<Operand> = operands
            .iter()
            .zip(&shapes)
            .zip(&elements)
            .map(|((v, shape), elements)| Operand {
                shape,
                elements,
                dtype: v.dtype(),
            })
            .collect();
        let out = shape_values::evaluate(op, &symbolic, attrs, ty.dtype, &out_shape, &self.env)?;
        // Integer types only, and f32 for shape values cast to float (scales).
        (!ty.dtype.is_float() || ty.dtype == DType::F32).then_some(out)
    }

    /// Runs the reference interpreter on an op whose operands are all known and small.
    fn evaluate(
        &self,
        op: &str,
        operands: &[&Val],
        attrs: &BTreeMap<String, AttrValue>,
        ty: &TensorType,
    ) -> Option<Rc<Values>> {
        let shape = Val {
            ssa: String::new(),
            ty: ty.clone(),
            known: None,
            sym: None,
        }
        .static_shape()?;
        // Checked: a static shape from the model may overflow usize (fuzzing found
        // dims whose product overflowed).
        match autofuse_ir::tensor::shape_elements(&shape) {
            Some(n) if n <= FOLD_LIMIT => {}
            _ => return None,
        }
        let tensors: Vec<Tensor> = operands
            .iter()
            .map(|v| {
                let shape = v.static_shape()?;
                let values = v.known.as_ref()?;
                Tensor::new(v.dtype(), shape, values.as_f64()).ok()
            })
            .collect::<Option<_>>()?;
        let refs: Vec<&Tensor> = tensors.iter().collect();
        let out = run_node(op, attrs, &refs, std::slice::from_ref(ty), &HashMap::new()).ok()?;
        let t = out.into_iter().next()?;
        Some(Rc::new(Values::from_f64(t.dtype, &t.data)))
    }

    /// A boundary call of the external function `name` (declared once per signature:
    /// the same op with other types gets `name_1`, ...).
    pub fn call(&mut self, name: &str, operands: &[&Val], results: &[TensorType]) -> Vec<Val> {
        let inputs: Vec<TensorType> = operands.iter().map(|v| v.ty.clone()).collect();
        let mut callee = name.to_string();
        let mut n = 0;
        loop {
            match self.decls.get(&callee) {
                None => {
                    self.decls.insert(
                        callee.clone(),
                        Decl {
                            inputs: inputs.clone(),
                            outputs: results.to_vec(),
                        },
                    );
                    break;
                }
                Some(d) if d.inputs == inputs && d.outputs == results => break,
                Some(_) => {
                    n += 1;
                    callee = format!("{name}_{n}");
                }
            }
        }
        let base = self.fresh();
        let names: Vec<String> = if results.len() == 1 {
            vec![base.clone()]
        } else {
            (0..results.len()).map(|i| format!("{base}#{i}")).collect()
        };
        let lhs = match results.len() {
            0 => String::new(),
            1 => format!("{base} = "),
            n => format!("{base}:{n} = "),
        };
        let text = format!(
            "{lhs}func.call {}({}) : ({}) -> ({}) {}",
            symbol_ref(&callee),
            operands
                .iter()
                .map(|v| v.ssa.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            join_types(&inputs),
            join_types(results),
            self.loc
        );
        self.lines.push(Line {
            results: names.clone(),
            operands: operands.iter().map(|v| v.ssa.clone()).collect(),
            text,
            callee: Some(callee),
        });
        names
            .into_iter()
            .zip(results)
            .map(|(ssa, ty)| Val {
                ssa,
                ty: ty.clone(),
                known: None,
                sym: None,
            })
            .collect()
    }

    /// The module text: external declarations of live boundary calls, then the graph
    /// function. Ops whose results nothing live uses are dropped.
    pub fn finish(
        self,
        func_name: &str,
        args: &[(Val, String)],
        outputs: &[Val],
        func_attrs: &[(String, String)],
    ) -> String {
        // Liveness, backwards from the outputs.
        let mut live: HashSet<String> = outputs.iter().map(|v| v.ssa.clone()).collect();
        let mut keep = vec![false; self.lines.len()];
        for (i, line) in self.lines.iter().enumerate().rev() {
            if line.results.iter().any(|r| live.contains(r)) {
                keep[i] = true;
                live.extend(line.operands.iter().cloned());
            }
        }
        let callees: HashSet<&str> = self
            .lines
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .filter_map(|(l, _)| l.callee.as_deref())
            .collect();
        let mut out = String::new();
        for (name, decl) in &self.decls {
            if callees.contains(name.as_str()) {
                out.push_str(&format!(
                    "func.func private {}({}) -> ({})\n",
                    symbol_ref(name),
                    join_types(&decl.inputs),
                    join_types(&decl.outputs)
                ));
            }
        }
        let signature = args
            .iter()
            .map(|(v, name)| format!("{}: {} loc({})", v.ssa, v.ty.to_mlir(), quote(name)))
            .collect::<Vec<_>>()
            .join(", ");
        let result_types: Vec<TensorType> = outputs.iter().map(|v| v.ty.clone()).collect();
        let attrs = if func_attrs.is_empty() {
            String::new()
        } else {
            format!(
                " attributes {{{}}}",
                func_attrs
                    .iter()
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        out.push_str(&format!(
            "func.func {}({signature}) -> ({}){attrs} {{\n",
            symbol_ref(func_name),
            join_types(&result_types)
        ));
        for (line, kept) in self.lines.iter().zip(&keep) {
            if *kept {
                out.push_str("  ");
                out.push_str(&line.text);
                out.push('\n');
            }
        }
        out.push_str(&format!(
            "  return{}{}\n}}\n",
            if outputs.is_empty() { "" } else { " " },
            if outputs.is_empty() {
                String::new()
            } else {
                format!(
                    "{} : {}",
                    outputs
                        .iter()
                        .map(|v| v.ssa.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    join_types(&result_types)
                )
            }
        ));
        out
    }

    /// Names the next function argument (`%argN`).
    pub fn argument(&mut self, index: usize, ty: TensorType) -> Val {
        Val {
            ssa: format!("%arg{index}"),
            ty,
            known: None,
            sym: None,
        }
    }
}

fn join_types(types: &[TensorType]) -> String {
    types
        .iter()
        .map(TensorType::to_mlir)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `@name`, quoted when it is not a bare MLIR identifier.
pub fn symbol_ref(name: &str) -> String {
    let bare = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
    if bare {
        format!("@{name}")
    } else {
        format!("@{}", quote(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_literals_always_have_a_point() {
        assert_eq!(float_text(1.0), "1.0e0");
        assert_eq!(float_text(1e-5), "1.0e-5");
        assert_eq!(float_text(-2.5), "-2.5e0");
        assert_eq!(float_text(0.0), "0.0e0");
        assert_eq!(f32_text(1e-5), "1.0e-5");
        assert_eq!(f32_text(0.1), "1.0e-1");
    }

    #[test]
    fn dense_literals_nest_splat_and_hex() {
        assert_eq!(
            dense_text(DType::I64, &[2, 2], &Values::I(vec![1, 2, 3, 4])),
            "dense<[[1, 2], [3, 4]]>"
        );
        assert_eq!(
            dense_text(DType::F32, &[3], &Values::F(vec![0.5; 3])),
            "dense<5.0e-1>"
        );
        assert_eq!(
            dense_text(DType::Bool, &[2], &Values::I(vec![1, 0])),
            "dense<[true, false]>"
        );
        assert_eq!(
            dense_text(DType::F32, &[2], &Values::F(vec![f64::INFINITY, f64::NAN])),
            "dense<[0x7F800000, 0x7FC00000]>"
        );
        assert_eq!(
            dense_text(DType::F32, &[], &Values::F(vec![2.0])),
            "dense<2.0e0>"
        );
        let many = Values::I((0..100).collect());
        let text = dense_text(DType::I32, &[100], &many);
        assert!(text.starts_with("dense<\"0x0000000001000000"), "{text}");
        assert_eq!(dense_text(DType::F32, &[0], &Values::F(vec![])), "dense<>");
        // No elements behind far more indices than could be walked.
        assert_eq!(
            dense_text(DType::F32, &[1 << 40, 512, 0], &Values::F(vec![])),
            "dense<>"
        );
    }

    #[test]
    fn ops_take_their_types_from_the_shape_rules() {
        let mut b = Builder::new();
        let x = b.argument(
            0,
            TensorType::new(DType::F32, vec![Dim::constant(2), Dim::constant(3)]),
        );
        let r = b.constant(DType::F32, &[3], Values::F(vec![1.0, 2.0, 3.0]));
        let y = b.op("add", &[&x, &r], &[], DType::F32, None).unwrap();
        assert_eq!(y.ty.to_mlir(), "tensor<2x3xf32>");
        let s = b
            .op(
                "reduce_sum",
                &[&y],
                &[("axes", A::Ints(vec![1])), ("keep_dims", A::B(false))],
                DType::F32,
                None,
            )
            .unwrap();
        assert_eq!(s.ty.to_mlir(), "tensor<2xf32>");
        let err = b.op("add", &[&x, &s], &[], DType::F32, None).unwrap_err();
        assert!(err.contains("cannot be broadcast"), "{err}");
    }

    #[test]
    fn known_values_propagate_through_ops() {
        let mut b = Builder::new();
        let a = b.ints(&[2, 3]);
        let c = b.ints(&[4]);
        let j = b
            .op("concat", &[&a, &c], &[("axis", A::I(0))], DType::I64, None)
            .unwrap();
        assert_eq!(j.known.as_deref(), Some(&Values::I(vec![2, 3, 4])));
    }

    #[test]
    fn dead_ops_and_unused_declarations_are_dropped() {
        let mut b = Builder::new();
        let x = b.argument(0, static_type(DType::F32, &[4]));
        let dead = b.op("exp", &[&x], &[], DType::F32, None).unwrap();
        b.call("TopK", &[&dead], &[static_type(DType::F32, &[1])]);
        let live = b.op("neg", &[&x], &[], DType::F32, None).unwrap();
        let text = b.finish("main", &[(x, "x".into())], &[live], &[]);
        assert!(!text.contains("ascend.exp"), "{text}");
        assert!(!text.contains("TopK"), "{text}");
        assert!(text.contains("\"ascend.neg\"(%arg0)"), "{text}");
    }

    #[test]
    fn boundary_declarations_are_unique_per_signature() {
        let mut b = Builder::new();
        let x = b.argument(0, static_type(DType::F32, &[4]));
        let y = b.argument(1, static_type(DType::F32, &[2]));
        let p = b
            .call("Foo", &[&x], &[static_type(DType::F32, &[4])])
            .remove(0);
        let q = b
            .call("Foo", &[&y], &[static_type(DType::F32, &[2])])
            .remove(0);
        let r = b
            .call("Foo", &[&x], &[static_type(DType::F32, &[4])])
            .remove(0);
        let text = b.finish("main", &[(x, "x".into()), (y, "y".into())], &[p, q, r], &[]);
        assert!(
            text.contains("func.func private @Foo(tensor<4xf32>)"),
            "{text}"
        );
        assert!(
            text.contains("func.func private @Foo_1(tensor<2xf32>)"),
            "{text}"
        );
        assert_eq!(text.matches("func.func private").count(), 2, "{text}");
    }

    #[test]
    fn symbol_refs_are_quoted_when_needed() {
        assert_eq!(symbol_ref("TopK"), "@TopK");
        assert_eq!(symbol_ref("com.microsoft.Foo"), "@com.microsoft.Foo");
        assert_eq!(symbol_ref("my op"), "@\"my op\"");
        assert_eq!(symbol_ref("1x"), "@\"1x\"");
    }
}
