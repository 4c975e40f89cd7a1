//! The reference interpreter of the `ascend` dialect: it defines what an `ascend` graph
//! computes, and the compiled kernels (and the AscIR interpreter) are checked against it.
//!
//! Conventions:
//! - Symbol values come from the inputs: every input dim whose symbolic size is a plain
//!   symbol binds it; every other dim (constants, `s0*2`) is checked against the bound
//!   values. Result dims of every op are evaluated the same way and checked against the
//!   shapes the kernels compute.
//! - Operand and result dtypes are validated with the same shape rules the verifier
//!   uses (`shape::infer` on the concrete types), so an op the verifier rejects is an
//!   error here too.
//! - Every op is computed in f64 from its mathematical definition and the result is
//!   rounded once to the result dtype ("compute in higher precision, round once"); the
//!   composite ops (softmax, layer_norm, gelu, ...) are computed directly, not through
//!   their decompositions. Reductions accumulate in f64 and round once.
//! - Integer arithmetic is done in `i64` with wrapping and then wrapped to the result
//!   width, like two's complement hardware. Integer `div` truncates toward zero,
//!   `floor_div` and `mod` are floor-based (the result of `mod` has the divisor's sign).
//!   Integer division by zero gives 0 (as NumPy does; the device result is undefined).
//! - Float `floor_div` is `floor(lhs / rhs)` and float `mod` is
//!   `lhs - floor(lhs / rhs) * rhs`, the catalogue's definitions (NumPy's fmod-based
//!   floor_divide differs in the last place for some inputs, e.g. `1 // 0.1`).
//! - `maximum`, `minimum`, `reduce_max`, `reduce_min`, `clip` and `relu` propagate NaN.
//! - `cast` follows `tensor::cast_value`: float to integer truncates and saturates.
//! - Broadcasting is NumPy's, everywhere operands are combined (binary ops, compares,
//!   select, swiglu, clip, the batch dims of matmul, gamma/beta of the norms).

use crate::ops::lookup;
use crate::shape::{self, normalize_axis, reduce_axes, slice_bounds, OpShapeQuery};
use autofuse_ir::attr::AttrValue;
use autofuse_ir::catalogue::Dialect;
use autofuse_ir::graph::{DType, Dim, Graph, Node, TensorType, Value, ValueDef, ValueId};
use autofuse_ir::tensor::{
    cast_value, round_to_dtype, shape_elements, strides_of, wrap_i64, Tensor,
};
use autofuse_symbolic::{Expr, ShapeEnv};
use std::collections::{BTreeMap, HashMap};

/// Why a graph or an op could not be interpreted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    #[error("graph '{graph}' takes {expected} inputs, got {got}")]
    InputCount {
        graph: String,
        expected: usize,
        got: usize,
    },
    #[error("graph '{graph}' input #{index}: {message}")]
    Input {
        graph: String,
        index: usize,
        message: String,
    },
    #[error("{}: {message}", at(.op, .op_index))]
    Op {
        op: String,
        /// Position in the function body; `None` from `run_node`, which has no graph.
        op_index: Option<usize>,
        message: String,
    },
    #[error("{}: not supported by the ascend interpreter", at(.op, .op_index))]
    Unsupported { op: String, op_index: Option<usize> },
    #[error("graph '{graph}' is malformed: {message}")]
    Malformed { graph: String, message: String },
}

fn at(op: &str, op_index: &Option<usize>) -> String {
    match op_index {
        Some(i) => format!("'{op}' (op #{i})"),
        None => format!("'{op}'"),
    }
}

impl InterpError {
    /// Records the position of the op an error came from.
    pub fn at_op(self, index: usize) -> InterpError {
        match self {
            InterpError::Op { op, message, .. } => InterpError::Op {
                op,
                op_index: Some(index),
                message,
            },
            InterpError::Unsupported { op, .. } => InterpError::Unsupported {
                op,
                op_index: Some(index),
            },
            other => other,
        }
    }
}

/// Errors inside one kernel; `run_node` attaches the op name.
type KResult<T> = Result<T, String>;

/// Binds the symbols of the graph's argument types to the sizes of `inputs`, checking
/// the input count, dtypes, ranks and every non-symbol dim.
pub fn bind_symbols(graph: &Graph, inputs: &[Tensor]) -> Result<HashMap<String, i64>, InterpError> {
    if inputs.len() != graph.arguments.len() {
        return Err(InterpError::InputCount {
            graph: graph.name.clone(),
            expected: graph.arguments.len(),
            got: inputs.len(),
        });
    }
    let input_err = |index: usize, message: String| InterpError::Input {
        graph: graph.name.clone(),
        index,
        message,
    };
    let mut types = Vec::with_capacity(inputs.len());
    for (index, (&arg, t)) in graph.arguments.iter().zip(inputs).enumerate() {
        let ty = graph.ty(arg).ok_or_else(|| InterpError::Malformed {
            graph: graph.name.clone(),
            message: format!("argument #{index} has no supported tensor type"),
        })?;
        if t.dtype != ty.dtype {
            return Err(input_err(
                index,
                format!("element type is {}, expected {}", t.dtype, ty.dtype),
            ));
        }
        if t.rank() != ty.rank() {
            return Err(input_err(
                index,
                format!("rank is {}, expected {} ({ty})", t.rank(), ty.rank()),
            ));
        }
        if shape_elements(&t.shape) != Some(t.data.len()) {
            return Err(input_err(
                index,
                format!("{} values for shape {:?}", t.data.len(), t.shape),
            ));
        }
        types.push(ty);
    }
    // Pass 1: plain symbols bind, remembering where each value came from.
    let mut symbols: HashMap<String, i64> = HashMap::new();
    let mut origin: HashMap<String, (usize, usize)> = HashMap::new();
    for (index, (ty, t)) in types.iter().zip(inputs).enumerate() {
        for (d, (dim, &size)) in ty.dims.iter().zip(&t.shape).enumerate() {
            let Some(name) = dim.expr().and_then(|e| e.as_symbol()) else {
                continue;
            };
            let size = i64::try_from(size).map_err(|_| input_err(index, "dim too large".into()))?;
            match symbols.get(name) {
                Some(&bound) if bound != size => {
                    let (i0, d0) = origin[name];
                    return Err(input_err(
                        index,
                        format!(
                            "dim {d} binds symbol '{name}' to {size}, but input #{i0} dim {d0} \
                             bound it to {bound}"
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    symbols.insert(name.to_string(), size);
                    origin.insert(name.to_string(), (index, d));
                }
            }
        }
    }
    // Pass 2: every other known dim must evaluate to the input's size.
    for (index, (ty, t)) in types.iter().zip(inputs).enumerate() {
        for (d, (dim, &size)) in ty.dims.iter().zip(&t.shape).enumerate() {
            let Some(expr) = dim.expr() else { continue };
            if expr.as_symbol().is_some() {
                continue;
            }
            let want = expr.eval_map(&symbols).map_err(|e| {
                input_err(
                    index,
                    format!("dim {d} has size '{expr}', which the inputs do not determine ({e})"),
                )
            })?;
            if i64::try_from(size).ok() != Some(want) {
                return Err(input_err(
                    index,
                    format!("dim {d} is {size}, expected '{expr}' = {want}"),
                ));
            }
        }
    }
    // Derived symbols are computed, never bound from an input (no argument type spells
    // one): every later type that names them evaluates.
    graph
        .derived
        .evaluate(&mut symbols)
        .map_err(|message| InterpError::Malformed {
            graph: graph.name.clone(),
            message,
        })?;
    Ok(symbols)
}

/// Runs `graph` on `inputs` and returns the values of its `func.return`.
pub fn run(graph: &Graph, inputs: &[Tensor]) -> Result<Vec<Tensor>, InterpError> {
    let symbols = bind_symbols(graph, inputs)?;
    let malformed = |message: String| InterpError::Malformed {
        graph: graph.name.clone(),
        message,
    };
    let mut values: Vec<Option<Tensor>> = vec![None; graph.values.len()];
    for (index, (&arg, t)) in graph.arguments.iter().zip(inputs).enumerate() {
        let slot = values
            .get_mut(arg)
            .ok_or_else(|| malformed(format!("argument #{index} names no value")))?;
        *slot = Some(t.clone());
    }
    for node in &graph.nodes {
        let node_err = |message: String| InterpError::Op {
            op: node.op.clone(),
            op_index: Some(node.op_index),
            message,
        };
        let operands =
            node.operands
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    values.get(v).and_then(Option::as_ref).ok_or_else(|| {
                        node_err(format!("operand #{i} is used before it is defined"))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
        let result_types =
            node.results
                .iter()
                .enumerate()
                .map(|(i, &r)| {
                    graph.ty(r).cloned().ok_or_else(|| {
                        node_err(format!("result #{i} has no supported tensor type"))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
        let outs = run_node(&node.op, &node.attrs, &operands, &result_types, &symbols)
            .map_err(|e| e.at_op(node.op_index))?;
        for (&r, t) in node.results.iter().zip(outs) {
            let slot = values
                .get_mut(r)
                .ok_or_else(|| node_err(format!("result value {r} does not exist")))?;
            *slot = Some(t);
        }
    }
    graph
        .outputs
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            values
                .get(v)
                .and_then(Option::clone)
                .ok_or_else(|| malformed(format!("output #{i} is never defined")))
        })
        .collect()
}

/// Evaluates the dims of a type under `symbols`; dims still unassigned stay `Unknown`.
fn concrete_type(ty: &TensorType, symbols: &HashMap<String, i64>) -> KResult<TensorType> {
    let dims = ty
        .dims
        .iter()
        .enumerate()
        .map(|(d, dim)| match dim.expr() {
            None => Ok(Dim::Unknown),
            Some(e) => match e.eval_map(symbols) {
                Ok(n) if n >= 0 => Ok(Dim::constant(n)),
                Ok(n) => Err(format!("result dim {d} '{e}' evaluates to {n}")),
                Err(err) => Err(format!("result dim {d} '{e}' cannot be evaluated: {err}")),
            },
        })
        .collect::<KResult<Vec<_>>>()?;
    let known: Vec<usize> = dims.iter().filter_map(dim_size).collect();
    check_size(&known)?;
    Ok(TensorType::new(ty.dtype, dims))
}

fn dim_size(dim: &Dim) -> Option<usize> {
    dim.as_const().and_then(|n| usize::try_from(n).ok())
}

/// Executes one `ascend` op: the per-op kernel, reused by the AscIR interpreter.
/// `result_types` are the declared result types (their dtypes, and their dims under
/// `symbols` for ops whose shape the result type defines); computed shapes are checked
/// against them.
pub fn run_node(
    op: &str,
    attrs: &BTreeMap<String, AttrValue>,
    inputs: &[&Tensor],
    result_types: &[TensorType],
    symbols: &HashMap<String, i64>,
) -> Result<Vec<Tensor>, InterpError> {
    let spec = lookup(op)
        .filter(|s| s.dialect == Dialect::Ascend)
        .ok_or_else(|| InterpError::Unsupported {
            op: op.to_string(),
            op_index: None,
        })?;
    let fail = |message: String| InterpError::Op {
        op: op.to_string(),
        op_index: None,
        message,
    };
    if let Some(n) = spec.fixed_operand_count() {
        if inputs.len() != n {
            return Err(fail(format!("expected {n} operands, got {}", inputs.len())));
        }
    }
    let [declared] = result_types else {
        return Err(fail(format!(
            "expected 1 result type, got {}",
            result_types.len()
        )));
    };
    for (i, t) in inputs.iter().enumerate() {
        if shape_elements(&t.shape) != Some(t.data.len()) {
            return Err(fail(format!(
                "operand #{i} has {} values for shape {:?}",
                t.data.len(),
                t.shape
            )));
        }
    }
    let declared = concrete_type(declared, symbols).map_err(fail)?;
    // The result must fit host memory before any kernel allocates it.
    let known: Vec<usize> = declared.dims.iter().filter_map(dim_size).collect();
    if known.len() == declared.rank() {
        autofuse_ir::hostmem::check_shape("its result", &known).map_err(fail)?;
    }
    // `axis`/`axes` index operand 0 (unsqueeze's index its result). Checked before the
    // shape rules, whose `normalize_axis` lets axis 0 through on rank 0 and would then
    // index an empty shape.
    if let Some(x) = inputs.first() {
        if let Some(axis) = attrs.get("axis").and_then(AttrValue::as_int) {
            axis_of(axis, x.rank()).map_err(fail)?;
        }
        if spec.name != "unsqueeze" {
            for axis in attrs
                .get("axes")
                .and_then(AttrValue::as_ints)
                .unwrap_or_default()
            {
                axis_of(axis, x.rank()).map_err(fail)?;
            }
        }
    }
    // The verifier's rules decide which dtypes, ranks and attributes are legal.
    let operand_types: Vec<TensorType> = inputs.iter().map(|t| t.ty()).collect();
    let inferred = shape::infer(
        &OpShapeQuery {
            op,
            operands: &operand_types,
            attrs,
            declared: std::slice::from_ref(&declared),
        },
        &mut ShapeEnv::new(),
    )
    .map_err(|e| fail(e.0))?;
    if let Some(t) = inferred.first() {
        if t.dtype != declared.dtype {
            return Err(fail(format!(
                "result element type is {}, expected {}",
                declared.dtype, t.dtype
            )));
        }
    }
    let out = kernel(spec.name, attrs, inputs, &declared, symbols).map_err(fail)?;
    let matches = out.rank() == declared.rank()
        && declared
            .dims
            .iter()
            .zip(&out.shape)
            .all(|(d, &n)| dim_size(d).is_none_or(|m| m == n));
    if !matches {
        return Err(fail(format!(
            "computed shape {:?} does not match the result type {}",
            out.shape, declared
        )));
    }
    Ok(vec![out])
}

/// Dispatches to the kernel of `name` (the op name without `ascend.`).
fn kernel(
    name: &str,
    attrs: &BTreeMap<String, AttrValue>,
    inputs: &[&Tensor],
    out: &TensorType,
    symbols: &HashMap<String, i64>,
) -> KResult<Tensor> {
    let a = Attrs(attrs);
    let x = || {
        inputs
            .first()
            .copied()
            .ok_or_else(|| "missing operand".to_string())
    };
    let dtype = out.dtype;
    match name {
        "abs" | "neg" | "exp" | "log" | "sqrt" | "rsqrt" | "reciprocal" | "relu" | "sigmoid"
        | "tanh" | "erf" | "sign" | "floor" | "ceil" | "round" | "sin" | "cos" | "square"
        | "logical_not" | "isnan" | "isfinite" | "bitwise_not" => unary(name, x()?, dtype),
        "leaky_relu" => {
            let alpha = a.float("alpha")?;
            Ok(map(x()?, dtype, |v| if v >= 0.0 { v } else { alpha * v }))
        }
        "add" | "sub" | "mul" | "div" | "pow" | "maximum" | "minimum" | "floor_div" | "mod"
        | "logical_and" | "logical_or" | "logical_xor" | "bitwise_and" => {
            binary(name, inputs[0], inputs[1], dtype)
        }
        "eq" | "ne" | "lt" | "le" | "gt" | "ge" => compare(name, inputs[0], inputs[1]),
        "select" => {
            let (shape, data) = broadcast_all(&inputs[..3])?;
            let values = (0..data[0].len())
                .map(|i| {
                    let v = if data[0][i] != 0.0 {
                        data[1][i]
                    } else {
                        data[2][i]
                    };
                    round_to_dtype(v, dtype)
                })
                .collect();
            Ok(tensor(dtype, shape, values))
        }
        "cast" => {
            // No second rounding: a saturated i64 (2^63 as f64) must not wrap.
            let x = x()?;
            let data = x
                .data
                .iter()
                .map(|&v| cast_value(v, x.dtype, dtype))
                .collect();
            Ok(tensor(dtype, x.shape.clone(), data))
        }
        "reduce_sum" | "reduce_mean" | "reduce_max" | "reduce_min" | "reduce_prod"
        | "reduce_any" | "reduce_all" => reduce(name, x()?, &a, dtype),
        "softmax" | "log_softmax" => softmax(name == "log_softmax", x()?, &a, dtype),
        "layer_norm" => norm(x()?, inputs[1], Some(inputs[2]), &a, dtype),
        "rms_norm" => norm(x()?, inputs[1], None, &a, dtype),
        "gelu" => {
            let tanh_form = match a.str("approximate")? {
                "none" => false,
                "tanh" => true,
                other => return Err(format!("unknown gelu approximation '{other}'")),
            };
            Ok(map(x()?, dtype, |v| gelu(v, tanh_form)))
        }
        "silu" => Ok(map(x()?, dtype, |v| v * sigmoid(v))),
        "swish" => {
            let beta = a.float("beta")?;
            Ok(map(x()?, dtype, |v| v * sigmoid(beta * v)))
        }
        "swiglu" => {
            let (shape, data) = broadcast_all(&inputs[..2])?;
            let values = data[0]
                .iter()
                .zip(&data[1])
                .map(|(&g, &u)| round_to_dtype(g * sigmoid(g) * u, dtype))
                .collect();
            Ok(tensor(dtype, shape, values))
        }
        "clip" => {
            let (shape, data) = broadcast_all(&inputs[..3])?;
            let values = (0..data[0].len())
                .map(|i| {
                    let v = nan_max(data[0][i], data[1][i]);
                    round_to_dtype(nan_min(v, data[2][i]), dtype)
                })
                .collect();
            Ok(tensor(dtype, shape, values))
        }
        "broadcast_to" => broadcast_to(x()?, out),
        "reshape" => reshape(x()?, out),
        "squeeze" => {
            let x = x()?;
            let axes = axes_of(&a.ints("axes")?, x.rank())?;
            if let Some(&bad) = axes.iter().find(|&&ax| x.shape[ax] != 1) {
                return Err(format!(
                    "cannot squeeze axis {bad} of size {}",
                    x.shape[bad]
                ));
            }
            let shape = (0..x.rank())
                .filter(|i| !axes.contains(i))
                .map(|i| x.shape[i])
                .collect();
            Ok(tensor(dtype, shape, x.data.clone()))
        }
        "unsqueeze" => {
            let x = x()?;
            let new_axes = a.ints("axes")?;
            let rank = x.rank() + new_axes.len();
            let axes = axes_of(&new_axes, rank)?;
            let mut source = x.shape.iter();
            let shape = (0..rank)
                .map(|i| {
                    if axes.contains(&i) {
                        1
                    } else {
                        source.next().copied().unwrap_or(1)
                    }
                })
                .collect();
            Ok(tensor(dtype, shape, x.data.clone()))
        }
        "transpose" => transpose(x()?, &a.ints("perm")?),
        "concat" => concat(inputs[0], inputs[1], a.int("axis")?),
        "slice" => slice(x()?, &a, symbols),
        "gather" => gather(inputs[0], inputs[1], a.int("axis")?),
        "gather_elements" => gather_elements(inputs[0], inputs[1], a.int("axis")?),
        "gather_nd" => gather_nd(inputs[0], inputs[1], a.int("batch_dims")?),
        "cumsum" => cumsum(x()?, &a, dtype),
        "pad" => pad(x()?, &a, symbols),
        "matmul" => matmul(inputs[0], inputs[1], &a, dtype),
        "conv" | "conv_transpose" | "max_pool" | "avg_pool" => {
            crate::conv::kernel(name, inputs, attrs, out, symbols)
        }
        "constant" => constant(&a, out),
        "parameter" => parameter(&a, out),
        "symbolic_constant" => symbolic_constant(&a, out, symbols),
        "range" => range(&a, out, symbols),
        other => Err(format!("no kernel for '{other}'")),
    }
}

/// Rejects shapes whose element count overflows before anything is allocated.
fn check_size(shape: &[usize]) -> KResult<usize> {
    shape_elements(shape).ok_or_else(|| format!("shape {shape:?} has too many elements"))
}

fn tensor(dtype: DType, shape: Vec<usize>, data: Vec<f64>) -> Tensor {
    Tensor { dtype, shape, data }
}

/// Typed access to an op's attributes with error messages naming the attribute.
struct Attrs<'a>(&'a BTreeMap<String, AttrValue>);

impl Attrs<'_> {
    fn get(&self, name: &str) -> KResult<&AttrValue> {
        self.0
            .get(name)
            .ok_or_else(|| format!("missing attribute '{name}'"))
    }

    /// Integers and shape expressions, evaluated under `symbols`.
    fn exprs(&self, name: &str, symbols: &HashMap<String, i64>) -> KResult<Vec<i64>> {
        let exprs = self.get(name)?.as_exprs().ok_or_else(|| {
            format!("attribute '{name}' must be an array of integers or shape expressions")
        })?;
        exprs.iter().map(|e| eval_expr(e, symbols)).collect()
    }

    fn int(&self, name: &str) -> KResult<i64> {
        self.get(name)?
            .as_int()
            .ok_or_else(|| format!("attribute '{name}' must be an integer"))
    }

    fn ints(&self, name: &str) -> KResult<Vec<i64>> {
        self.get(name)?
            .as_ints()
            .ok_or_else(|| format!("attribute '{name}' must be an array of integers"))
    }

    fn float(&self, name: &str) -> KResult<f64> {
        self.get(name)?
            .as_float()
            .ok_or_else(|| format!("attribute '{name}' must be a float"))
    }

    fn str(&self, name: &str) -> KResult<&str> {
        self.get(name)?
            .as_str()
            .ok_or_else(|| format!("attribute '{name}' must be a string"))
    }

    /// A bool attribute that defaults to false when absent.
    fn flag(&self, name: &str) -> KResult<bool> {
        match self.0.get(name) {
            None => Ok(false),
            Some(v) => v
                .as_bool()
                .ok_or_else(|| format!("attribute '{name}' must be a bool")),
        }
    }
}

/// A normalized axis that indexes the shape (`normalize_axis` lets axis 0 through on
/// rank 0, which the kernels could not index).
fn axis_of(axis: i64, rank: usize) -> KResult<usize> {
    let a = normalize_axis(axis, rank).map_err(|e| e.0)?;
    if a >= rank {
        return Err(format!("axis {axis} is out of range for rank {rank}"));
    }
    Ok(a)
}

/// Normalized, distinct axes (sorted).
fn axes_of(axes: &[i64], rank: usize) -> KResult<Vec<usize>> {
    let mut out = axes
        .iter()
        .map(|&a| axis_of(a, rank))
        .collect::<KResult<Vec<_>>>()?;
    out.sort_unstable();
    let before = out.len();
    out.dedup();
    if out.len() != before {
        return Err("axes must be distinct".into());
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------
// Index arithmetic
// ---------------------------------------------------------------------------------

/// Flat offsets `base + sum(index[d] * strides[d])` of every index of `shape`, in
/// row-major order. Broadcasting (stride 0), transposition (permuted strides), slicing
/// (scaled strides and a base) and reductions (output strides) are all this walk.
fn offsets(shape: &[usize], strides: &[usize], base: usize) -> Vec<usize> {
    let count = shape.iter().product::<usize>();
    let mut out = Vec::with_capacity(count);
    let mut index = vec![0usize; shape.len()];
    let mut offset = base;
    for _ in 0..count {
        out.push(offset);
        for d in (0..shape.len()).rev() {
            index[d] += 1;
            offset += strides[d];
            if index[d] < shape[d] {
                break;
            }
            offset -= strides[d] * shape[d];
            index[d] = 0;
        }
    }
    out
}

/// NumPy broadcast shape of several shapes.
fn broadcast_shape(shapes: &[&[usize]]) -> KResult<Vec<usize>> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; rank];
    for shape in shapes {
        let offset = rank - shape.len();
        for (i, &d) in shape.iter().enumerate() {
            let o = &mut out[offset + i];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return Err(format!(
                    "shapes {:?} cannot be broadcast together",
                    shapes.iter().map(|s| s.to_vec()).collect::<Vec<_>>()
                ));
            }
        }
    }
    check_size(&out)?;
    Ok(out)
}

/// Strides that read `from` (a shape broadcastable to `to`) at every index of `to`.
fn broadcast_strides(from: &[usize], to: &[usize]) -> KResult<Vec<usize>> {
    if from.len() > to.len() {
        return Err(format!("cannot broadcast {from:?} to {to:?}"));
    }
    let offset = to.len() - from.len();
    let src = strides_of(from);
    let mut strides = vec![0usize; to.len()];
    for (i, &d) in from.iter().enumerate() {
        if d == to[offset + i] {
            strides[offset + i] = src[i];
        } else if d != 1 {
            return Err(format!("cannot broadcast {from:?} to {to:?}"));
        }
    }
    Ok(strides)
}

/// The data of `t` broadcast to `shape`.
fn broadcast_data(t: &Tensor, shape: &[usize]) -> KResult<Vec<f64>> {
    if t.shape == shape {
        return Ok(t.data.clone());
    }
    let strides = broadcast_strides(&t.shape, shape)?;
    Ok(offsets(shape, &strides, 0)
        .into_iter()
        .map(|o| t.data[o])
        .collect())
}

/// Broadcasts several tensors together: (shape, data of each).
fn broadcast_all(inputs: &[&Tensor]) -> KResult<(Vec<usize>, Vec<Vec<f64>>)> {
    let shapes: Vec<&[usize]> = inputs.iter().map(|t| t.shape.as_slice()).collect();
    let shape = broadcast_shape(&shapes)?;
    let data = inputs
        .iter()
        .map(|t| broadcast_data(t, &shape))
        .collect::<KResult<Vec<_>>>()?;
    Ok((shape, data))
}

// ---------------------------------------------------------------------------------
// Elementwise
// ---------------------------------------------------------------------------------

/// Applies `f` to every element and rounds to `dtype`.
fn map(x: &Tensor, dtype: DType, f: impl Fn(f64) -> f64) -> Tensor {
    let data = x
        .data
        .iter()
        .map(|&v| round_to_dtype(f(v), dtype))
        .collect();
    tensor(dtype, x.shape.clone(), data)
}

fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// 1/(1+e^-x) without overflow for large |x|.
fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

fn gelu(x: f64, tanh_form: bool) -> f64 {
    if tanh_form {
        let k = (2.0 / std::f64::consts::PI).sqrt();
        0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh())
    } else {
        x * 0.5 * (1.0 + erf(x / std::f64::consts::SQRT_2))
    }
}

/// The error function, accurate to a few ulp in f64 (|error| < 1e-15).
///
/// For |x| < 2.5 the series erf(x) = 2/sqrt(pi) e^(-x^2) sum 2^n x^(2n+1) / (2n+1)!!,
/// whose terms are all positive (no cancellation, unlike the Taylor series); beyond, the
/// continued fraction erfc(x) = e^(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))),
/// which converges fast for large x.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let r = if a < 2.5 {
        let a2 = a * a;
        let mut term = a;
        let mut sum = a;
        let mut n = 0.0;
        while n < 200.0 {
            n += 1.0;
            term *= 2.0 * a2 / (2.0 * n + 1.0);
            sum += term;
            if term <= sum * 1e-17 {
                break;
            }
        }
        std::f64::consts::FRAC_2_SQRT_PI * (-a2).exp() * sum
    } else {
        let mut f = a;
        for k in (1..=60).rev() {
            f = a + f64::from(k) * 0.5 / f;
        }
        let erfc = (-a * a).exp() / std::f64::consts::PI.sqrt() / f;
        1.0 - erfc
    };
    r.copysign(x)
}

fn unary(name: &str, x: &Tensor, dtype: DType) -> KResult<Tensor> {
    // Integers go through exact i64 arithmetic so that wrapping (-(-128) in i8,
    // squares beyond 2^53) is two's complement, not f64 rounding.
    if !x.dtype.is_float() {
        let f: fn(i64) -> i64 = match (name, x.dtype) {
            ("bitwise_not", DType::Bool) | ("logical_not", _) => |v| i64::from(v == 0),
            ("abs", _) => i64::wrapping_abs,
            ("neg", _) => i64::wrapping_neg,
            ("relu", _) => |v| v.max(0),
            ("sign", _) => i64::signum,
            ("square", _) => |v| v.wrapping_mul(v),
            ("bitwise_not", _) => |v| !v,
            _ => return Err(format!("'{name}' is not defined on {}", x.dtype)),
        };
        let data = x
            .data
            .iter()
            .map(|&v| wrap_i64(f(v as i64), dtype))
            .collect();
        return Ok(tensor(dtype, x.shape.clone(), data));
    }
    let f: fn(f64) -> f64 = match name {
        "abs" => f64::abs,
        "neg" => |v| -v,
        "exp" => f64::exp,
        "log" => f64::ln,
        "sqrt" => f64::sqrt,
        "rsqrt" => |v| 1.0 / v.sqrt(),
        "reciprocal" => |v| 1.0 / v,
        "relu" => |v| if v.is_nan() { v } else { v.max(0.0) },
        "sigmoid" => sigmoid,
        "tanh" => f64::tanh,
        "erf" => erf,
        "sign" => |v| {
            if v.is_nan() || v == 0.0 {
                v
            } else {
                v.signum()
            }
        },
        "floor" => f64::floor,
        "ceil" => f64::ceil,
        "round" => f64::round_ties_even,
        "sin" => f64::sin,
        "cos" => f64::cos,
        "square" => |v| v * v,
        "isnan" => |v| f64::from(u8::from(v.is_nan())),
        "isfinite" => |v| f64::from(u8::from(v.is_finite())),
        _ => return Err(format!("'{name}' is not defined on {}", x.dtype)),
    };
    Ok(map(x, dtype, f))
}

/// Integer (and bool) binary arithmetic in wrapping i64.
fn binary_int(name: &str, a: i64, b: i64) -> i64 {
    match name {
        "add" => a.wrapping_add(b),
        "sub" => a.wrapping_sub(b),
        "mul" => a.wrapping_mul(b),
        // Division by zero gives 0, as in NumPy.
        "div" if b == 0 => 0,
        "div" => a.wrapping_div(b),
        "floor_div" if b == 0 => 0,
        "floor_div" => {
            let q = a.wrapping_div(b);
            if (a % b != 0) && ((a < 0) != (b < 0)) {
                q - 1
            } else {
                q
            }
        }
        "mod" if b == 0 => 0,
        "mod" => {
            let r = a.wrapping_rem(b);
            if r != 0 && ((r < 0) != (b < 0)) {
                r + b
            } else {
                r
            }
        }
        "pow" => {
            // Only reachable for bool (the shape rules require floats); 0^0 = 1.
            if b < 0 {
                0
            } else {
                a.wrapping_pow(u32::try_from(b).unwrap_or(u32::MAX))
            }
        }
        "maximum" => a.max(b),
        "minimum" => a.min(b),
        "logical_and" => i64::from(a != 0 && b != 0),
        "logical_or" => i64::from(a != 0 || b != 0),
        "logical_xor" => i64::from((a != 0) != (b != 0)),
        _ => a & b, // bitwise_and
    }
}

fn binary_float(name: &str, a: f64, b: f64) -> f64 {
    match name {
        "add" => a + b,
        "sub" => a - b,
        "mul" => a * b,
        "div" => a / b,
        "pow" => a.powf(b),
        "maximum" => nan_max(a, b),
        "minimum" => nan_min(a, b),
        "floor_div" => (a / b).floor(),
        "mod" => {
            if b.is_infinite() && a.is_finite() {
                // NumPy's convention: the divisor's sign, a itself when signs agree.
                if a == 0.0 || (a < 0.0) == (b < 0.0) {
                    a
                } else {
                    b
                }
            } else {
                a - (a / b).floor() * b
            }
        }
        // The logical and bitwise ops take i1 or integers (shape rules), never floats.
        _ => f64::NAN,
    }
}

fn binary(name: &str, l: &Tensor, r: &Tensor, dtype: DType) -> KResult<Tensor> {
    let (shape, data) = broadcast_all(&[l, r])?;
    let values = if l.dtype.is_float() {
        if name == "bitwise_and" {
            return Err(format!("'bitwise_and' is not defined on {}", l.dtype));
        }
        data[0]
            .iter()
            .zip(&data[1])
            .map(|(&a, &b)| round_to_dtype(binary_float(name, a, b), dtype))
            .collect()
    } else {
        data[0]
            .iter()
            .zip(&data[1])
            .map(|(&a, &b)| wrap_i64(binary_int(name, a as i64, b as i64), dtype))
            .collect()
    };
    Ok(tensor(dtype, shape, values))
}

fn compare(name: &str, l: &Tensor, r: &Tensor) -> KResult<Tensor> {
    let (shape, data) = broadcast_all(&[l, r])?;
    let f: fn(&f64, &f64) -> bool = match name {
        "eq" => |a, b| a == b,
        "ne" => |a, b| a != b,
        "lt" => |a, b| a < b,
        "le" => |a, b| a <= b,
        "gt" => |a, b| a > b,
        _ => |a, b| a >= b,
    };
    let values = data[0]
        .iter()
        .zip(&data[1])
        .map(|(a, b)| f64::from(u8::from(f(a, b))))
        .collect();
    Ok(tensor(DType::Bool, shape, values))
}

// ---------------------------------------------------------------------------------
// Reductions and normalizations
// ---------------------------------------------------------------------------------

fn reduce(name: &str, x: &Tensor, a: &Attrs, dtype: DType) -> KResult<Tensor> {
    let axes = reduce_axes(&a.ints("axes")?, x.rank()).map_err(|e| e.0)?;
    if axes.iter().any(|&ax| ax >= x.rank()) {
        return Err(format!("axes out of range for rank {}", x.rank()));
    }
    let keep = a
        .get("keep_dims")?
        .as_bool()
        .ok_or("attribute 'keep_dims' must be a bool")?;
    let kept_shape: Vec<usize> = (0..x.rank())
        .map(|i| if axes.contains(&i) { 1 } else { x.shape[i] })
        .collect();
    // Output offset of every input element: the kept-dims strides, 0 on reduced axes.
    let mut strides = strides_of(&kept_shape);
    for &ax in &axes {
        strides[ax] = 0;
    }
    let targets = offsets(&x.shape, &strides, 0);
    let out_count = kept_shape.iter().product::<usize>();
    let count = axes.iter().map(|&ax| x.shape[ax]).product::<usize>();
    let int = !x.dtype.is_float();
    let values: Vec<f64> = match name {
        "reduce_sum" | "reduce_mean" | "reduce_prod" => {
            let prod = name == "reduce_prod";
            if int {
                let mut acc = vec![i64::from(prod); out_count];
                for (&v, &o) in x.data.iter().zip(&targets) {
                    acc[o] = if prod {
                        acc[o].wrapping_mul(v as i64)
                    } else {
                        acc[o].wrapping_add(v as i64)
                    };
                }
                acc.into_iter().map(|v| wrap_i64(v, dtype)).collect()
            } else {
                let mut acc = vec![f64::from(u8::from(prod)); out_count];
                for (&v, &o) in x.data.iter().zip(&targets) {
                    if prod {
                        acc[o] *= v;
                    } else {
                        acc[o] += v;
                    }
                }
                if name == "reduce_mean" {
                    // An empty mean is 0/0 = NaN, as in NumPy.
                    let n = count as f64;
                    acc.iter_mut().for_each(|v| *v /= n);
                }
                acc.into_iter().map(|v| round_to_dtype(v, dtype)).collect()
            }
        }
        "reduce_max" | "reduce_min" => {
            let max = name == "reduce_max";
            let mut acc: Vec<Option<f64>> = vec![None; out_count];
            for (&v, &o) in x.data.iter().zip(&targets) {
                acc[o] = Some(match acc[o] {
                    None => v,
                    Some(b) if max => nan_max(b, v),
                    Some(b) => nan_min(b, v),
                });
            }
            acc.into_iter()
                .map(|v| {
                    v.map(|v| round_to_dtype(v, dtype))
                        .ok_or_else(|| format!("'{name}' over an empty axis has no value"))
                })
                .collect::<KResult<Vec<_>>>()?
        }
        _ => {
            let all = name == "reduce_all";
            let mut acc = vec![all; out_count];
            for (&v, &o) in x.data.iter().zip(&targets) {
                acc[o] = if all {
                    acc[o] && v != 0.0
                } else {
                    acc[o] || v != 0.0
                };
            }
            acc.into_iter().map(|b| f64::from(u8::from(b))).collect()
        }
    };
    let shape = if keep {
        kept_shape
    } else {
        (0..x.rank())
            .filter(|i| !axes.contains(i))
            .map(|i| x.shape[i])
            .collect()
    };
    Ok(tensor(dtype, shape, values))
}

/// (outer, len, inner) of the lanes along `axis`: element k of lane (o, i) is at
/// `(o * len + k) * inner + i`.
fn lanes(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    (
        shape[..axis].iter().product(),
        shape[axis],
        shape[axis + 1..].iter().product(),
    )
}

fn softmax(log: bool, x: &Tensor, a: &Attrs, dtype: DType) -> KResult<Tensor> {
    let axis = axis_of(a.int("axis")?, x.rank())?;
    let (outer, len, inner) = lanes(&x.shape, axis);
    let mut out = vec![0.0; x.data.len()];
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * len + k) * inner + i;
            // Subtracting the lane maximum keeps every exp() <= 1.
            let max = (0..len)
                .map(|k| x.data[at(k)])
                .fold(f64::NEG_INFINITY, nan_max);
            let sum: f64 = (0..len).map(|k| (x.data[at(k)] - max).exp()).sum();
            for k in 0..len {
                let shifted = x.data[at(k)] - max;
                let v = if log {
                    shifted - sum.ln()
                } else {
                    shifted.exp() / sum
                };
                out[at(k)] = round_to_dtype(v, dtype);
            }
        }
    }
    Ok(tensor(dtype, x.shape.clone(), out))
}

/// layer_norm (with `beta`) or rms_norm (without) over the axes [axis, rank).
fn norm(
    x: &Tensor,
    gamma: &Tensor,
    beta: Option<&Tensor>,
    a: &Attrs,
    dtype: DType,
) -> KResult<Tensor> {
    let axis = axis_of(a.int("axis")?, x.rank())?;
    let eps = a.float("epsilon")?;
    let normalized = &x.shape[axis..];
    let n = normalized.iter().product::<usize>();
    let gamma = broadcast_data(gamma, normalized)?;
    let beta = beta.map(|b| broadcast_data(b, normalized)).transpose()?;
    let mut out = Vec::with_capacity(x.data.len());
    for chunk in x.data.chunks(n.max(1)) {
        let count = n as f64;
        match &beta {
            Some(beta) => {
                let mean = chunk.iter().sum::<f64>() / count;
                // Biased variance, two-pass for accuracy.
                let var = chunk.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / count;
                let denom = (var + eps).sqrt();
                for (j, &v) in chunk.iter().enumerate() {
                    out.push(round_to_dtype(
                        (v - mean) / denom * gamma[j] + beta[j],
                        dtype,
                    ));
                }
            }
            None => {
                let ms = chunk.iter().map(|v| v * v).sum::<f64>() / count;
                let denom = (ms + eps).sqrt();
                for (j, &v) in chunk.iter().enumerate() {
                    out.push(round_to_dtype(v / denom * gamma[j], dtype));
                }
            }
        }
    }
    Ok(tensor(dtype, x.shape.clone(), out))
}

// ---------------------------------------------------------------------------------
// Layout and structural ops
// ---------------------------------------------------------------------------------

fn broadcast_to(x: &Tensor, out: &TensorType) -> KResult<Tensor> {
    if out.rank() < x.rank() {
        return Err(format!(
            "cannot broadcast rank {} to rank {}",
            x.rank(),
            out.rank()
        ));
    }
    let offset = out.rank() - x.rank();
    let shape = out
        .dims
        .iter()
        .enumerate()
        .map(|(i, d)| match dim_size(d) {
            Some(n) => Ok(n),
            // An unassigned dim keeps the input's size.
            None if i >= offset => Ok(x.shape[i - offset]),
            None => Err(format!("result dim {i} has no size")),
        })
        .collect::<KResult<Vec<_>>>()?;
    let data = broadcast_data(x, &shape)?;
    Ok(tensor(x.dtype, shape, data))
}

fn reshape(x: &Tensor, out: &TensorType) -> KResult<Tensor> {
    let sizes: Vec<Option<usize>> = out.dims.iter().map(dim_size).collect();
    let unknown: Vec<usize> = (0..sizes.len()).filter(|&i| sizes[i].is_none()).collect();
    let known = sizes.iter().flatten().product::<usize>();
    let shape = match unknown.as_slice() {
        [] => sizes.iter().flatten().copied().collect::<Vec<_>>(),
        // One unassigned dim is determined by the element count (-1 in NumPy).
        [slot] if known > 0 && x.num_elements().is_multiple_of(known) => {
            let mut s: Vec<usize> = sizes.iter().map(|d| d.unwrap_or(0)).collect();
            s[*slot] = x.num_elements() / known;
            s
        }
        _ => return Err(format!("cannot infer the reshape target {out}")),
    };
    if shape.iter().product::<usize>() != x.num_elements() {
        return Err(format!(
            "cannot reshape {:?} ({} elements) to {shape:?}",
            x.shape,
            x.num_elements()
        ));
    }
    Ok(tensor(x.dtype, shape, x.data.clone()))
}

fn transpose(x: &Tensor, perm: &[i64]) -> KResult<Tensor> {
    if perm.len() != x.rank() {
        return Err(format!(
            "perm has {} entries for rank {}",
            perm.len(),
            x.rank()
        ));
    }
    let perm = perm
        .iter()
        .map(|&p| usize::try_from(p).ok().filter(|&p| p < x.rank()))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| format!("perm {perm:?} is not a permutation"))?;
    let src = x.strides();
    let shape: Vec<usize> = perm.iter().map(|&p| x.shape[p]).collect();
    let strides: Vec<usize> = perm.iter().map(|&p| src[p]).collect();
    let data = offsets(&shape, &strides, 0)
        .into_iter()
        .map(|o| x.data[o])
        .collect();
    Ok(tensor(x.dtype, shape, data))
}

fn concat(l: &Tensor, r: &Tensor, axis: i64) -> KResult<Tensor> {
    let axis = axis_of(axis, l.rank())?;
    let same = l.rank() == r.rank() && (0..l.rank()).all(|d| d == axis || l.shape[d] == r.shape[d]);
    if !same {
        return Err(format!(
            "cannot concatenate {:?} and {:?} along axis {axis}",
            l.shape, r.shape
        ));
    }
    let (outer, _, inner) = lanes(&l.shape, axis);
    let (lb, rb) = (l.shape[axis] * inner, r.shape[axis] * inner);
    let mut data = Vec::with_capacity(l.data.len() + r.data.len());
    for o in 0..outer {
        data.extend_from_slice(&l.data[o * lb..(o + 1) * lb]);
        data.extend_from_slice(&r.data[o * rb..(o + 1) * rb]);
    }
    let mut shape = l.shape.clone();
    shape[axis] += r.shape[axis];
    Ok(tensor(l.dtype, shape, data))
}

fn slice(x: &Tensor, a: &Attrs, symbols: &HashMap<String, i64>) -> KResult<Tensor> {
    let (starts, ends, axes, steps) = (
        a.exprs("starts", symbols)?,
        a.exprs("ends", symbols)?,
        a.ints("axes")?,
        a.ints("steps")?,
    );
    if starts.len() != axes.len() || ends.len() != axes.len() || steps.len() != axes.len() {
        return Err("starts, ends, axes and steps must have the same length".into());
    }
    let src = x.strides();
    let mut shape = x.shape.clone();
    let mut strides = src.clone();
    let mut base = 0;
    let mut seen = vec![false; x.rank()];
    for i in 0..axes.len() {
        let axis = axis_of(axes[i], x.rank())?;
        if std::mem::replace(&mut seen[axis], true) {
            return Err(format!("axis {axis} is sliced twice"));
        }
        let step = usize::try_from(steps[i])
            .ok()
            .filter(|&s| s > 0)
            .ok_or("slice steps must be positive")?;
        let size = i64::try_from(x.shape[axis]).map_err(|_| "dim too large")?;
        let (begin, end) = slice_bounds(starts[i], ends[i], size);
        let (begin, end) = (begin as usize, end as usize);
        shape[axis] = if end > begin {
            (end - begin).div_ceil(step)
        } else {
            0
        };
        strides[axis] = src[axis] * step;
        base += begin * src[axis];
    }
    // An empty result never reads `base`, which may then point past the data.
    let data = if shape.contains(&0) {
        Vec::new()
    } else {
        offsets(&shape, &strides, base)
            .into_iter()
            .map(|o| x.data[o])
            .collect()
    };
    Ok(tensor(x.dtype, shape, data))
}

fn gather(data: &Tensor, indices: &Tensor, axis: i64) -> KResult<Tensor> {
    let axis = axis_of(axis, data.rank())?;
    let (outer, size, inner) = lanes(&data.shape, axis);
    let picks = indices
        .data
        .iter()
        .map(|&i| {
            let i = i as i64;
            let j = if i < 0 { i + size as i64 } else { i };
            usize::try_from(j)
                .ok()
                .filter(|&j| j < size)
                .ok_or_else(|| format!("index {i} is out of range for axis {axis} of size {size}"))
        })
        .collect::<KResult<Vec<_>>>()?;
    let mut shape = data.shape[..axis].to_vec();
    shape.extend_from_slice(&indices.shape);
    shape.extend_from_slice(&data.shape[axis + 1..]);
    let mut out = Vec::with_capacity(check_size(&shape)?);
    for o in 0..outer {
        for &j in &picks {
            let start = (o * size + j) * inner;
            out.extend_from_slice(&data.data[start..start + inner]);
        }
    }
    Ok(tensor(data.dtype, shape, out))
}

/// An index into a dim of `size`, negative counting from the end.
fn index_in(i: f64, size: usize, what: &str) -> KResult<usize> {
    let i = i as i64;
    let j = if i < 0 { i + size as i64 } else { i };
    usize::try_from(j)
        .ok()
        .filter(|&j| j < size)
        .ok_or_else(|| format!("index {i} is out of range for {what} of size {size}"))
}

fn gather_elements(data: &Tensor, indices: &Tensor, axis: i64) -> KResult<Tensor> {
    let axis = axis_of(axis, data.rank())?;
    if indices.rank() != data.rank() {
        return Err("indices must have the rank of data".into());
    }
    let (ds, is) = (data.strides(), indices.strides());
    let mut out = Vec::with_capacity(indices.data.len());
    for (flat, &i) in indices.data.iter().enumerate() {
        let mut offset = 0;
        for d in 0..data.rank() {
            let coord = (flat / is[d]) % indices.shape[d].max(1);
            let coord = if d == axis {
                index_in(i, data.shape[d], "the gathered axis")?
            } else if coord < data.shape[d] {
                coord
            } else {
                return Err(format!("indices dim {d} exceeds data's"));
            };
            offset += coord * ds[d];
        }
        out.push(data.data[offset]);
    }
    Ok(tensor(data.dtype, indices.shape.clone(), out))
}

fn gather_nd(data: &Tensor, indices: &Tensor, batch_dims: i64) -> KResult<Tensor> {
    let batch = usize::try_from(batch_dims).map_err(|_| "batch_dims must be >= 0")?;
    let k = *indices.shape.last().ok_or("indices must have rank >= 1")?;
    if batch >= indices.rank() || batch + k > data.rank() {
        return Err("index tuples do not fit data".into());
    }
    if data.shape[..batch] != indices.shape[..batch] {
        return Err("batch dims of data and indices differ".into());
    }
    let slice: usize = data.shape[batch + k..].iter().product();
    let tuples: usize = indices.shape[batch..indices.rank() - 1].iter().product();
    let batches: usize = indices.shape[..batch].iter().product();
    let ds = data.strides();
    let mut shape = indices.shape[..indices.rank() - 1].to_vec();
    shape.extend_from_slice(&data.shape[batch + k..]);
    let mut out = Vec::with_capacity(check_size(&shape)?);
    let per_batch: usize = data.shape[batch..].iter().product();
    for b in 0..batches {
        for t in 0..tuples {
            let tuple = &indices.data[(b * tuples + t) * k..(b * tuples + t + 1) * k];
            let mut offset = b * per_batch;
            for (j, &i) in tuple.iter().enumerate() {
                offset += index_in(i, data.shape[batch + j], "an indexed dim")? * ds[batch + j];
            }
            out.extend_from_slice(&data.data[offset..offset + slice]);
        }
    }
    Ok(tensor(data.dtype, shape, out))
}

/// Constant padding; negative pads crop.
fn pad(x: &Tensor, a: &Attrs, symbols: &HashMap<String, i64>) -> KResult<Tensor> {
    let pads = a.exprs("pads", symbols)?;
    let rank = x.rank();
    if pads.len() != 2 * rank {
        return Err(format!("{} pads for rank {rank}", pads.len()));
    }
    let value = round_to_dtype(a.float("value")?, x.dtype);
    let mode = a.get("mode")?.as_str().unwrap_or("constant");
    let shape: Vec<usize> = (0..rank)
        .map(|i| {
            let n = x.shape[i] as i64 + pads[i] + pads[rank + i];
            usize::try_from(n).map_err(|_| format!("pads crop axis {i} below zero"))
        })
        .collect::<KResult<_>>()?;
    let count = check_size(&shape)?;
    let src = x.strides();
    let dst = strides_of(&shape);
    let mut out = vec![value; count];
    for (flat, slot) in out.iter_mut().enumerate() {
        let mut offset = 0usize;
        let mut inside = true;
        for i in 0..rank {
            let n = x.shape[i] as i64;
            let mut coord = ((flat / dst[i]) % shape[i].max(1)) as i64 - pads[i];
            if coord < 0 || coord >= n {
                coord = match mode {
                    _ if n == 0 => -1,
                    "edge" => coord.clamp(0, n - 1),
                    "wrap" => coord.rem_euclid(n),
                    "reflect" if n == 1 => 0,
                    "reflect" => {
                        // Mirror without repeating the border: period 2(n-1).
                        let period = 2 * (n - 1);
                        let m = coord.rem_euclid(period);
                        if m < n {
                            m
                        } else {
                            period - m
                        }
                    }
                    _ => -1,
                };
            }
            if coord < 0 {
                inside = false;
                break;
            }
            offset += coord as usize * src[i];
        }
        if inside {
            *slot = x.data[offset];
        }
    }
    Ok(tensor(x.dtype, shape, out))
}

fn cumsum(x: &Tensor, a: &Attrs, dtype: DType) -> KResult<Tensor> {
    let axis = axis_of(a.int("axis")?, x.rank())?;
    let (exclusive, reverse) = (a.flag("exclusive")?, a.flag("reverse")?);
    let (outer, size, inner) = lanes(&x.shape, axis);
    let mut out = vec![0.0; x.data.len()];
    for o in 0..outer {
        for i in 0..inner {
            let mut acc = 0.0;
            for step in 0..size {
                let j = if reverse { size - 1 - step } else { step };
                let at = (o * size + j) * inner + i;
                if exclusive {
                    out[at] = round_to_dtype(acc, dtype);
                    acc = round_to_dtype(acc + x.data[at], dtype);
                } else {
                    acc = round_to_dtype(acc + x.data[at], dtype);
                    out[at] = acc;
                }
            }
        }
    }
    Ok(tensor(dtype, x.shape.clone(), out))
}

fn matmul(l: &Tensor, r: &Tensor, a: &Attrs, dtype: DType) -> KResult<Tensor> {
    if l.rank() < 2 || r.rank() < 2 {
        return Err("matmul operands must have rank >= 2".into());
    }
    let (ta, tb) = (a.flag("transpose_a")?, a.flag("transpose_b")?);
    let (lr, rr) = (l.rank(), r.rank());
    let (ls, rs) = (l.strides(), r.strides());
    // Row and column strides of the (possibly transposed) matrices.
    let (m, k, sm, sk) = if ta {
        (l.shape[lr - 1], l.shape[lr - 2], ls[lr - 1], ls[lr - 2])
    } else {
        (l.shape[lr - 2], l.shape[lr - 1], ls[lr - 2], ls[lr - 1])
    };
    let (k2, n, sk2, sn) = if tb {
        (r.shape[rr - 1], r.shape[rr - 2], rs[rr - 1], rs[rr - 2])
    } else {
        (r.shape[rr - 2], r.shape[rr - 1], rs[rr - 2], rs[rr - 1])
    };
    if k != k2 {
        return Err(format!("contraction sizes differ ({k} vs {k2})"));
    }
    let (lb, rb) = (&l.shape[..lr - 2], &r.shape[..rr - 2]);
    let batch = broadcast_shape(&[lb, rb])?;
    // Batch strides in elements of each operand, 0 where it is broadcast.
    // (broadcast_shape checked that every batch dim is 1 or the batch size).
    let batch_strides = |b: &[usize], s: &[usize]| -> Vec<usize> {
        let offset = batch.len() - b.len();
        let mut strides = vec![0usize; batch.len()];
        for (i, &d) in b.iter().enumerate() {
            if d != 1 {
                strides[offset + i] = s[i];
            }
        }
        strides
    };
    let l_off = offsets(&batch, &batch_strides(lb, &ls), 0);
    let r_off = offsets(&batch, &batch_strides(rb, &rs), 0);
    let int = !l.dtype.is_float();
    let mut shape = batch.clone();
    shape.extend([m, n]);
    let mut out = Vec::with_capacity(check_size(&shape)?);
    if !int {
        // f64 products summed in f64 and rounded once to the dtype, as the loop below;
        // only the summation order differs (blocked), far below any dtype's rounding.
        out.resize(out.capacity(), 0.0);
        let as_stride = |s: usize| isize::try_from(s).map_err(|_| "matmul stride overflow");
        let (sm, sk, sk2, sn) = (
            as_stride(sm)?,
            as_stride(sk)?,
            as_stride(sk2)?,
            as_stride(sn)?,
        );
        for ((&lo, &ro), block) in l_off.iter().zip(&r_off).zip(out.chunks_mut((m * n).max(1))) {
            if m * n == 0 {
                break;
            }
            let (lhs, rhs) = (&l.data[lo..], &r.data[ro..]);
            // SAFETY: every index the strides reach lies in the operand's data (the
            // offsets and strides come from its shape) and in `block` (m x n, row-major).
            unsafe {
                matrixmultiply::dgemm(
                    m,
                    k,
                    n,
                    1.0,
                    lhs.as_ptr(),
                    sm,
                    sk,
                    rhs.as_ptr(),
                    sk2,
                    sn,
                    0.0,
                    block.as_mut_ptr(),
                    n as isize,
                    1,
                );
            }
            for v in block.iter_mut() {
                *v = round_to_dtype(*v, dtype);
            }
        }
        return Ok(tensor(dtype, shape, out));
    }
    for (&lo, &ro) in l_off.iter().zip(&r_off) {
        for i in 0..m {
            for j in 0..n {
                let pairs =
                    (0..k).map(|p| (l.data[lo + i * sm + p * sk], r.data[ro + p * sk2 + j * sn]));
                out.push(if int {
                    let acc = pairs.fold(0i64, |acc, (x, y)| {
                        acc.wrapping_add((x as i64).wrapping_mul(y as i64))
                    });
                    wrap_i64(acc, dtype)
                } else {
                    round_to_dtype(pairs.map(|(x, y)| x * y).sum(), dtype)
                });
            }
        }
    }
    Ok(tensor(dtype, shape, out))
}

/// Evaluates a shape expression under the run's symbols.
fn eval_expr(e: &Expr, symbols: &HashMap<String, i64>) -> KResult<i64> {
    e.eval_map(symbols)
        .map_err(|err| format!("cannot evaluate '{e}': {err}"))
}

fn symbolic_constant(
    a: &Attrs,
    out: &TensorType,
    symbols: &HashMap<String, i64>,
) -> KResult<Tensor> {
    let values = a.exprs("values", symbols)?;
    let shape: Vec<usize> = out
        .dims
        .iter()
        .map(|d| dim_size(d).ok_or_else(|| format!("symbolic_constant of type {out}")))
        .collect::<KResult<_>>()?;
    if shape_elements(&shape) != Some(values.len()) {
        return Err(format!("{} values for type {out}", values.len()));
    }
    let data = values
        .iter()
        .map(|&v| round_to_dtype(v as f64, out.dtype))
        .collect();
    Ok(tensor(out.dtype, shape, data))
}

fn range(a: &Attrs, out: &TensorType, symbols: &HashMap<String, i64>) -> KResult<Tensor> {
    let value = |name: &str| -> KResult<f64> {
        let attr = a.get(name)?;
        if let Some(v) = attr.as_float() {
            return Ok(v);
        }
        let e = attr
            .as_expr()
            .ok_or_else(|| format!("attribute '{name}' must be a number or a shape expression"))?;
        Ok(eval_expr(&e, symbols)? as f64)
    };
    let (start, delta) = (value("start")?, value("delta")?);
    let [n] = out.dims.as_slice() else {
        return Err(format!("range of type {out}"));
    };
    let n = dim_size(n).ok_or_else(|| format!("range of type {out}"))?;
    let data = (0..n)
        .map(|i| round_to_dtype(start + i as f64 * delta, out.dtype))
        .collect();
    Ok(tensor(out.dtype, vec![n], data))
}

/// A weight read from its file (mapped, see `autofuse_ir::weights`); a relative path
/// is taken from the current directory, so executors resolve paths against the IR
/// file's directory before they run (`Program::resolve_weight_files`).
fn parameter(a: &Attrs, out: &TensorType) -> KResult<Tensor> {
    let file = a.str("file")?;
    let offset = u64::try_from(a.int("offset")?)
        .map_err(|_| "parameter offset must be non-negative".to_string())?;
    let shape: Vec<usize> = out
        .dims
        .iter()
        .map(dim_size)
        .collect::<Option<_>>()
        .ok_or_else(|| format!("a parameter has a static shape, not {out}"))?;
    autofuse_ir::weights::read_tensor(std::path::Path::new(file), offset, out.dtype, shape)
}

fn constant(a: &Attrs, out: &TensorType) -> KResult<Tensor> {
    let (values, splat) = match a.get("value")? {
        AttrValue::Dense { values, splat, .. } => (values.clone(), *splat || values.len() == 1),
        other => match other.as_float() {
            Some(v) => (vec![v], true),
            None => return Err("attribute 'value' must be dense elements".into()),
        },
    };
    let sizes: Vec<Option<usize>> = out.dims.iter().map(dim_size).collect();
    let known = sizes.iter().flatten().product::<usize>();
    let shape: Vec<usize> = match sizes.iter().filter(|d| d.is_none()).count() {
        0 => sizes.iter().flatten().copied().collect(),
        1 if !splat && known > 0 && values.len().is_multiple_of(known) => sizes
            .iter()
            .map(|d| d.unwrap_or(values.len() / known))
            .collect(),
        _ => return Err(format!("cannot determine the shape of constant {out}")),
    };
    let count = shape_elements(&shape).ok_or("constant is too large")?;
    let data: Vec<f64> = if splat {
        let v = values
            .first()
            .copied()
            .ok_or("dense value has no elements")?;
        vec![round_to_dtype(v, out.dtype); count]
    } else if values.len() == count {
        values
            .iter()
            .map(|&v| round_to_dtype(v, out.dtype))
            .collect()
    } else {
        return Err(format!(
            "dense value has {} elements for shape {shape:?}",
            values.len()
        ));
    };
    Ok(tensor(out.dtype, shape, data))
}

// ---------------------------------------------------------------------------------
// Building graphs by hand
// ---------------------------------------------------------------------------------

/// Builds a `Graph` without MLIR, for tests and tools: arguments, then ops in order.
pub struct GraphBuilder {
    graph: Graph,
}

impl GraphBuilder {
    pub fn new(name: &str) -> GraphBuilder {
        GraphBuilder {
            graph: Graph {
                name: name.to_string(),
                ..Graph::default()
            },
        }
    }

    /// Adds a function argument of type `ty`.
    pub fn arg(&mut self, ty: TensorType) -> ValueId {
        let id = self.graph.values.len();
        self.graph.values.push(Value {
            ty: Some(ty),
            def: ValueDef::Argument(self.graph.arguments.len()),
        });
        self.graph.arguments.push(id);
        id
    }

    /// Adds an op with one result of type `result`.
    pub fn op(
        &mut self,
        op: &str,
        operands: &[ValueId],
        attrs: &[(&str, AttrValue)],
        result: TensorType,
    ) -> ValueId {
        let id = self.graph.values.len();
        let node = self.graph.nodes.len();
        self.graph.values.push(Value {
            ty: Some(result),
            def: ValueDef::Result { node, index: 0 },
        });
        self.graph.nodes.push(Node {
            op: op.to_string(),
            operands: operands.to_vec(),
            results: vec![id],
            attrs: attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            op_index: node,
        });
        id
    }

    pub fn finish(mut self, outputs: &[ValueId]) -> Graph {
        self.graph.outputs = outputs.to_vec();
        self.graph
    }
}

#[cfg(test)]
mod tests {
    //! Expected values are hand-computed or NumPy/`math` results written in as literals.

    use super::*;

    fn st(dtype: DType, dims: &[i64]) -> TensorType {
        TensorType::new(dtype, dims.iter().map(|&d| Dim::constant(d)).collect())
    }

    fn ty(text: &str) -> TensorType {
        TensorType::parse_mlir(text).unwrap()
    }

    fn t(dtype: DType, shape: &[usize], data: &[f64]) -> Tensor {
        Tensor::new(dtype, shape.to_vec(), data.to_vec()).unwrap()
    }

    fn f32s(shape: &[usize], data: &[f64]) -> Tensor {
        t(DType::F32, shape, data)
    }

    fn ints(values: &[i64]) -> AttrValue {
        AttrValue::Array(values.iter().map(|&v| AttrValue::Int(v)).collect())
    }

    /// A one-op graph over `inputs` (static argument types) with result type `result`.
    /// `op` may omit the `ascend.` prefix.
    fn op_graph(
        op: &str,
        inputs: &[&Tensor],
        attrs: &[(&str, AttrValue)],
        result: TensorType,
    ) -> Graph {
        let op = if op.contains('.') {
            op.to_string()
        } else {
            format!("ascend.{op}")
        };
        let mut b = GraphBuilder::new("g");
        let args: Vec<ValueId> = inputs.iter().map(|x| b.arg(x.ty())).collect();
        let y = b.op(&op, &args, attrs, result);
        b.finish(&[y])
    }

    fn run1(
        op: &str,
        inputs: &[&Tensor],
        attrs: &[(&str, AttrValue)],
        result: TensorType,
    ) -> Result<Tensor, InterpError> {
        let graph = op_graph(op, inputs, attrs, result);
        let owned: Vec<Tensor> = inputs.iter().map(|&x| x.clone()).collect();
        run(&graph, &owned).map(|mut v| v.remove(0))
    }

    /// Runs an op whose result has the dtype and shape of its first operand.
    fn same(op: &str, inputs: &[&Tensor], attrs: &[(&str, AttrValue)]) -> Tensor {
        run1(op, inputs, attrs, inputs[0].ty()).unwrap()
    }

    fn assert_close(got: &[f64], want: &[f64], tol: f64) {
        assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() <= tol || (g.is_nan() && w.is_nan()),
                "{got:?} vs {want:?}"
            );
        }
    }

    /// Reference values rounded to f32, as an f32 tensor holds them.
    fn as_f32(values: &[f64]) -> Vec<f64> {
        values.iter().map(|&v| v as f32 as f64).collect()
    }

    #[test]
    fn erf_is_accurate() {
        // Python math.erf.
        let cases = [
            (0.1, 0.1124629160182849),
            (0.5, 0.5204998778130465),
            (1.0, 0.8427007929497149),
            (1.5, 0.9661051464753108),
            (2.0, 0.9953222650189527),
            (2.5, 0.999593047982555),
            (3.0, 0.9999779095030014),
            (4.0, 0.9999999845827421),
            (6.0, 1.0),
        ];
        for (x, want) in cases {
            assert!((erf(x) - want).abs() < 1e-15, "erf({x}) = {}", erf(x));
            assert!((erf(-x) + want).abs() < 1e-15, "erf(-{x})");
        }
        assert_eq!(erf(0.0), 0.0);
        assert!(erf(f64::NAN).is_nan());
        assert_eq!(erf(f64::INFINITY), 1.0);
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
    }

    #[test]
    fn unary_float_ops() {
        let x = f32s(&[4], &[-1.5, 0.0, 2.5, 4.0]);
        let r = |op: &str| same(op, &[&x], &[]).data;
        assert_eq!(r("abs"), vec![1.5, 0.0, 2.5, 4.0]);
        assert_eq!(r("neg"), vec![1.5, 0.0, -2.5, -4.0]);
        assert_eq!(r("relu"), vec![0.0, 0.0, 2.5, 4.0]);
        assert_eq!(r("sign"), vec![-1.0, 0.0, 1.0, 1.0]);
        assert_eq!(r("floor"), vec![-2.0, 0.0, 2.0, 4.0]);
        assert_eq!(r("ceil"), vec![-1.0, 0.0, 3.0, 4.0]);
        assert_eq!(r("square"), vec![2.25, 0.0, 6.25, 16.0]);
        assert_eq!(r("reciprocal")[3], 0.25);
        assert_eq!(r("reciprocal")[1], f64::INFINITY);
        assert_eq!(r("sqrt")[3], 2.0);
        assert!(r("sqrt")[0].is_nan());
        assert_eq!(r("rsqrt")[3], 0.5);
        assert_eq!(r("exp")[1], 1.0);
        assert_eq!(r("exp")[3], f64::from(54.598_15_f32));
        assert_eq!(r("log")[3], f64::from(std::f32::consts::LN_2 * 2.0));
        assert_eq!(r("tanh")[1], 0.0);
        assert_eq!(r("sin")[1], 0.0);
        assert_eq!(r("cos")[1], 1.0);
        assert_eq!(r("erf")[2], as_f32(&[0.999593047982555])[0]);
        // numpy: np.round([0.5, 1.5, 2.5, -0.5, -1.5, 2.4]) = [0, 2, 2, -0, -2, 2]
        let h = f32s(&[6], &[0.5, 1.5, 2.5, -0.5, -1.5, 2.4]);
        assert_eq!(
            same("round", &[&h], &[]).data,
            vec![0.0, 2.0, 2.0, -0.0, -2.0, 2.0]
        );
        let s = f32s(&[3], &[0.0, -800.0, 800.0]);
        assert_eq!(same("sigmoid", &[&s], &[]).data, vec![0.5, 0.0, 1.0]);
        let lr = same("leaky_relu", &[&x], &[("alpha", AttrValue::Float(0.1))]);
        assert_eq!(lr.data, vec![f64::from(-0.15_f32), 0.0, 2.5, 4.0]);
        let n = f32s(&[3], &[f64::NAN, f64::INFINITY, 1.0]);
        let b = |op: &str| run1(op, &[&n], &[], st(DType::Bool, &[3])).unwrap().data;
        assert_eq!(b("isnan"), vec![1.0, 0.0, 0.0]);
        assert_eq!(b("isfinite"), vec![0.0, 0.0, 1.0]);
        assert!(same("relu", &[&n], &[]).data[0].is_nan());
        assert!(same("sign", &[&n], &[]).data[0].is_nan());
    }

    #[test]
    fn unary_integer_ops_wrap() {
        let x = t(DType::I8, &[3], &[-128.0, -5.0, 7.0]);
        assert_eq!(same("neg", &[&x], &[]).data, vec![-128.0, 5.0, -7.0]);
        assert_eq!(same("abs", &[&x], &[]).data, vec![-128.0, 5.0, 7.0]);
        assert_eq!(same("relu", &[&x], &[]).data, vec![0.0, 0.0, 7.0]);
        assert_eq!(same("sign", &[&x], &[]).data, vec![-1.0, -1.0, 1.0]);
        // (-128)^2 = 16384 = 0 mod 256; 25; 49.
        assert_eq!(same("square", &[&x], &[]).data, vec![0.0, 25.0, 49.0]);
        let big = t(DType::I32, &[1], &[65537.0]);
        // 65537^2 = 2^32 + 2^17 + 1 -> 131073 in i32.
        assert_eq!(same("square", &[&big], &[]).data, vec![131073.0]);
        let u = t(DType::U8, &[2], &[5.0, 0.0]);
        assert_eq!(same("bitwise_not", &[&u], &[]).data, vec![250.0, 255.0]);
        let p = t(DType::Bool, &[2], &[1.0, 0.0]);
        assert_eq!(same("logical_not", &[&p], &[]).data, vec![0.0, 1.0]);
        assert_eq!(same("bitwise_not", &[&p], &[]).data, vec![0.0, 1.0]);
    }

    #[test]
    fn binary_ops_broadcast() {
        let a = f32s(&[2, 1], &[1.0, 2.0]);
        let b = f32s(&[3], &[10.0, 20.0, 30.0]);
        let y = run1("ascend.add", &[&a, &b], &[], st(DType::F32, &[2, 3])).unwrap();
        assert_eq!(y.shape, vec![2, 3]);
        assert_eq!(y.data, vec![11.0, 21.0, 31.0, 12.0, 22.0, 32.0]);
        let y = run1("ascend.sub", &[&b, &a], &[], st(DType::F32, &[2, 3])).unwrap();
        assert_eq!(y.data, vec![9.0, 19.0, 29.0, 8.0, 18.0, 28.0]);
        // Rank-0 with rank-2.
        let s = Tensor::scalar(DType::F32, 2.0);
        let y = run1("ascend.mul", &[&s, &a], &[], st(DType::F32, &[2, 1])).unwrap();
        assert_eq!(y.data, vec![2.0, 4.0]);
        // numpy: np.power([2, 4, -8], [3, 0.5, 1/3]) = [8, 2, nan]
        let p = f32s(&[3], &[2.0, 4.0, -8.0]);
        let q = f32s(&[3], &[3.0, 0.5, 1.0 / 3.0]);
        let y = same("ascend.pow", &[&p, &q], &[]);
        assert_eq!(&y.data[..2], &[8.0, 2.0]);
        assert!(y.data[2].is_nan());
        let m = f32s(&[3], &[1.0, f64::NAN, -3.0]);
        let n = f32s(&[3], &[2.0, 0.0, -4.0]);
        let mx = same("ascend.maximum", &[&m, &n], &[]);
        assert_eq!((mx.data[0], mx.data[2]), (2.0, -3.0));
        assert!(mx.data[1].is_nan());
        let mn = same("ascend.minimum", &[&m, &n], &[]);
        assert_eq!((mn.data[0], mn.data[2]), (1.0, -4.0));
        assert!(mn.data[1].is_nan());
        let d = same(
            "ascend.div",
            &[&f32s(&[2], &[1.0, 1.0]), &f32s(&[2], &[3.0, 0.0])],
            &[],
        );
        assert_eq!(d.data, vec![f64::from(1.0_f32 / 3.0), f64::INFINITY]);
    }

    #[test]
    fn integer_division_truncates_and_floor_ops_floor() {
        let a = t(DType::I32, &[5], &[-7.0, 7.0, -7.0, 7.0, 5.0]);
        let b = t(DType::I32, &[5], &[2.0, 2.0, -2.0, -2.0, 0.0]);
        assert_eq!(
            same("ascend.div", &[&a, &b], &[]).data,
            vec![-3.0, 3.0, 3.0, -3.0, 0.0]
        );
        assert_eq!(
            same("ascend.floor_div", &[&a, &b], &[]).data,
            vec![-4.0, 3.0, 3.0, -4.0, 0.0]
        );
        assert_eq!(
            same("ascend.mod", &[&a, &b], &[]).data,
            vec![1.0, 1.0, -1.0, -1.0, 0.0]
        );
        let fa = f32s(&[3], &[-7.0, 7.0, -7.5]);
        let fb = f32s(&[3], &[2.0, -2.0, 2.0]);
        assert_eq!(
            same("ascend.floor_div", &[&fa, &fb], &[]).data,
            vec![-4.0, -4.0, -4.0]
        );
        assert_eq!(
            same("ascend.mod", &[&fa, &fb], &[]).data,
            vec![1.0, -1.0, 0.5]
        );
        // i8 overflow wraps: 100 + 100 = -56, -128 / -1 = -128.
        let x = t(DType::I8, &[2], &[100.0, -128.0]);
        let y = t(DType::I8, &[2], &[100.0, -1.0]);
        assert_eq!(same("ascend.add", &[&x, &y], &[]).data, vec![-56.0, 127.0]);
        assert_eq!(same("ascend.div", &[&x, &y], &[]).data, vec![1.0, -128.0]);
        // i32 products beyond 2^53 still wrap exactly: 123456789 * 987654321 mod 2^32.
        let p = t(DType::I32, &[1], &[123456789.0]);
        let q = t(DType::I32, &[1], &[987654321.0]);
        assert_eq!(same("ascend.mul", &[&p, &q], &[]).data, vec![-67153019.0]);
    }

    #[test]
    fn logical_and_bitwise_ops() {
        let p = t(DType::Bool, &[4], &[0.0, 0.0, 1.0, 1.0]);
        let q = t(DType::Bool, &[4], &[0.0, 1.0, 0.0, 1.0]);
        assert_eq!(
            same("ascend.logical_and", &[&p, &q], &[]).data,
            vec![0.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            same("ascend.logical_or", &[&p, &q], &[]).data,
            vec![0.0, 1.0, 1.0, 1.0]
        );
        assert_eq!(
            same("ascend.logical_xor", &[&p, &q], &[]).data,
            vec![0.0, 1.0, 1.0, 0.0]
        );
        let a = t(DType::I32, &[2], &[12.0, -1.0]);
        let b = t(DType::I32, &[2], &[10.0, 6.0]);
        assert_eq!(
            same("ascend.bitwise_and", &[&a, &b], &[]).data,
            vec![8.0, 6.0]
        );
    }

    #[test]
    fn compares_produce_bool() {
        let a = f32s(&[3], &[1.0, 2.0, f64::NAN]);
        let b = f32s(&[1], &[2.0]);
        let c = |op: &str| run1(op, &[&a, &b], &[], st(DType::Bool, &[3])).unwrap();
        assert_eq!(c("ascend.eq").data, vec![0.0, 1.0, 0.0]);
        assert_eq!(c("ascend.ne").data, vec![1.0, 0.0, 1.0]);
        assert_eq!(c("ascend.lt").data, vec![1.0, 0.0, 0.0]);
        assert_eq!(c("ascend.le").data, vec![1.0, 1.0, 0.0]);
        assert_eq!(c("ascend.gt").data, vec![0.0, 0.0, 0.0]);
        assert_eq!(c("ascend.ge").data, vec![0.0, 1.0, 0.0]);
        assert_eq!(c("ascend.ge").dtype, DType::Bool);
    }

    #[test]
    fn select_broadcasts_all_three() {
        let c = t(DType::Bool, &[2, 1], &[1.0, 0.0]);
        let x = f32s(&[3], &[1.0, 2.0, 3.0]);
        let y = Tensor::scalar(DType::F32, -1.0);
        let r = run1("ascend.select", &[&c, &x, &y], &[], st(DType::F32, &[2, 3])).unwrap();
        assert_eq!(r.data, vec![1.0, 2.0, 3.0, -1.0, -1.0, -1.0]);
    }

    #[test]
    fn casts() {
        let x = f32s(&[5], &[3.7, -3.7, 1e10, f64::NAN, -0.0]);
        let i = run1("ascend.cast", &[&x], &[], st(DType::I32, &[5])).unwrap();
        assert_eq!(i.data, vec![3.0, -3.0, 2147483647.0, 0.0, 0.0]);
        let b = run1("ascend.cast", &[&x], &[], st(DType::Bool, &[5])).unwrap();
        assert_eq!(b.data, vec![1.0, 1.0, 1.0, 1.0, 0.0]);
        let n = t(DType::I32, &[3], &[2049.0, 300.0, -1.0]);
        let h = run1("ascend.cast", &[&n], &[], st(DType::F16, &[3])).unwrap();
        assert_eq!(h.data, vec![2048.0, 300.0, -1.0]);
        let u = run1("ascend.cast", &[&n], &[], st(DType::U8, &[3])).unwrap();
        assert_eq!(u.data, vec![1.0, 44.0, 255.0]);
        // float narrowing: numpy float(np.float16(0.1)) = 0.0999755859375
        let f = f32s(&[1], &[0.1]);
        let h = run1("ascend.cast", &[&f], &[], st(DType::F16, &[1])).unwrap();
        assert_eq!(h.data, vec![0.0999755859375]);
        // Saturated i64 stays at the top instead of wrapping to i64::MIN.
        let i = run1("ascend.cast", &[&x], &[], st(DType::I64, &[5])).unwrap();
        assert_eq!(i.data[2], 1e10);
        let big = f32s(&[1], &[1e30]);
        let i = run1("ascend.cast", &[&big], &[], st(DType::I64, &[1])).unwrap();
        assert!(i.data[0] > 9.2e18);
    }

    #[test]
    fn reductions_over_several_axes() {
        let x = f32s(&[2, 3, 4], &(0..24).map(f64::from).collect::<Vec<_>>());
        let attrs = |axes: &[i64], keep: bool| {
            vec![("axes", ints(axes)), ("keep_dims", AttrValue::Bool(keep))]
        };
        // numpy: np.arange(24).reshape(2,3,4).sum(axis=(0,2)) = [60, 92, 124]
        let s = run1(
            "ascend.reduce_sum",
            &[&x],
            &attrs(&[0, 2], false),
            st(DType::F32, &[3]),
        )
        .unwrap();
        assert_eq!(s.shape, vec![3]);
        assert_eq!(s.data, vec![60.0, 92.0, 124.0]);
        let s = run1(
            "ascend.reduce_sum",
            &[&x],
            &attrs(&[-1, 0], true),
            st(DType::F32, &[1, 3, 1]),
        )
        .unwrap();
        assert_eq!(s.shape, vec![1, 3, 1]);
        assert_eq!(s.data, vec![60.0, 92.0, 124.0]);
        let m = run1(
            "ascend.reduce_max",
            &[&x],
            &attrs(&[1], true),
            st(DType::F32, &[2, 1, 4]),
        )
        .unwrap();
        assert_eq!(m.data, vec![8.0, 9.0, 10.0, 11.0, 20.0, 21.0, 22.0, 23.0]);
        let m = run1(
            "ascend.reduce_min",
            &[&x],
            &attrs(&[0, 1], false),
            st(DType::F32, &[4]),
        )
        .unwrap();
        assert_eq!(m.data, vec![0.0, 1.0, 2.0, 3.0]);
        let all = run1(
            "ascend.reduce_sum",
            &[&x],
            &attrs(&[], false),
            st(DType::F32, &[]),
        )
        .unwrap();
        assert_eq!((all.shape.clone(), all.data.clone()), (vec![], vec![276.0]));
        let mean = run1(
            "ascend.reduce_mean",
            &[&x],
            &attrs(&[2], false),
            st(DType::F32, &[2, 3]),
        )
        .unwrap();
        assert_eq!(mean.data, vec![1.5, 5.5, 9.5, 13.5, 17.5, 21.5]);
        let p = t(DType::I32, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let prod = run1(
            "ascend.reduce_prod",
            &[&p],
            &attrs(&[-1], false),
            st(DType::I32, &[2]),
        )
        .unwrap();
        assert_eq!(prod.data, vec![6.0, 120.0]);
        let b = t(DType::Bool, &[2, 2], &[1.0, 0.0, 1.0, 1.0]);
        let any = run1(
            "ascend.reduce_any",
            &[&b],
            &attrs(&[1], false),
            st(DType::Bool, &[2]),
        )
        .unwrap();
        assert_eq!(any.data, vec![1.0, 1.0]);
        let all = run1(
            "ascend.reduce_all",
            &[&b],
            &attrs(&[1], false),
            st(DType::Bool, &[2]),
        )
        .unwrap();
        assert_eq!(all.data, vec![0.0, 1.0]);
    }

    #[test]
    fn reductions_round_once() {
        // Step-wise f16 accumulation would give 2048 (2048 + 1 rounds back to 2048).
        let x = t(DType::F16, &[3], &[2048.0, 1.0, 1.0]);
        let attrs = [("axes", ints(&[0])), ("keep_dims", AttrValue::Bool(false))];
        let s = run1("ascend.reduce_sum", &[&x], &attrs, st(DType::F16, &[])).unwrap();
        assert_eq!(s.data, vec![2050.0]);
    }

    #[test]
    fn softmax_family() {
        let x = f32s(&[3], &[1.0, 2.0, 3.0]);
        let axis = [("axis", AttrValue::Int(0))];
        // numpy (f32): [0.09003057, 0.24472848, 0.66524094]
        let s = same("ascend.softmax", &[&x], &axis);
        assert_eq!(s.data, as_f32(&[0.09003057, 0.24472848, 0.66524094]));
        // Large inputs: subtracting the max keeps exp() finite.
        let big = f32s(&[3], &[1001.0, 1002.0, 1003.0]);
        assert_eq!(same("ascend.softmax", &[&big], &axis).data, s.data);
        let l = same("ascend.log_softmax", &[&x], &[("axis", AttrValue::Int(-1))]);
        assert_eq!(
            l.data,
            as_f32(&[
                -2.4076059644443806,
                -1.4076059644443804,
                -0.4076059644443804
            ]),
        );
        // Along axis 0 of [[1, 5], [3, 2]].
        let m = f32s(&[2, 2], &[1.0, 5.0, 3.0, 2.0]);
        let s = same("ascend.softmax", &[&m], &axis);
        assert_close(
            &s.data,
            &[
                0.11920292202211755,
                0.9525741268224334,
                0.8807970779778823,
                0.04742587317756679,
            ],
            1e-7,
        );
        // f16: numpy float(np.float16(v)) of the f64 softmax.
        let h = t(DType::F16, &[3], &[1.0, 2.0, 3.0]);
        let s = same("ascend.softmax", &[&h], &axis);
        assert_eq!(
            s.data,
            vec![0.09002685546875, 0.2447509765625, 0.6650390625]
        );
    }

    #[test]
    fn norms() {
        let x = f32s(&[4], &[1.0, 2.0, 3.0, 4.0]);
        let ones = f32s(&[4], &[1.0; 4]);
        let zeros = f32s(&[4], &[0.0; 4]);
        let attrs = [
            ("axis", AttrValue::Int(0)),
            ("epsilon", AttrValue::Float(1e-5)),
        ];
        let y = same("ascend.layer_norm", &[&x, &ones, &zeros], &attrs);
        assert_eq!(
            y.data,
            as_f32(&[-1.3416355, -0.4472118, 0.4472118, 1.3416355])
        );
        // Rank 2, normalizing the last axis, gamma/beta per feature and a broadcast beta.
        let x2 = f32s(&[2, 4], &[1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0]);
        let gamma = f32s(&[4], &[1.0, 2.0, 1.0, 1.0]);
        let beta = f32s(&[4], &[0.0, 0.0, 0.5, 0.0]);
        let attrs2 = [
            ("axis", AttrValue::Int(-1)),
            ("epsilon", AttrValue::Float(1e-5)),
        ];
        let y = same("ascend.layer_norm", &[&x2, &gamma, &beta], &attrs2);
        let row = [
            -1.3416354199689269,
            -0.894423613312618,
            0.947211806656309,
            1.3416354199689269,
        ];
        assert_close(&y.data[..4], &row, 1e-6);
        assert_eq!(y.data[..4], y.data[4..]);
        // numpy: x / np.sqrt((x*x).mean() + 1e-5) * 2
        let two = f32s(&[1], &[2.0]);
        let r = same("ascend.rms_norm", &[&x, &two], &attrs);
        assert_close(
            &r.data,
            &[
                0.7302962564762128,
                1.4605925129524255,
                2.1908887694286383,
                2.921185025904851,
            ],
            1e-6,
        );
        // f16 layer_norm rounds once: numpy float(np.float16(v)) of the f64 result.
        let h = t(DType::F16, &[4], &[1.0, 2.0, 3.0, 4.0]);
        let hg = t(DType::F16, &[4], &[1.0; 4]);
        let hb = t(DType::F16, &[4], &[0.0; 4]);
        let y = same("ascend.layer_norm", &[&h, &hg, &hb], &attrs);
        assert_eq!(
            y.data,
            vec![-1.341796875, -0.447265625, 0.447265625, 1.341796875]
        );
    }

    #[test]
    fn activations() {
        let x = f32s(&[2], &[1.0, -0.5]);
        let none = [("approximate", AttrValue::Str("none".into()))];
        let tanh = [("approximate", AttrValue::Str("tanh".into()))];
        // gelu(1) = 0.8413447460685429, gelu(-0.5) = -0.15426876936299344 (erf form);
        // tanh form: 0.8411919906082768, -0.15428599017485606.
        let g = same("ascend.gelu", &[&x], &none);
        assert_eq!(g.data, as_f32(&[0.8413447460685429, -0.15426876936299344]));
        let g = same("ascend.gelu", &[&x], &tanh);
        assert_eq!(g.data, as_f32(&[0.8411919906082768, -0.15428599017485606]));
        let one = f32s(&[1], &[1.0]);
        // silu(1) = sigmoid(1) = 0.7310585786300049; swish beta=2: sigmoid(2) = 0.8807970779778823
        assert_eq!(
            same("ascend.silu", &[&one], &[]).data,
            as_f32(&[0.7310585786300049])
        );
        let sw = same("ascend.swish", &[&one], &[("beta", AttrValue::Float(2.0))]);
        assert_eq!(sw.data, as_f32(&[0.8807970779778823]));
        // swiglu(gate, up) = silu(gate) * up, with broadcasting.
        let up = f32s(&[2, 1], &[2.0, 0.0]);
        let y = run1("ascend.swiglu", &[&one, &up], &[], st(DType::F32, &[2, 1])).unwrap();
        assert_eq!(y.data, as_f32(&[1.4621171572600098, 0.0]));
        let x = f32s(&[4], &[-3.0, 0.5, 9.0, f64::NAN]);
        let lo = Tensor::scalar(DType::F32, -1.0);
        let hi = f32s(&[4], &[1.0, 1.0, 2.0, 1.0]);
        let c = same("ascend.clip", &[&x, &lo, &hi], &[]);
        assert_eq!(&c.data[..3], &[-1.0, 0.5, 2.0]);
        assert!(c.data[3].is_nan());
    }

    #[test]
    fn matmul_plain_transposed_and_batched() {
        let a = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let b = f32s(&[3, 2], &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0]);
        let y = run1("ascend.matmul", &[&a, &b], &[], st(DType::F32, &[2, 2])).unwrap();
        assert_eq!(y.data, vec![58.0, 64.0, 139.0, 154.0]);
        // The same product from a^T and b^T stored.
        let at = f32s(&[3, 2], &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        let bt = f32s(&[2, 3], &[7.0, 9.0, 11.0, 8.0, 10.0, 12.0]);
        let flags = [
            ("transpose_a", AttrValue::Bool(true)),
            ("transpose_b", AttrValue::Bool(true)),
        ];
        let y = run1(
            "ascend.matmul",
            &[&at, &bt],
            &flags,
            st(DType::F32, &[2, 2]),
        )
        .unwrap();
        assert_eq!(y.data, vec![58.0, 64.0, 139.0, 154.0]);
        // numpy: np.arange(8).reshape(2,1,2,2) @ (np.arange(12).reshape(3,2,2) - 5)
        let a = f32s(&[2, 1, 2, 2], &(0..8).map(f64::from).collect::<Vec<_>>());
        let b = f32s(
            &[3, 2, 2],
            &(0..12).map(|v| f64::from(v - 5)).collect::<Vec<_>>(),
        );
        let y = run1(
            "ascend.matmul",
            &[&a, &b],
            &[],
            st(DType::F32, &[2, 3, 2, 2]),
        )
        .unwrap();
        let want = [
            -3, -2, -19, -14, 1, 2, 1, 6, 5, 6, 21, 26, -35, -26, -51, -38, 1, 10, 1, 14, 37, 46,
            53, 66,
        ];
        assert_eq!(
            y.data,
            want.iter().map(|&v| f64::from(v)).collect::<Vec<_>>()
        );
        // Integer matmul accumulates exactly and wraps.
        let p = t(DType::I8, &[1, 2], &[100.0, 100.0]);
        let q = t(DType::I8, &[2, 1], &[1.0, 1.0]);
        let y = run1("ascend.matmul", &[&p, &q], &[], st(DType::I8, &[1, 1])).unwrap();
        assert_eq!(y.data, vec![-56.0]);
    }

    /// Sizes past the GEMM's register and cache blocks, transposed operands and a
    /// broadcast batch, against a plain triple loop written here.
    #[test]
    fn matmul_blocked_sizes_match_a_plain_loop() {
        let (batch, m, k, n) = (3usize, 37usize, 53usize, 29usize);
        let values = |count: usize, seed: u64| -> Vec<f64> {
            let mut rng = autofuse_ir::tensor::SplitMix64::new(seed);
            (0..count)
                .map(|_| ((rng.next_u64() % 2001) as f64 - 1000.0) / 256.0)
                .collect()
        };
        // lhs stored transposed per batch ([batch, k, m]); rhs stored transposed and
        // shared by every batch ([1, n, k]).
        let lhs_t = f32s(&[batch, k, m], &values(batch * k * m, 1));
        let rhs_t = f32s(&[1, n, k], &values(n * k, 2));
        let flags = [
            ("transpose_a", AttrValue::Bool(true)),
            ("transpose_b", AttrValue::Bool(true)),
        ];
        let y = run1(
            "ascend.matmul",
            &[&lhs_t, &rhs_t],
            &flags,
            st(DType::F32, &[batch as i64, m as i64, n as i64]),
        )
        .unwrap();
        let mut want = Vec::new();
        for b in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    let mut acc = 0.0f64;
                    for p in 0..k {
                        acc += lhs_t.data[b * k * m + p * m + i] * rhs_t.data[j * k + p];
                    }
                    want.push(acc as f32 as f64);
                }
            }
        }
        // Inputs are multiples of 1/256 below 4 in magnitude: every product and sum is
        // exact in f64, so any summation order gives the same f32.
        assert_eq!(y.data, want);
    }

    /// The batch broadcast `--fold-matmul-operands` makes of grouped-query attention's
    /// head repeat: a middle batch dim of 1 (KV heads shared by 3 query heads each),
    /// rhs read transposed, against a plain loop over the repeated heads.
    #[test]
    fn matmul_broadcasts_a_middle_batch_dim_like_a_head_repeat() {
        let (b, kv, rep, m, k, n) = (2usize, 2usize, 3usize, 5usize, 4usize, 6usize);
        let values = |count: usize, seed: u64| -> Vec<f64> {
            let mut rng = autofuse_ir::tensor::SplitMix64::new(seed);
            (0..count)
                .map(|_| ((rng.next_u64() % 2001) as f64 - 1000.0) / 256.0)
                .collect()
        };
        let q = f32s(&[b, kv, rep, m, k], &values(b * kv * rep * m * k, 3));
        // K stored [b, kv, 1, n, k]: one copy per KV head, never repeated.
        let kt = f32s(&[b, kv, 1, n, k], &values(b * kv * n * k, 4));
        let flags = [("transpose_b", AttrValue::Bool(true))];
        let shape = [b, kv, rep, m, n].map(|d| d as i64);
        let y = run1("ascend.matmul", &[&q, &kt], &flags, st(DType::F32, &shape)).unwrap();
        let mut want = Vec::new();
        for (bi, h, r) in
            (0..b).flat_map(|bi| (0..kv).flat_map(move |h| (0..rep).map(move |r| (bi, h, r))))
        {
            for i in 0..m {
                for j in 0..n {
                    let mut acc = 0.0f64;
                    for p in 0..k {
                        let qa = q.data[(((bi * kv + h) * rep + r) * m + i) * k + p];
                        let kb = kt.data[((bi * kv + h) * n + j) * k + p];
                        acc += qa * kb;
                    }
                    want.push(acc as f32 as f64);
                }
            }
        }
        assert_eq!(y.data, want);
    }

    #[test]
    fn gather_with_negative_indices() {
        let data = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let idx = t(DType::I64, &[2, 2], &[-1.0, 0.0, 1.0, -3.0]);
        let y = run1(
            "ascend.gather",
            &[&data, &idx],
            &[("axis", AttrValue::Int(1))],
            st(DType::F32, &[2, 2, 2]),
        )
        .unwrap();
        assert_eq!(y.data, vec![3.0, 1.0, 2.0, 1.0, 6.0, 4.0, 5.0, 4.0]);
        let rows = t(DType::I32, &[3], &[1.0, -2.0, 1.0]);
        let y = run1(
            "ascend.gather",
            &[&data, &rows],
            &[("axis", AttrValue::Int(0))],
            st(DType::F32, &[3, 3]),
        )
        .unwrap();
        assert_eq!(y.data, vec![4.0, 5.0, 6.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    }

    #[test]
    fn slices_with_steps_and_clamping() {
        let x = f32s(&[2, 6], &(0..12).map(f64::from).collect::<Vec<_>>());
        let attrs = |starts: &[i64], ends: &[i64], axes: &[i64], steps: &[i64]| {
            vec![
                ("starts", ints(starts)),
                ("ends", ints(ends)),
                ("axes", ints(axes)),
                ("steps", ints(steps)),
            ]
        };
        // x[:, 1::2] -> [[1, 3, 5], [7, 9, 11]]
        let y = run1(
            "ascend.slice",
            &[&x],
            &attrs(&[1], &[100], &[1], &[2]),
            st(DType::F32, &[2, 3]),
        )
        .unwrap();
        assert_eq!(y.data, vec![1.0, 3.0, 5.0, 7.0, 9.0, 11.0]);
        // x[-1:, -4:-1:2] -> [[8, 10]]
        let y = run1(
            "ascend.slice",
            &[&x],
            &attrs(&[-1, -4], &[2, -1], &[0, 1], &[1, 2]),
            st(DType::F32, &[1, 2]),
        )
        .unwrap();
        assert_eq!(y.data, vec![8.0, 10.0]);
        // x[:, 5:2] is empty.
        let y = run1(
            "ascend.slice",
            &[&x],
            &attrs(&[5], &[2], &[1], &[1]),
            st(DType::F32, &[2, 0]),
        )
        .unwrap();
        assert!(y.data.is_empty());
    }

    #[test]
    fn layout_ops() {
        let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let y = run1(
            "ascend.transpose",
            &[&x],
            &[("perm", ints(&[1, 0]))],
            st(DType::F32, &[3, 2]),
        )
        .unwrap();
        assert_eq!(y.data, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        let z = f32s(&[2, 3, 4], &(0..24).map(f64::from).collect::<Vec<_>>());
        let y = run1(
            "ascend.transpose",
            &[&z],
            &[("perm", ints(&[2, 0, 1]))],
            st(DType::F32, &[4, 2, 3]),
        )
        .unwrap();
        assert_eq!(y.get(&[3, 1, 2]), z.get(&[1, 2, 3]));
        assert_eq!(y.get(&[1, 0, 1]), Some(5.0));
        let r = run1("ascend.reshape", &[&x], &[], st(DType::F32, &[3, 1, 2])).unwrap();
        assert_eq!(
            (r.shape.clone(), r.data.clone()),
            (vec![3, 1, 2], x.data.clone())
        );
        let s = run1(
            "ascend.squeeze",
            &[&r],
            &[("axes", ints(&[1]))],
            st(DType::F32, &[3, 2]),
        )
        .unwrap();
        assert_eq!(s.shape, vec![3, 2]);
        let u = run1(
            "ascend.unsqueeze",
            &[&x],
            &[("axes", ints(&[0, -1]))],
            st(DType::F32, &[1, 2, 3, 1]),
        )
        .unwrap();
        assert_eq!(u.shape, vec![1, 2, 3, 1]);
        let col = f32s(&[2, 1], &[1.0, 2.0]);
        let b = run1(
            "ascend.broadcast_to",
            &[&col],
            &[],
            st(DType::F32, &[2, 2, 3]),
        )
        .unwrap();
        assert_eq!(
            b.data,
            vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0]
        );
        let c = run1(
            "ascend.concat",
            &[&x, &col],
            &[("axis", AttrValue::Int(1))],
            st(DType::F32, &[2, 4]),
        )
        .unwrap();
        assert_eq!(c.data, vec![1.0, 2.0, 3.0, 1.0, 4.0, 5.0, 6.0, 2.0]);
        let c = run1(
            "ascend.concat",
            &[&x, &x],
            &[("axis", AttrValue::Int(0))],
            st(DType::F32, &[4, 3]),
        )
        .unwrap();
        assert_eq!(&c.data[6..], &x.data[..]);
    }

    #[test]
    fn constants() {
        let splat = AttrValue::Dense {
            values: vec![0.1],
            splat: true,
            ty: "tensor<2x2xf16>".into(),
        };
        let mut b = GraphBuilder::new("c");
        let c = b.op(
            "ascend.constant",
            &[],
            &[("value", splat)],
            st(DType::F16, &[2, 2]),
        );
        let full =
            autofuse_ir::attr::parse_attr("dense<[[true, false, true]]> : tensor<1x3xi1>").unwrap();
        let d = b.op(
            "ascend.constant",
            &[],
            &[("value", full)],
            st(DType::Bool, &[1, 3]),
        );
        let out = run(&b.finish(&[c, d]), &[]).unwrap();
        assert_eq!(out[0].data, vec![0.0999755859375; 4]);
        assert_eq!(out[1].data, vec![1.0, 0.0, 1.0]);
    }

    #[test]
    fn symbolic_graph_binds_and_checks() {
        // y = reshape(x + bias, [s0*3]); z = reduce_sum(y)
        let mut b = GraphBuilder::new("sym");
        let x = b.arg(ty("tensor<?x3xf32, #ascend.dims<[\"s0\", \"3\"]>>"));
        let bias = b.arg(ty("tensor<3xf32>"));
        let s = b.op(
            "ascend.add",
            &[x, bias],
            &[],
            ty("tensor<?x3xf32, #ascend.dims<[\"s0\", \"3\"]>>"),
        );
        let y = b.op(
            "ascend.reshape",
            &[s],
            &[],
            ty("tensor<?xf32, #ascend.dims<[\"s0*3\"]>>"),
        );
        let z = b.op(
            "ascend.reduce_sum",
            &[y],
            &[("axes", ints(&[0])), ("keep_dims", AttrValue::Bool(true))],
            st(DType::F32, &[1]),
        );
        let g = b.finish(&[y, z]);
        let bias_t = f32s(&[3], &[1.0, 2.0, 3.0]);
        for rows in [1usize, 2, 5] {
            let xt = Tensor::random(DType::F32, vec![rows, 3], rows as u64).unwrap();
            let inputs = [xt.clone(), bias_t.clone()];
            assert_eq!(bind_symbols(&g, &inputs).unwrap()["s0"], rows as i64);
            let out = run(&g, &inputs).unwrap();
            assert_eq!(out[0].shape, vec![rows * 3]);
            let want: f64 = xt.data.iter().sum::<f64>() + 6.0 * rows as f64;
            assert!((out[1].data[0] - want).abs() < 1e-5);
        }
    }

    #[test]
    fn compound_input_dims_are_checked() {
        let mut b = GraphBuilder::new("pair");
        let x = b.arg(ty("tensor<?xf32, #ascend.dims<[\"s0\"]>>"));
        let y = b.arg(ty("tensor<?xf32, #ascend.dims<[\"s0*2\"]>>"));
        let g = b.finish(&[x, y]);
        let ok = [f32s(&[2], &[0.0; 2]), f32s(&[4], &[0.0; 4])];
        assert!(run(&g, &ok).is_ok());
        let bad = [f32s(&[2], &[0.0; 2]), f32s(&[3], &[0.0; 3])];
        let err = run(&g, &bad).unwrap_err();
        assert!(matches!(err, InterpError::Input { index: 1, .. }), "{err}");
        assert!(
            err.to_string().contains("s0*2") || err.to_string().contains("2*s0"),
            "{err}"
        );
    }

    #[test]
    fn input_errors() {
        let g = op_graph(
            "ascend.add",
            &[&f32s(&[2], &[0.0; 2]), &f32s(&[2], &[0.0; 2])],
            &[],
            st(DType::F32, &[2]),
        );
        let one = f32s(&[2], &[1.0, 2.0]);
        // Wrong input count.
        let err = run(&g, std::slice::from_ref(&one)).unwrap_err();
        assert_eq!(
            err,
            InterpError::InputCount {
                graph: "g".into(),
                expected: 2,
                got: 1
            }
        );
        // Static dim mismatch.
        let err = run(&g, &[one.clone(), f32s(&[3], &[0.0; 3])]).unwrap_err();
        assert!(matches!(err, InterpError::Input { index: 1, .. }), "{err}");
        assert!(err.to_string().contains("dim 0 is 3"), "{err}");
        // Wrong dtype.
        let err = run(&g, &[one.clone(), t(DType::F16, &[2], &[0.0; 2])]).unwrap_err();
        assert!(
            err.to_string()
                .contains("element type is f16, expected f32"),
            "{err}"
        );
        // A symbol bound to two different values.
        let mut b = GraphBuilder::new("s");
        let x = b.arg(ty("tensor<?xf32, #ascend.dims<[\"s0\"]>>"));
        let y = b.arg(ty("tensor<?xf32, #ascend.dims<[\"s0\"]>>"));
        let sum = b.op(
            "ascend.add",
            &[x, y],
            &[],
            ty("tensor<?xf32, #ascend.dims<[\"s0\"]>>"),
        );
        let g = b.finish(&[sum]);
        let err = run(&g, &[f32s(&[2], &[0.0; 2]), f32s(&[3], &[0.0; 3])]).unwrap_err();
        assert!(matches!(err, InterpError::Input { index: 1, .. }), "{err}");
        assert!(err.to_string().contains("symbol 's0' to 3"), "{err}");
    }

    #[test]
    fn op_errors_name_the_op() {
        // Gather index out of range.
        let data = f32s(&[3], &[1.0, 2.0, 3.0]);
        let idx = t(DType::I32, &[1], &[3.0]);
        let err = run1(
            "ascend.gather",
            &[&data, &idx],
            &[("axis", AttrValue::Int(0))],
            st(DType::F32, &[1]),
        )
        .unwrap_err();
        assert!(
            matches!(&err, InterpError::Op { op, op_index: Some(0), .. } if op == "ascend.gather"),
            "{err}"
        );
        assert!(err.to_string().contains("index 3 is out of range"), "{err}");
        let idx = t(DType::I32, &[1], &[-4.0]);
        assert!(run1(
            "ascend.gather",
            &[&data, &idx],
            &[("axis", AttrValue::Int(0))],
            st(DType::F32, &[1])
        )
        .is_err());
        // Declared result shape disagrees with the computed one.
        let err = run1("ascend.exp", &[&data], &[], st(DType::F32, &[4])).unwrap_err();
        assert!(err.to_string().contains("'ascend.exp' (op #0)"), "{err}");
        // Declared result dtype disagrees with the shape rules.
        let err = run1("ascend.add", &[&data, &data], &[], st(DType::F16, &[3])).unwrap_err();
        assert!(
            err.to_string().contains("result element type is f16"),
            "{err}"
        );
        // Operands the shape rules reject.
        let i = t(DType::I32, &[3], &[1.0, 2.0, 3.0]);
        assert!(run1("ascend.add", &[&data, &i], &[], st(DType::F32, &[3])).is_err());
        assert!(run1("ascend.exp", &[&i], &[], st(DType::I32, &[3])).is_err());
        // Wrong operand count at an op.
        let err = run1("ascend.add", &[&data], &[], st(DType::F32, &[3])).unwrap_err();
        assert!(
            err.to_string().contains("expected 2 operands, got 1"),
            "{err}"
        );
        // Incompatible broadcast.
        let two = f32s(&[2], &[0.0; 2]);
        assert!(run1("ascend.add", &[&data, &two], &[], st(DType::F32, &[3])).is_err());
        // Missing attribute.
        let err = run1("ascend.softmax", &[&data], &[], st(DType::F32, &[3])).unwrap_err();
        assert!(
            err.to_string().contains("missing attribute 'axis'"),
            "{err}"
        );
        // Axes on a rank-0 tensor are errors, not out-of-bounds panics.
        let scalar = Tensor::scalar(DType::F32, 1.0);
        let axis0 = [("axis", AttrValue::Int(0))];
        assert!(run1("softmax", &[&scalar], &axis0, scalar.ty()).is_err());
        let reduce0 = [("axes", ints(&[0])), ("keep_dims", AttrValue::Bool(false))];
        assert!(run1("reduce_sum", &[&scalar], &reduce0, scalar.ty()).is_err());
        assert!(run1("squeeze", &[&scalar], &[("axes", ints(&[0]))], scalar.ty()).is_err());
        let idx = t(DType::I32, &[1], &[0.0]);
        assert!(run1("gather", &[&scalar, &idx], &axis0, st(DType::F32, &[1])).is_err());
        let slice0 = [
            ("starts", ints(&[0])),
            ("ends", ints(&[1])),
            ("axes", ints(&[0])),
            ("steps", ints(&[1])),
        ];
        assert!(run1("slice", &[&scalar], &slice0, scalar.ty()).is_err());
        let reduce_all = [("axes", ints(&[])), ("keep_dims", AttrValue::Bool(false))];
        let y = run1("reduce_sum", &[&scalar], &reduce_all, scalar.ty()).unwrap();
        assert_eq!(y.data, vec![1.0]);
        // A declared shape whose element count overflows is rejected before allocating.
        let huge = st(DType::F32, &[1 << 40, 1 << 40]);
        let err = run1("broadcast_to", &[&scalar], &[], huge).unwrap_err();
        assert!(err.to_string().contains("too many elements"), "{err}");
    }

    #[test]
    fn non_ascend_ops_are_unsupported() {
        let x = f32s(&[1], &[1.0]);
        let mut b = GraphBuilder::new("u");
        let a = b.arg(x.ty());
        let e = b.op("ascend.exp", &[a], &[], x.ty());
        let c = b.op("func.call", &[e], &[], x.ty());
        let err = run(&b.finish(&[c]), std::slice::from_ref(&x)).unwrap_err();
        assert_eq!(
            err,
            InterpError::Unsupported {
                op: "func.call".into(),
                op_index: Some(1)
            }
        );
        assert!(err.to_string().contains("'func.call' (op #1)"));
        let err = run1("ascir.exp", &[&x], &[], x.ty()).unwrap_err();
        assert!(matches!(err, InterpError::Unsupported { .. }));
    }

    #[test]
    fn run_node_uses_symbols_for_result_types() {
        let x = f32s(&[2, 3], &[0.0; 6]);
        let mut symbols = HashMap::new();
        symbols.insert("s0".to_string(), 6i64);
        let out_ty = ty("tensor<?xf32, #ascend.dims<[\"s0\"]>>");
        let y = run_node(
            "ascend.reshape",
            &BTreeMap::new(),
            &[&x],
            std::slice::from_ref(&out_ty),
            &symbols,
        )
        .unwrap();
        assert_eq!(y[0].shape, vec![6]);
        symbols.insert("s0".to_string(), 5);
        let err = run_node(
            "ascend.reshape",
            &BTreeMap::new(),
            &[&x],
            &[out_ty],
            &symbols,
        )
        .unwrap_err();
        assert!(
            matches!(err, InterpError::Op { op_index: None, .. }),
            "{err}"
        );
    }

    #[test]
    fn every_ascend_op_has_a_kernel() {
        for spec in crate::ops::ops() {
            let x = f32s(&[1], &[1.0]);
            let err = kernel(
                spec.name,
                &BTreeMap::new(),
                &[&x, &x, &x],
                &st(DType::F32, &[1]),
                &HashMap::new(),
            );
            if let Err(message) = err {
                assert!(
                    !message.starts_with("no kernel"),
                    "{}: {message}",
                    spec.name
                );
            }
        }
    }
}
