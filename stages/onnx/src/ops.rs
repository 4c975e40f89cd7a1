//! One converter per covered ONNX operator, from a node (its inputs already imported)
//! to `ascend` ops. `FAMILIES` lists what is covered; `docs/onnx.md` describes each
//! mapping and the conformance runner reads the list through
//! `autofuse-import-onnx --list-ops`.
//!
//! A converter returns `Fail::Unsupported` for a form it does not handle (the node then
//! becomes a boundary call) and `Fail::Invalid` for a node the ONNX spec forbids
//! (an import error). Opset-dependent operators read `NodeCtx::opset`.

use super::data::{dtype_of, Values};
use super::emit::{Builder, Val, A};
use super::proto::{attribute_type as at, AttributeProto, NodeProto, TensorProto};
use super::{Converted, Fail, Importer};
use autofuse_ascend::shape::SLICE_TO_END;
use autofuse_ir::graph::{DType, Dim};
use autofuse_symbolic::{Expr, Relation, Tri};

/// The covered operators by family (the rows of the conformance table).
pub const FAMILIES: &[(&str, &[&str])] = &[
    (
        "elementwise",
        &[
            "Add",
            "Sub",
            "Mul",
            "Div",
            "Pow",
            "Max",
            "Min",
            "Sum",
            "Mean",
            "Mod",
            "Abs",
            "Neg",
            "Exp",
            "Log",
            "Sqrt",
            "Reciprocal",
            "Relu",
            "LeakyRelu",
            "Sigmoid",
            "Tanh",
            "Erf",
            "Sign",
            "Floor",
            "Ceil",
            "Round",
            "Sin",
            "Cos",
            "Tan",
            "Sinh",
            "Cosh",
            "Asinh",
            "Acosh",
            "Atanh",
            "IsNaN",
            "IsInf",
            "Identity",
            "Dropout",
            "BitwiseAnd",
            "BitwiseOr",
            "BitwiseXor",
            "BitwiseNot",
            "Acos",
            "Asin",
            "Atan",
            "BitShift",
        ],
    ),
    (
        "activation",
        &[
            "Elu",
            "Selu",
            "Celu",
            "HardSigmoid",
            "HardSwish",
            "ThresholdedRelu",
            "Softplus",
            "Softsign",
            "Mish",
            "PRelu",
            "Shrink",
            "Swish",
            "SwiGLU",
        ],
    ),
    (
        "compare",
        &["Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"],
    ),
    ("logical", &["And", "Or", "Xor", "Not"]),
    ("where", &["Where"]),
    ("clip", &["Clip"]),
    ("cast", &["Cast", "CastLike"]),
    (
        "reduction",
        &[
            "ReduceSum",
            "ReduceMean",
            "ReduceMax",
            "ReduceMin",
            "ReduceProd",
            "ReduceL1",
            "ReduceL2",
            "ReduceLogSum",
            "ReduceLogSumExp",
            "ReduceSumSquare",
            "GlobalAveragePool",
            "GlobalMaxPool",
        ],
    ),
    ("softmax", &["Softmax", "LogSoftmax"]),
    ("layer_norm", &["LayerNormalization"]),
    (
        "normalization",
        &[
            "RMSNormalization",
            "MeanVarianceNormalization",
            "InstanceNormalization",
            "BatchNormalization",
            "GroupNormalization",
            "LpNormalization",
            "LRN",
        ],
    ),
    ("gelu", &["Gelu"]),
    ("reshape", &["Reshape", "Squeeze", "Unsqueeze", "Flatten"]),
    ("expand", &["Expand", "Tile"]),
    ("range", &["Range", "Trilu", "EyeLike"]),
    ("transpose", &["Transpose", "DepthToSpace", "SpaceToDepth"]),
    ("concat", &["Concat"]),
    ("split", &["Split"]),
    ("slice", &["Slice"]),
    (
        "gather",
        &["Gather", "GatherElements", "GatherND", "ReverseSequence"],
    ),
    ("scan", &["CumSum", "CumProd"]),
    ("pad", &["Pad", "CenterCropPad"]),
    ("resize", &["Resize"]),
    ("index", &["ArgMax", "ArgMin", "Hardmax", "OneHot"]),
    (
        "loss",
        &["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"],
    ),
    ("matmul", &["MatMul", "Gemm", "Einsum"]),
    ("conv", &["Conv", "ConvTranspose", "MaxPool", "AveragePool"]),
    ("window", &["HannWindow", "HammingWindow", "BlackmanWindow"]),
    ("attention", &["Attention", "RotaryEmbedding"]),
    (
        "quantize",
        &[
            "QuantizeLinear",
            "DequantizeLinear",
            "DynamicQuantizeLinear",
        ],
    ),
    (
        "constant",
        &["Constant", "ConstantOfShape", "Shape", "Size"],
    ),
];

/// The family of a covered operator.
pub fn family_of(op_type: &str) -> Option<&'static str> {
    FAMILIES
        .iter()
        .find(|(_, ops)| ops.contains(&op_type))
        .map(|(f, _)| *f)
}

/// A node being converted, with its imported inputs (`None` for absent optional ones).
pub struct NodeCtx<'a> {
    pub node: &'a NodeProto,
    pub inputs: &'a [Option<Val>],
    pub opset: i64,
}

pub(super) fn invalid<T>(message: impl Into<String>) -> Result<T, Fail> {
    Err(Fail::Invalid(message.into()))
}

pub(super) fn unsupported<T>(message: impl Into<String>) -> Result<T, Fail> {
    Err(Fail::Unsupported(message.into()))
}

/// Input `i` of the node, if given (an empty name is an omitted optional input).
pub(super) fn input<'a>(c: &'a NodeCtx, i: usize) -> Option<&'a Val> {
    c.inputs.get(i).and_then(Option::as_ref)
}

/// Input `i` of the node, which the operator requires.
pub(super) fn req<'a>(c: &'a NodeCtx, i: usize) -> Result<&'a Val, Fail> {
    input(c, i).ok_or_else(|| Fail::Invalid(format!("missing required input #{i}")))
}

/// Whether the model reads output `i` of the node (an empty name omits it).
pub(super) fn wants(c: &NodeCtx, i: usize) -> bool {
    c.node.output.get(i).is_some_and(|n| !n.is_empty())
}

impl NodeCtx<'_> {
    fn input(&self, i: usize) -> Option<&Val> {
        self.inputs.get(i).and_then(Option::as_ref)
    }

    fn req(&self, i: usize) -> Result<&Val, Fail> {
        self.input(i)
            .ok_or_else(|| Fail::Invalid(format!("missing required input #{i}")))
    }

    fn attr(&self, name: &str) -> Option<&AttributeProto> {
        self.node.attribute.iter().find(|a| a.name == name)
    }

    /// Checks the declared attribute type (writers that leave it UNDEFINED pass).
    fn typed(&self, name: &str, want: &[i32], what: &str) -> Result<Option<&AttributeProto>, Fail> {
        match self.attr(name) {
            None => Ok(None),
            Some(a) if a.r#type == at::UNDEFINED || want.contains(&a.r#type) => Ok(Some(a)),
            Some(_) => invalid(format!("attribute '{name}' must be {what}")),
        }
    }

    fn int(&self, name: &str, default: i64) -> Result<i64, Fail> {
        Ok(self
            .typed(name, &[at::INT], "an INT")?
            .map_or(default, |a| a.i))
    }

    fn float(&self, name: &str, default: f64) -> Result<f64, Fail> {
        Ok(match self.typed(name, &[at::FLOAT, at::INT], "a FLOAT")? {
            None => default,
            Some(a) if a.r#type == at::INT => a.i as f64,
            Some(a) => a.f as f64,
        })
    }

    fn ints(&self, name: &str) -> Result<Option<Vec<i64>>, Fail> {
        Ok(self
            .typed(name, &[at::INTS], "INTS")?
            .map(|a| a.ints.clone()))
    }

    fn string(&self, name: &str) -> Result<Option<String>, Fail> {
        Ok(self
            .typed(name, &[at::STRING], "a STRING")?
            .map(|a| String::from_utf8_lossy(&a.s).into_owned()))
    }

    fn tensor(&self, name: &str) -> Result<Option<&TensorProto>, Fail> {
        match self.typed(name, &[at::TENSOR], "a TENSOR")? {
            None => Ok(None),
            Some(a) => {
                a.t.as_ref()
                    .map(Some)
                    .ok_or_else(|| Fail::Invalid(format!("attribute '{name}' has no tensor")))
            }
        }
    }

    /// Whether output `i` is used (present with a name).
    fn wants(&self, i: usize) -> bool {
        self.node.output.get(i).is_some_and(|n| !n.is_empty())
    }

    /// The values of input `i` as integers: `None` when the input is absent, an
    /// unsupported form when it is not known at import time.
    fn known_ints(&self, i: usize, what: &str) -> Result<Option<Vec<i64>>, Fail> {
        match self.input(i) {
            None => Ok(None),
            Some(v) => match &v.known {
                Some(values) => Ok(Some(values.as_i64())),
                None => unsupported(format!("{what} (input #{i}) is not a constant")),
            },
        }
    }
}

impl NodeCtx<'_> {
    /// The elements of input `i` as shape expressions (constants or shape values):
    /// `None` when the input is absent, an unsupported form when it is computed from
    /// data rather than from shapes.
    fn shape_exprs(&self, i: usize, what: &str) -> Result<Option<Vec<Expr>>, Fail> {
        match self.input(i) {
            None => Ok(None),
            Some(v) => match v.exprs() {
                Some(e) => Ok(Some(e)),
                None => unsupported(format!(
                    "{what} (input #{i}) is computed from data, not from shapes"
                )),
            },
        }
    }

    /// A scalar (or one-element) shape-expression input.
    fn shape_scalar(&self, i: usize, what: &str) -> Result<Expr, Fail> {
        match self.shape_exprs(i, what)? {
            Some(v) if v.len() == 1 => Ok(v[0].clone()),
            Some(v) => invalid(format!("{what} must hold one element, not {}", v.len())),
            None => invalid(format!("missing {what}")),
        }
    }
}

// ---------------------------------------------------------------------------------
// Emission helpers
// ---------------------------------------------------------------------------------

fn un(b: &mut Builder, name: &str, x: &Val) -> Result<Val, Fail> {
    Ok(b.op(name, &[x], &[], x.dtype(), None)?)
}

fn bin(b: &mut Builder, name: &str, x: &Val, y: &Val) -> Result<Val, Fail> {
    Ok(b.op(name, &[x, y], &[], x.dtype(), None)?)
}

fn cmp(b: &mut Builder, name: &str, x: &Val, y: &Val) -> Result<Val, Fail> {
    Ok(b.op(name, &[x, y], &[], DType::Bool, None)?)
}

fn select(b: &mut Builder, c: &Val, t: &Val, f: &Val) -> Result<Val, Fail> {
    Ok(b.op("select", &[c, t, f], &[], t.dtype(), None)?)
}

/// A rank-0 constant of `x`'s dtype.
pub(super) fn like(b: &mut Builder, x: &Val, value: f64) -> Val {
    b.scalar(x.dtype(), value)
}

fn cast(b: &mut Builder, x: &Val, dtype: DType) -> Result<Val, Fail> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    Ok(b.op("cast", &[x], &[], dtype, None)?)
}

pub(super) fn reshape(b: &mut Builder, x: &Val, dims: Vec<Dim>) -> Result<Val, Fail> {
    if dims == x.ty.dims {
        return Ok(x.clone());
    }
    Ok(b.op("reshape", &[x], &[], x.dtype(), Some(dims))?)
}

fn unsqueeze(b: &mut Builder, x: &Val, axes: &[i64]) -> Result<Val, Fail> {
    Ok(b.op(
        "unsqueeze",
        &[x],
        &[("axes", A::Ints(axes.to_vec()))],
        x.dtype(),
        None,
    )?)
}

fn squeeze(b: &mut Builder, x: &Val, axes: &[i64]) -> Result<Val, Fail> {
    Ok(b.op(
        "squeeze",
        &[x],
        &[("axes", A::Ints(axes.to_vec()))],
        x.dtype(),
        None,
    )?)
}

fn reduce(b: &mut Builder, name: &str, x: &Val, axes: &[i64], keep: bool) -> Result<Val, Fail> {
    Ok(b.op(
        name,
        &[x],
        &[("axes", A::Ints(axes.to_vec())), ("keep_dims", A::B(keep))],
        x.dtype(),
        None,
    )?)
}

pub(super) fn broadcast_to(b: &mut Builder, x: &Val, dims: Vec<Dim>) -> Result<Val, Fail> {
    if dims == x.ty.dims {
        return Ok(x.clone());
    }
    Ok(b.op("broadcast_to", &[x], &[], x.dtype(), Some(dims))?)
}

/// Constants of more elements than this are written as one element broadcast to their
/// shape rather than as a dense literal of every element.
const SPLAT_LIMIT: usize = 1 << 16;

/// A constant of `dims` whose every element is the one element of `value`: a dense
/// literal when small, else a scalar broadcast to `dims` (so a model's
/// `ConstantOfShape([2^40])` costs nothing at import; a run checks it fits memory).
fn splat(b: &mut Builder, dtype: DType, dims: &[usize], value: Values) -> Result<Val, Fail> {
    if value.len() != 1 {
        return invalid(format!(
            "a splat constant needs one element, not {}",
            value.len()
        ));
    }
    match autofuse_ir::tensor::shape_elements(dims) {
        Some(count) if count <= SPLAT_LIMIT => {
            let values = match value {
                Values::F(v) => Values::F(v.repeat(count)),
                Values::I(v) => Values::I(v.repeat(count)),
            };
            Ok(b.constant(dtype, dims, values))
        }
        _ => {
            let scalar = b.constant(dtype, &[], value);
            let dims = dims
                .iter()
                .map(|&d| i64::try_from(d).map(Dim::constant))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| Fail::Invalid(format!("dims {dims:?} are too large")))?;
            broadcast_to(b, &scalar, dims)
        }
    }
}

/// The product of dims (symbolic).
pub(super) fn product(dims: &[Dim]) -> Result<Dim, Fail> {
    let mut acc = Expr::constant(1);
    for d in dims {
        match d.expr() {
            Some(e) => acc = acc * e.clone(),
            None => return unsupported("a dim has no symbol"),
        }
    }
    Ok(Dim::Known(acc))
}

/// `axis` in `[-rank, rank)` (or `[-rank, rank]` with `inclusive`) as an index.
fn axis_index(axis: i64, rank: usize, inclusive: bool) -> Result<usize, Fail> {
    let r = rank as i64;
    let hi = if inclusive { r } else { r - 1 };
    if axis < -r || axis > hi {
        return invalid(format!("axis {axis} is out of range for rank {rank}"));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

/// Numpy broadcasting of two shapes under the graph's shape env: symbolic dims that are
/// equal only for some values (`min(seq, 64)` against `seq`) broadcast under a recorded
/// assertion of their equality, as `--infer-symbolic-shapes` records it.
fn broadcast_dims(b: &mut Builder, x: &[Dim], y: &[Dim]) -> Result<Vec<Dim>, Fail> {
    autofuse_ascend::shape::broadcast_shapes(&[x, y], b.env_mut())
        .map_err(|e| Fail::Unsupported(e.0))
}

/// Composites that stand for one ONNX operator compute half-precision inputs in f32 and
/// round once at the end, as the operator's definition (and its reference) does;
/// rounding after every primitive would differ from it by an ulp or more.
pub(super) fn widen(b: &mut Builder, x: &Val) -> Result<(Val, Option<DType>), Fail> {
    match x.dtype() {
        DType::F16 | DType::BF16 => Ok((cast(b, x, DType::F32)?, Some(x.dtype()))),
        _ => Ok((x.clone(), None)),
    }
}

/// Rounds a widened result back to the operator's type.
pub(super) fn narrow(b: &mut Builder, y: Val, back: Option<DType>) -> Result<Val, Fail> {
    match back {
        Some(dtype) => cast(b, &y, dtype),
        None => Ok(y),
    }
}

pub(super) fn one(v: Val) -> Converted {
    Ok(vec![Some(v)])
}

// ---------------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------------

/// Converts one default-domain node with the converter of its operator.
pub fn convert(im: &mut Importer, c: &NodeCtx) -> Converted {
    let op = c.node.op_type.as_str();
    let b = &mut im.b;
    match op {
        "Add" | "Sub" | "Mul" | "Div" | "BitwiseAnd" => arithmetic(b, c, op),
        "Max" | "Min" | "Sum" | "Mean" => variadic(b, c, op),
        "Pow" => pow(b, c),
        "Mod" => modulo(b, c),
        "BitwiseOr" | "BitwiseXor" => bitwise_or_xor(b, c, op),
        "Abs" | "Neg" | "Exp" | "Log" | "Sqrt" | "Reciprocal" | "Relu" | "Sigmoid" | "Tanh"
        | "Erf" | "Sign" | "Floor" | "Ceil" | "Round" | "Sin" | "Cos" | "Not" | "IsNaN"
        | "BitwiseNot" => unary(b, c, op),
        "Tan" => tan(b, c),
        "Sinh" | "Cosh" | "Asinh" | "Acosh" | "Atanh" => hyperbolic(b, c, op),
        "IsInf" => is_inf(b, c),
        "Identity" => one(c.req(0)?.clone()),
        "Dropout" => dropout(b, c),
        "LeakyRelu" => leaky_relu(b, c),
        "Elu" | "Selu" | "Celu" | "HardSigmoid" | "HardSwish" | "ThresholdedRelu" | "Softplus"
        | "Softsign" | "Mish" | "PRelu" | "Shrink" | "Swish" => activation(b, c, op),
        "Equal" | "Less" | "LessOrEqual" | "Greater" | "GreaterOrEqual" => comparison(b, c, op),
        "And" | "Or" | "Xor" => logical(b, c, op),
        "Where" => one(select(b, c.req(0)?, c.req(1)?, c.req(2)?)?),
        "Clip" => clip(b, c),
        "Cast" => cast_node(b, c),
        "CastLike" => cast_like(b, c),
        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1"
        | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" => {
            reduction(b, c, op)
        }
        "Softmax" | "LogSoftmax" => softmax(b, c, op == "LogSoftmax"),
        "LayerNormalization" => layer_norm(b, c),
        "RMSNormalization" => rms_norm(b, c),
        "MeanVarianceNormalization" => mvn(b, c),
        "InstanceNormalization" | "BatchNormalization" => channel_norm(b, c, op),
        "GroupNormalization" => group_norm(b, c),
        "LpNormalization" => lp_norm(b, c),
        "EyeLike" => eye_like(b, c),
        "DepthToSpace" | "SpaceToDepth" => depth_space(b, c, op == "DepthToSpace"),
        "GlobalAveragePool" | "GlobalMaxPool" => global_pool(b, c, op),
        "Gelu" => gelu(b, c),
        "Reshape" => reshape_node(b, c),
        "Squeeze" => squeeze_node(b, c),
        "Unsqueeze" => unsqueeze_node(b, c),
        "Flatten" => flatten(b, c),
        "Expand" => expand(b, c),
        "Transpose" => transpose(b, c),
        "Concat" => concat(b, c),
        "Split" => split(b, c),
        "Slice" => slice(b, c),
        "Gather" => gather(b, c),
        "MatMul" => one(matmul(b, c.req(0)?, c.req(1)?, false, false)?),
        "Gemm" => gemm(b, c),
        "Constant" => constant(im, c),
        "ConstantOfShape" => constant_of_shape(im, c),
        "Shape" => shape_node(b, c),
        "Size" => size_node(b, c),
        "Range" => range_node(b, c),
        "Pad" => pad(b, c),
        "CumSum" => cumsum(b, c),
        "GatherElements" => gather_elements(b, c),
        "GatherND" => gather_nd(b, c),
        "Tile" => tile(b, c),
        "Trilu" => trilu(b, c),
        "ArgMax" | "ArgMin" => super::ops_index::arg_extreme(b, c, op == "ArgMax"),
        "Hardmax" => super::ops_index::hardmax(b, c),
        "OneHot" => super::ops_index::one_hot(b, c),
        "Resize" => super::ops_resize::resize(b, c),
        "NegativeLogLikelihoodLoss" => super::ops_index::nll_loss(b, c),
        "SoftmaxCrossEntropyLoss" => super::ops_index::softmax_cross_entropy(b, c),
        "Attention" => super::ops_attention::attention(b, c),
        "RotaryEmbedding" => super::ops_attention::rotary_embedding(b, c),
        "QuantizeLinear" => super::ops_attention::quantize_linear(b, c),
        "DequantizeLinear" => super::ops_attention::dequantize_linear(b, c),
        "DynamicQuantizeLinear" => super::ops_attention::dynamic_quantize_linear(b, c),
        "SwiGLU" => super::ops_attention::swiglu(b, c),
        "Acos" | "Asin" | "Atan" => super::ops_attention::inverse_trig(b, c, op),
        "CumProd" => super::ops_attention::cumprod(b, c),
        "BitShift" => super::ops_attention::bitshift(b, c),
        "HannWindow" | "HammingWindow" | "BlackmanWindow" => super::ops_misc::window(b, c, op),
        "CenterCropPad" => super::ops_misc::center_crop_pad(b, c),
        "ReverseSequence" => super::ops_misc::reverse_sequence(b, c),
        "Einsum" => super::ops_misc::einsum(b, c),
        "LRN" => super::ops_misc::lrn(b, c),
        "Conv" => super::ops_conv::conv(b, c),
        "ConvTranspose" => super::ops_conv::conv_transpose(b, c),
        "MaxPool" | "AveragePool" => super::ops_conv::pool(b, c, op),
        _ => unsupported(super::NOT_COVERED),
    }
}

// ---------------------------------------------------------------------------------
// Elementwise
// ---------------------------------------------------------------------------------

/// Max/Min/Sum/Mean of any number of inputs, as chains of binary ops.
fn variadic(b: &mut Builder, c: &NodeCtx, op: &str) -> Converted {
    let parts: Vec<&Val> = c.inputs.iter().flatten().collect();
    let (first, rest) = parts
        .split_first()
        .ok_or_else(|| Fail::Invalid(format!("{op} needs at least one input")))?;
    let name = match op {
        "Max" => "maximum",
        "Min" => "minimum",
        _ => "add",
    };
    if rest.is_empty() {
        return one((*first).clone());
    }
    // Sums of half-precision values accumulate in f32 (maximum/minimum are exact).
    let (mut acc, back) = if name == "add" {
        widen(b, first)?
    } else {
        ((*first).clone(), None)
    };
    for part in rest {
        let part = cast(b, part, acc.dtype())?;
        acc = bin(b, name, &acc, &part)?;
    }
    if op == "Mean" {
        let n = like(b, &acc, parts.len() as f64);
        acc = bin(b, "div", &acc, &n)?;
    }
    one(narrow(b, acc, back)?)
}

/// Pow: the exponent takes the base's type; integer bases compute in f32.
fn pow(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, y) = (c.req(0)?, c.req(1)?);
    if x.dtype().is_float() {
        let y = cast(b, y, x.dtype())?;
        return one(bin(b, "pow", x, &y)?);
    }
    let xf = cast(b, x, DType::F32)?;
    let yf = cast(b, y, DType::F32)?;
    let p = bin(b, "pow", &xf, &yf)?;
    one(cast(b, &p, x.dtype())?)
}

/// Mod: `fmod = 0` takes the divisor's sign (`ascend.mod`); `fmod = 1` the dividend's
/// (C `fmod`): `a - trunc(a / b) * b`.
fn modulo(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, y) = (c.req(0)?, c.req(1)?);
    if c.int("fmod", 0)? == 0 {
        return one(bin(b, "mod", x, y)?);
    }
    let (xw, back) = widen(b, x)?;
    let yw = cast(b, y, xw.dtype())?;
    let (x, y) = (&xw, &yw);
    let q = bin(b, "div", x, y)?;
    let t = if x.dtype().is_float() {
        // trunc(q) = sign(q) * floor(|q|)
        let a = un(b, "abs", &q)?;
        let f = un(b, "floor", &a)?;
        let s = un(b, "sign", &q)?;
        bin(b, "mul", &s, &f)?
    } else {
        // Integer division already truncates.
        q
    };
    let m = bin(b, "mul", &t, y)?;
    let r = bin(b, "sub", x, &m)?;
    one(narrow(b, r, back)?)
}

/// Add/Sub/Mul/Div and BitwiseAnd: one binary `ascend` op each.
fn arithmetic(b: &mut Builder, c: &NodeCtx, op: &str) -> Converted {
    let name = match op {
        "Add" => "add",
        "Sub" => "sub",
        "Mul" => "mul",
        "Div" => "div",
        _ => "bitwise_and",
    };
    one(bin(b, name, c.req(0)?, c.req(1)?)?)
}

/// BitwiseOr/BitwiseXor from `bitwise_and` and `bitwise_not`, the bitwise ops `ascend`
/// has.
fn bitwise_or_xor(b: &mut Builder, c: &NodeCtx, op: &str) -> Converted {
    let (x, y) = (c.req(0)?, c.req(1)?);
    // a | b = ~(~a & ~b); a ^ b = (a | b) & ~(a & b).
    let (nx, ny) = (un(b, "bitwise_not", x)?, un(b, "bitwise_not", y)?);
    let both_not = bin(b, "bitwise_and", &nx, &ny)?;
    let or = un(b, "bitwise_not", &both_not)?;
    if op == "BitwiseOr" {
        return one(or);
    }
    let and = bin(b, "bitwise_and", x, y)?;
    let nand = un(b, "bitwise_not", &and)?;
    one(bin(b, "bitwise_and", &or, &nand)?)
}

/// Unary ops with a lower-cased namesake in `ascend`, plus Not, IsNaN and BitwiseNot whose
/// `ascend` names differ.
fn unary(b: &mut Builder, c: &NodeCtx, op: &str) -> Converted {
    let name = match op {
        "Not" => "logical_not",
        "IsNaN" => "isnan",
        "BitwiseNot" => "bitwise_not",
        other => return one(un(b, &other.to_ascii_lowercase(), c.req(0)?)?),
    };
    let x = c.req(0)?;
    one(b.op(
        name,
        &[x],
        &[],
        if op == "IsNaN" {
            DType::Bool
        } else {
            x.dtype()
        },
        None,
    )?)
}

/// Tan as sin / cos.
fn tan(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, back) = widen(b, c.req(0)?)?;
    let (s, k) = (un(b, "sin", &x)?, un(b, "cos", &x)?);
    let t = bin(b, "div", &s, &k)?;
    one(narrow(b, t, back)?)
}

/// Sinh/Cosh/Asinh/Acosh/Atanh from exp, log and sqrt.
fn hyperbolic(b: &mut Builder, c: &NodeCtx, op: &str) -> Converted {
    let (x, back) = widen(b, c.req(0)?)?;
    let (one_, half) = (like(b, &x, 1.0), like(b, &x, 0.5));
    let y = match op {
        "Sinh" | "Cosh" => {
            // (exp(x) -/+ exp(-x)) / 2
            let e = un(b, "exp", &x)?;
            let nx = un(b, "neg", &x)?;
            let en = un(b, "exp", &nx)?;
            let d = bin(b, if op == "Sinh" { "sub" } else { "add" }, &e, &en)?;
            bin(b, "mul", &d, &half)?
        }
        "Asinh" | "Acosh" => {
            // log(x + sqrt(x*x +/- 1))
            let sq = bin(b, "mul", &x, &x)?;
            let r = bin(b, if op == "Asinh" { "add" } else { "sub" }, &sq, &one_)?;
            let root = un(b, "sqrt", &r)?;
            let s = bin(b, "add", &x, &root)?;
            un(b, "log", &s)?
        }
        _ => {
            // log((1 + x) / (1 - x)) / 2
            let p = bin(b, "add", &one_, &x)?;
            let m = bin(b, "sub", &one_, &x)?;
            let q = bin(b, "div", &p, &m)?;
            let l = un(b, "log", &q)?;
            bin(b, "mul", &l, &half)?
        }
    };
    one(narrow(b, y, back)?)
}

/// IsInf: neither finite nor NaN, restricted to the signs `detect_negative` and
/// `detect_positive` ask for.
fn is_inf(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let (neg, pos) = (c.int("detect_negative", 1)?, c.int("detect_positive", 1)?);
    let finite = b.op("isfinite", &[x], &[], DType::Bool, None)?;
    let nan = b.op("isnan", &[x], &[], DType::Bool, None)?;
    let either = bin(b, "logical_or", &finite, &nan)?;
    let inf = un(b, "logical_not", &either)?;
    let zero = like(b, x, 0.0);
    let out = match (neg != 0, pos != 0) {
        (true, true) => inf,
        (false, false) => {
            let f = b.scalar(DType::Bool, 0.0);
            bin(b, "logical_and", &inf, &f)?
        }
        (true, false) => {
            let s = cmp(b, "lt", x, &zero)?;
            bin(b, "logical_and", &inf, &s)?
        }
        (false, true) => {
            let s = cmp(b, "gt", x, &zero)?;
            bin(b, "logical_and", &inf, &s)?
        }
    };
    one(out)
}

/// Equal/Less/LessOrEqual/Greater/GreaterOrEqual: one comparison op each.
fn comparison(b: &mut Builder, c: &NodeCtx, op: &str) -> Converted {
    let name = match op {
        "Equal" => "eq",
        "Less" => "lt",
        "LessOrEqual" => "le",
        "Greater" => "gt",
        _ => "ge",
    };
    one(cmp(b, name, c.req(0)?, c.req(1)?)?)
}

/// And/Or/Xor: `ascend.logical_*`.
fn logical(b: &mut Builder, c: &NodeCtx, op: &str) -> Converted {
    let name = format!("logical_{}", op.to_ascii_lowercase());
    one(bin(b, &name, c.req(0)?, c.req(1)?)?)
}

/// Cast to the ONNX element type `to`.
fn cast_node(b: &mut Builder, c: &NodeCtx) -> Converted {
    let to = c
        .typed("to", &[at::INT], "an INT")?
        .ok_or_else(|| Fail::Invalid("missing attribute 'to'".into()))?
        .i;
    let dtype = dtype_of(to as i32).map_err(Fail::Unsupported)?;
    one(cast(b, c.req(0)?, dtype)?)
}

/// CastLike: a cast to the element type of the second input.
fn cast_like(b: &mut Builder, c: &NodeCtx) -> Converted {
    let target = c.req(1)?.dtype();
    one(cast(b, c.req(0)?, target)?)
}

/// Activations without an `ascend` op, composed from primitives.
fn activation(b: &mut Builder, c: &NodeCtx, op: &str) -> Converted {
    let (wide, back) = widen(b, c.req(0)?)?;
    let x = &wide;
    let zero = like(b, x, 0.0);
    let onev = like(b, x, 1.0);
    // alpha * (exp(x) - 1)
    let expm1_scaled = |b: &mut Builder, x: &Val, alpha: f64| -> Result<Val, Fail> {
        let e = un(b, "exp", x)?;
        let one = like(b, x, 1.0);
        let d = bin(b, "sub", &e, &one)?;
        let a = like(b, x, alpha);
        bin(b, "mul", &a, &d)
    };
    let softplus = |b: &mut Builder, x: &Val| -> Result<Val, Fail> {
        let e = un(b, "exp", x)?;
        let one = like(b, x, 1.0);
        let s = bin(b, "add", &e, &one)?;
        un(b, "log", &s)
    };
    let out = match op {
        "Elu" => {
            let alpha = c.float("alpha", 1.0)?;
            let pos = cmp(b, "gt", x, &zero)?;
            let neg = expm1_scaled(b, x, alpha)?;
            select(b, &pos, x, &neg)?
        }
        "Selu" => {
            let alpha = c.float("alpha", 1.673_263_192_176_818_8)?;
            let gamma = c.float("gamma", 1.050_701_022_148_132_3)?;
            let pos = cmp(b, "gt", x, &zero)?;
            let neg = expm1_scaled(b, x, alpha)?;
            let s = select(b, &pos, x, &neg)?;
            let g = like(b, x, gamma);
            bin(b, "mul", &g, &s)?
        }
        "Celu" => {
            // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
            let alpha = c.float("alpha", 1.0)?;
            let a = like(b, x, alpha);
            let scaled = bin(b, "div", x, &a)?;
            let neg = expm1_scaled(b, &scaled, alpha)?;
            let lo = bin(b, "minimum", &zero, &neg)?;
            let hi = bin(b, "maximum", &zero, x)?;
            bin(b, "add", &hi, &lo)?
        }
        "HardSigmoid" | "HardSwish" => {
            let (alpha, beta) = if op == "HardSigmoid" {
                (c.float("alpha", 0.2)?, c.float("beta", 0.5)?)
            } else {
                (1.0 / 6.0, 0.5)
            };
            let a = like(b, x, alpha);
            let bb = like(b, x, beta);
            let ax = bin(b, "mul", &a, x)?;
            let lin = bin(b, "add", &ax, &bb)?;
            let lo = bin(b, "minimum", &onev, &lin)?;
            let hs = bin(b, "maximum", &zero, &lo)?;
            if op == "HardSigmoid" {
                hs
            } else {
                bin(b, "mul", x, &hs)?
            }
        }
        "ThresholdedRelu" => {
            let alpha = c.float("alpha", 1.0)?;
            let a = like(b, x, alpha);
            let above = cmp(b, "gt", x, &a)?;
            select(b, &above, x, &zero)?
        }
        "Softplus" => softplus(b, x)?,
        "Softsign" => {
            let a = un(b, "abs", x)?;
            let d = bin(b, "add", &onev, &a)?;
            bin(b, "div", x, &d)?
        }
        "Mish" => {
            let sp = softplus(b, x)?;
            let t = un(b, "tanh", &sp)?;
            bin(b, "mul", x, &t)?
        }
        "PRelu" => {
            let slope = &cast(b, c.req(1)?, x.dtype())?;
            let neg = cmp(b, "lt", x, &zero)?;
            let scaled = bin(b, "mul", slope, x)?;
            // The select broadcasts x to the slope's shape where needed.
            select(b, &neg, &scaled, x)?
        }
        "Shrink" => {
            let bias = c.float("bias", 0.0)?;
            let lambd = c.float("lambd", 0.5)?;
            let (l, nl, bv) = (like(b, x, lambd), like(b, x, -lambd), like(b, x, bias));
            let below = cmp(b, "lt", x, &nl)?;
            let above = cmp(b, "gt", x, &l)?;
            let plus = bin(b, "add", x, &bv)?;
            let minus = bin(b, "sub", x, &bv)?;
            let upper = select(b, &above, &minus, &zero)?;
            select(b, &below, &plus, &upper)?
        }
        "Swish" => {
            let alpha = c.float("alpha", 1.0)?;
            b.op("swish", &[x], &[("beta", A::F(alpha))], x.dtype(), None)?
        }
        _ => return unsupported(super::NOT_COVERED),
    };
    one(narrow(b, out, back)?)
}

/// LeakyRelu: `ascend.leaky_relu` with the node's `alpha`.
fn leaky_relu(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let alpha = c.float("alpha", 0.01)?;
    one(b.op(
        "leaky_relu",
        &[x],
        &[("alpha", A::F(alpha))],
        x.dtype(),
        None,
    )?)
}

/// Clip: bounds are inputs from opset 11 (absent = unbounded), attributes before.
fn clip(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let (lo, hi) = if c.opset >= 11 {
        (c.input(1).cloned(), c.input(2).cloned())
    } else {
        let lo = c.attr("min").map(|_| c.float("min", 0.0)).transpose()?;
        let hi = c.attr("max").map(|_| c.float("max", 0.0)).transpose()?;
        (lo.map(|v| like(b, x, v)), hi.map(|v| like(b, x, v)))
    };
    let out = match (lo, hi) {
        (Some(lo), Some(hi)) if x.dtype().is_float() => {
            b.op("clip", &[x, &lo, &hi], &[], x.dtype(), None)?
        }
        (Some(lo), Some(hi)) => {
            let m = bin(b, "maximum", x, &lo)?;
            bin(b, "minimum", &m, &hi)?
        }
        (Some(lo), None) => bin(b, "maximum", x, &lo)?,
        (None, Some(hi)) => bin(b, "minimum", x, &hi)?,
        (None, None) => x.clone(),
    };
    one(out)
}

// ---------------------------------------------------------------------------------
// Reductions and normalizations
// ---------------------------------------------------------------------------------

/// Reduce*: axes from an input (ReduceSum from opset 13, the others from 18) or an
/// attribute; `noop_with_empty_axes` makes empty axes the identity.
fn reduction(b: &mut Builder, c: &NodeCtx, op: &str) -> Converted {
    let x = c.req(0)?;
    let axes_as_input = if op == "ReduceSum" {
        c.opset >= 13
    } else {
        c.opset >= 18
    };
    let axes = if axes_as_input {
        c.known_ints(1, "axes")?
    } else {
        c.ints("axes")?
    }
    .unwrap_or_default();
    let keep = c.int("keepdims", 1)? != 0;
    if axes.is_empty() && c.int("noop_with_empty_axes", 0)? != 0 {
        return one(x.clone());
    }
    let rank = x.rank();
    let reduced: Vec<usize> = if axes.is_empty() {
        (0..rank).collect()
    } else {
        axes.iter()
            .map(|&a| axis_index(a, rank, false))
            .collect::<Result<_, _>>()?
    };
    if reduced.iter().any(|&a| x.ty.dims[a].as_const() == Some(0)) {
        return empty_reduction(b, x, op, &reduced, keep);
    }
    let bool_input = x.dtype() == DType::Bool;
    let out = match op {
        "ReduceSum" => reduce(b, "reduce_sum", x, &axes, keep)?,
        "ReduceMean" => reduce(b, "reduce_mean", x, &axes, keep)?,
        "ReduceMax" if bool_input => reduce(b, "reduce_any", x, &axes, keep)?,
        "ReduceMin" if bool_input => reduce(b, "reduce_all", x, &axes, keep)?,
        "ReduceMax" => reduce(b, "reduce_max", x, &axes, keep)?,
        "ReduceMin" => reduce(b, "reduce_min", x, &axes, keep)?,
        "ReduceProd" => reduce(b, "reduce_prod", x, &axes, keep)?,
        "ReduceL1" => {
            let a = un(b, "abs", x)?;
            reduce(b, "reduce_sum", &a, &axes, keep)?
        }
        _ => {
            // The composite reductions compute half precision in f32.
            let (w, back) = widen(b, x)?;
            let x = &w;
            let out = match op {
                "ReduceL2" => {
                    let sq = bin(b, "mul", x, x)?;
                    let s = reduce(b, "reduce_sum", &sq, &axes, keep)?;
                    un(b, "sqrt", &s)?
                }
                "ReduceSumSquare" => {
                    let sq = bin(b, "mul", x, x)?;
                    reduce(b, "reduce_sum", &sq, &axes, keep)?
                }
                "ReduceLogSum" => {
                    let s = reduce(b, "reduce_sum", x, &axes, keep)?;
                    un(b, "log", &s)?
                }
                "ReduceLogSumExp" => {
                    // log(sum(exp(x - m))) + m with m = max(x), which does not overflow.
                    let m = reduce(b, "reduce_max", x, &axes, true)?;
                    let d = bin(b, "sub", x, &m)?;
                    let e = un(b, "exp", &d)?;
                    let s = reduce(b, "reduce_sum", &e, &axes, keep)?;
                    let l = un(b, "log", &s)?;
                    let m = if keep {
                        m
                    } else {
                        reduce(b, "reduce_max", x, &axes, false)?
                    };
                    bin(b, "add", &l, &m)?
                }
                _ => return unsupported(super::NOT_COVERED),
            };
            narrow(b, out, back)?
        }
    };
    one(out)
}

/// A reduction over an axis of size 0: the operator's identity (0 for sums, 1 for
/// products, -inf for max and log-sums, +inf for min, NaN for the mean), as a constant
/// of the result shape.
fn empty_reduction(b: &mut Builder, x: &Val, op: &str, reduced: &[usize], keep: bool) -> Converted {
    let dims: Vec<usize> =
        x.ty.dims
            .iter()
            .enumerate()
            .filter_map(|(i, d)| match (reduced.contains(&i), keep) {
                (true, true) => Some(Some(1)),
                (true, false) => None,
                (false, _) => Some(d.as_const().and_then(|n| usize::try_from(n).ok())),
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| Fail::Unsupported("empty reduction of a dynamic tensor".into()))?;
    let dtype = x.dtype();
    let fill = |b: &mut Builder, v: f64| -> Result<Val, Fail> {
        let values = if dtype.is_float() {
            Values::F(vec![v])
        } else {
            Values::I(vec![v as i64])
        };
        splat(b, dtype, &dims, values)
    };
    let out = match op {
        "ReduceSum" | "ReduceL1" | "ReduceL2" | "ReduceSumSquare" => fill(b, 0.0)?,
        "ReduceProd" => fill(b, 1.0)?,
        "ReduceMax" if dtype == DType::Bool => fill(b, 0.0)?,
        "ReduceMin" if dtype == DType::Bool => fill(b, 1.0)?,
        "ReduceMax" | "ReduceMin" | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceMean"
            if dtype.is_float() =>
        {
            // Infinities and NaN are computed from zeros rather than written as dense
            // literals: MLIR prints them as hex bit patterns, which the attribute reader
            // of autofuse-ascend takes for integers.
            let zero = fill(b, 0.0)?;
            match op {
                "ReduceMean" => bin(b, "div", &zero, &zero)?,
                "ReduceMin" => {
                    let inf = un(b, "log", &zero)?;
                    un(b, "neg", &inf)?
                }
                _ => un(b, "log", &zero)?,
            }
        }
        _ => return unsupported("an empty reduction without an identity in this type"),
    };
    one(out)
}

/// GlobalAveragePool/GlobalMaxPool: mean/max over every axis from 2 on, kept as 1s.
fn global_pool(b: &mut Builder, c: &NodeCtx, op: &str) -> Converted {
    let x = c.req(0)?;
    if x.rank() < 3 {
        return one(x.clone());
    }
    let axes: Vec<i64> = (2..x.rank() as i64).collect();
    let name = if op == "GlobalAveragePool" {
        "reduce_mean"
    } else {
        "reduce_max"
    };
    one(reduce(b, name, x, &axes, true)?)
}

/// Softmax/LogSoftmax: from opset 13 along `axis` (default -1); before, the input is
/// flattened to 2-D at `axis` (default 1) and normalized along the second dim.
fn softmax(b: &mut Builder, c: &NodeCtx, log: bool) -> Converted {
    let x = c.req(0)?;
    let name = if log { "log_softmax" } else { "softmax" };
    if c.opset >= 13 {
        let axis = c.int("axis", -1)?;
        return one(b.op(name, &[x], &[("axis", A::I(axis))], x.dtype(), None)?);
    }
    let axis = axis_index(c.int("axis", 1)?, x.rank(), false)?;
    let flat = vec![product(&x.ty.dims[..axis])?, product(&x.ty.dims[axis..])?];
    let f = reshape(b, x, flat)?;
    let y = b.op(name, &[&f], &[("axis", A::I(1))], x.dtype(), None)?;
    one(reshape(b, &y, x.ty.dims.clone())?)
}

/// Gelu, exact or with the tanh approximation.
fn gelu(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let approximate = c.string("approximate")?.unwrap_or_else(|| "none".into());
    if approximate != "none" && approximate != "tanh" {
        return invalid(format!("unknown Gelu approximation '{approximate}'"));
    }
    one(b.op(
        "gelu",
        &[x],
        &[("approximate", A::S(approximate))],
        x.dtype(),
        None,
    )?)
}

/// Dropout in inference: the output is the input and the mask is all true; the ratio
/// does not matter. Training mode (a true `training_mode` input) is refused.
fn dropout(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    if let Some(mode) = c.known_ints(2, "Dropout training_mode")? {
        if mode.iter().any(|&m| m != 0) {
            return unsupported("Dropout with training_mode = true (random masks)");
        }
    }
    let mut outs = vec![Some(x.clone())];
    if c.wants(1) {
        let nan = b.op("isnan", &[x], &[], DType::Bool, None)?;
        let not_nan = un(b, "logical_not", &nan)?;
        outs.push(Some(bin(b, "logical_or", &nan, &not_nan)?));
    }
    Ok(outs)
}

/// LayerNormalization (opset 17): Y by `ascend.layer_norm`; the optional Mean and
/// InvStdDev outputs (in the stash type, f32 by default) by reductions.
fn layer_norm(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let scale = c.req(1)?;
    let axis = c.int("axis", -1)?;
    let epsilon = c.float("epsilon", 1e-5)?;
    let first = axis_index(axis, x.rank(), false)?;
    let bias = match c.input(2) {
        Some(bias) => bias.clone(),
        // A zero of rank 0 broadcasts against the normalized dims.
        None => like(b, x, 0.0),
    };
    let y = b.op(
        "layer_norm",
        &[x, scale, &bias],
        &[("axis", A::I(axis)), ("epsilon", A::F(epsilon))],
        x.dtype(),
        None,
    )?;
    let mut outs = vec![Some(y)];
    if c.wants(1) || c.wants(2) {
        let stash = dtype_of(c.int("stash_type", 1)? as i32).map_err(Fail::Unsupported)?;
        let axes: Vec<i64> = (first as i64..x.rank() as i64).collect();
        let xs = cast(b, x, stash)?;
        let mean = reduce(b, "reduce_mean", &xs, &axes, true)?;
        let d = bin(b, "sub", &xs, &mean)?;
        let sq = bin(b, "mul", &d, &d)?;
        let var = reduce(b, "reduce_mean", &sq, &axes, true)?;
        let eps = like(b, &var, epsilon);
        let ve = bin(b, "add", &var, &eps)?;
        let inv = un(b, "rsqrt", &ve)?;
        outs.push(Some(mean));
        outs.push(Some(inv));
    }
    Ok(outs)
}

/// The dtype a normalization computes in: `stash_type` (1, f32, by default).
fn stash_dtype(c: &NodeCtx) -> Result<DType, Fail> {
    let stash = dtype_of(c.int("stash_type", 1)? as i32).map_err(Fail::Unsupported)?;
    if !stash.is_float() {
        return invalid("stash_type must be a floating-point type");
    }
    Ok(stash)
}

/// RMSNormalization (opset 23): `X / sqrt(mean(X^2 over axis..rank-1) + epsilon) * scale`
/// in the stash type, rounded once to the scale's type (the output type V).
fn rms_norm(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, scale) = (c.req(0)?, c.req(1)?);
    let first = axis_index(c.int("axis", -1)?, x.rank(), false)?;
    let epsilon = c.float("epsilon", 1e-5)?;
    let stash = stash_dtype(c)?;
    let axes: Vec<i64> = (first as i64..x.rank() as i64).collect();
    let xs = cast(b, x, stash)?;
    let sq = bin(b, "mul", &xs, &xs)?;
    let ms = reduce(b, "reduce_mean", &sq, &axes, true)?;
    let eps = like(b, &ms, epsilon);
    let mse = bin(b, "add", &ms, &eps)?;
    let rms = un(b, "sqrt", &mse)?;
    let normalized = bin(b, "div", &xs, &rms)?;
    let s = cast(b, scale, stash)?;
    let y = bin(b, "mul", &normalized, &s)?;
    one(cast(b, &y, scale.dtype())?)
}

/// `(x - mean) / sqrt(mean((x - mean)^2) + epsilon)` with the statistics over `axes`
/// (kept).
fn normalize(b: &mut Builder, x: &Val, axes: &[i64], epsilon: f64) -> Result<Val, Fail> {
    let mean = reduce(b, "reduce_mean", x, axes, true)?;
    let d = bin(b, "sub", x, &mean)?;
    let sq = bin(b, "mul", &d, &d)?;
    let var = reduce(b, "reduce_mean", &sq, axes, true)?;
    let eps = like(b, &var, epsilon);
    let ve = bin(b, "add", &var, &eps)?;
    let std = un(b, "sqrt", &ve)?;
    bin(b, "div", &d, &std)
}

/// A per-channel vector `[C]` shaped `[C, 1, ...]` to broadcast against `[N, C, ...]` of
/// rank `rank`, in `dtype`.
fn per_channel(b: &mut Builder, v: &Val, rank: usize, dtype: DType) -> Result<Val, Fail> {
    let v = cast(b, v, dtype)?;
    if rank <= 2 {
        return Ok(v);
    }
    let axes: Vec<i64> = (1..rank as i64 - 1).collect();
    unsqueeze(b, &v, &axes)
}

/// MeanVarianceNormalization (axes default [0, 2, 3]): `(x - mean) / (std + 1e-9)` as
/// the ONNX function body defines it (the epsilon is added to the standard deviation);
/// the variance is the mean of squared deviations, equal to the body's
/// `mean(x^2) - mean(x)^2` but never negative by rounding.
fn mvn(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, back) = widen(b, c.req(0)?)?;
    let axes = c.ints("axes")?.unwrap_or_else(|| vec![0, 2, 3]);
    let axes: Vec<i64> = axes
        .iter()
        .map(|&a| axis_index(a, x.rank(), false).map(|a| a as i64))
        .collect::<Result<_, _>>()?;
    let mean = reduce(b, "reduce_mean", &x, &axes, true)?;
    let d = bin(b, "sub", &x, &mean)?;
    let sq = bin(b, "mul", &d, &d)?;
    let var = reduce(b, "reduce_mean", &sq, &axes, true)?;
    let std = un(b, "sqrt", &var)?;
    let eps = like(b, &std, 1e-9);
    let den = bin(b, "add", &std, &eps)?;
    let y = bin(b, "div", &d, &den)?;
    one(narrow(b, y, back)?)
}

/// InstanceNormalization (statistics per sample and channel over axes 2..) and
/// BatchNormalization in inference (the given per-channel mean and variance):
/// `(x - mean) / sqrt(var + epsilon) * scale + B`. BatchNormalization in training mode
/// (`training_mode`, `is_test = 0` before opset 7, or the running statistics asked
/// for as outputs) and the per-activation `spatial = 0` form are refused.
fn channel_norm(b: &mut Builder, c: &NodeCtx, op: &str) -> Converted {
    let x0 = c.req(0)?;
    let rank = x0.rank();
    let epsilon = c.float("epsilon", 1e-5)?;
    if rank < 2 || (op == "InstanceNormalization" && rank < 3) {
        return invalid(format!("{op} needs an input of rank >= 3, not {rank}"));
    }
    let (x, back) = widen(b, x0)?;
    let dtype = x.dtype();
    let normalized = if op == "InstanceNormalization" {
        let axes: Vec<i64> = (2..rank as i64).collect();
        normalize(b, &x, &axes, epsilon)?
    } else {
        if (1..c.node.output.len()).any(|i| c.wants(i)) {
            return unsupported(
                "BatchNormalization in training mode (running statistics asked for)",
            );
        }
        if c.int("training_mode", 0)? != 0 {
            return unsupported("BatchNormalization with training_mode = 1");
        }
        if c.opset < 7 && c.int("is_test", 0)? == 0 {
            return unsupported("BatchNormalization with is_test = 0 (training)");
        }
        if c.opset < 9 && c.int("spatial", 1)? == 0 {
            return unsupported("BatchNormalization with spatial = 0");
        }
        let mean = per_channel(b, c.req(3)?, rank, dtype)?;
        let var = per_channel(b, c.req(4)?, rank, dtype)?;
        let d = bin(b, "sub", &x, &mean)?;
        let eps = like(b, &var, epsilon);
        let ve = bin(b, "add", &var, &eps)?;
        let std = un(b, "sqrt", &ve)?;
        bin(b, "div", &d, &std)?
    };
    let scale = per_channel(b, c.req(1)?, rank, dtype)?;
    let bias = per_channel(b, c.req(2)?, rank, dtype)?;
    let scaled = bin(b, "mul", &normalized, &scale)?;
    let y = bin(b, "add", &scaled, &bias)?;
    one(narrow(b, y, back)?)
}

/// GroupNormalization: x `[N, C, ...]` viewed as `[N, G, C/G * spatial]`, normalized
/// over the last axis in the stash type (opset 21; f32 for half precision before),
/// then scaled and shifted per group (opset 18: scale and bias `[G]`) or per channel
/// (opset 21: `[C]`), rounded once to x's type.
fn group_norm(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x0 = c.req(0)?;
    let rank = x0.rank();
    if rank < 2 {
        return invalid(format!("GroupNormalization needs rank >= 2, not {rank}"));
    }
    let groups = c
        .typed("num_groups", &[at::INT], "an INT")?
        .ok_or_else(|| Fail::Invalid("missing attribute 'num_groups'".into()))?
        .i;
    if groups <= 0 {
        return invalid(format!("num_groups must be positive, not {groups}"));
    }
    let epsilon = c.float("epsilon", 1e-5)?;
    let stash = if c.opset >= 21 {
        stash_dtype(c)?
    } else {
        match x0.dtype() {
            DType::F16 | DType::BF16 => DType::F32,
            d => d,
        }
    };
    let channels = x0.ty.dims[1].expr().cloned().ok_or_else(|| {
        Fail::Unsupported("GroupNormalization of a channel dim without a symbol".into())
    })?;
    let per_group = match channels.as_const() {
        Some(n) if n % groups != 0 => {
            return invalid(format!("{n} channels do not split into {groups} groups"))
        }
        Some(n) => Expr::constant(n / groups),
        None => channels.floor_div(&Expr::constant(groups)),
    };
    let spatial = product(&x0.ty.dims[2..])?;
    let spatial = spatial.expr().cloned().unwrap_or_else(|| Expr::constant(1));
    let grouped = vec![
        x0.ty.dims[0].clone(),
        Dim::constant(groups),
        Dim::Known(per_group * spatial),
    ];
    let xs = cast(b, x0, stash)?;
    let x3 = reshape(b, &xs, grouped)?;
    let n3 = normalize(b, &x3, &[2], epsilon)?;
    let y = if c.opset >= 21 {
        let n = reshape(b, &n3, x0.ty.dims.clone())?;
        let scale = per_channel(b, c.req(1)?, rank, stash)?;
        let bias = per_channel(b, c.req(2)?, rank, stash)?;
        let scaled = bin(b, "mul", &n, &scale)?;
        bin(b, "add", &scaled, &bias)?
    } else {
        // [G] -> [G, 1] against [N, G, C/G * spatial].
        let scale = cast(b, c.req(1)?, stash)?;
        let scale = unsqueeze(b, &scale, &[1])?;
        let bias = cast(b, c.req(2)?, stash)?;
        let bias = unsqueeze(b, &bias, &[1])?;
        let scaled = bin(b, "mul", &n3, &scale)?;
        let y3 = bin(b, "add", &scaled, &bias)?;
        reshape(b, &y3, x0.ty.dims.clone())?
    };
    one(cast(b, &y, x0.dtype())?)
}

/// LpNormalization: `x / norm` along `axis` with the L1 (`sum(|x|)`) or L2
/// (`sqrt(sum(x*x))`) norm; a zero norm gives 0 (not 0/0), as the reference has it.
fn lp_norm(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, back) = widen(b, c.req(0)?)?;
    let axis = axis_index(c.int("axis", -1)?, x.rank(), false)? as i64;
    let norm = match c.int("p", 2)? {
        1 => {
            let a = un(b, "abs", &x)?;
            reduce(b, "reduce_sum", &a, &[axis], true)?
        }
        2 => {
            let sq = bin(b, "mul", &x, &x)?;
            let s = reduce(b, "reduce_sum", &sq, &[axis], true)?;
            un(b, "sqrt", &s)?
        }
        p => return invalid(format!("LpNormalization p must be 1 or 2, not {p}")),
    };
    let zero = like(b, &x, 0.0);
    let is_zero = cmp(b, "eq", &norm, &zero)?;
    let q = bin(b, "div", &x, &norm)?;
    let y = select(b, &is_zero, &zero, &q)?;
    one(narrow(b, y, back)?)
}

/// EyeLike: ones where `col - row == k` in the input's 2-D shape, zeros elsewhere, of
/// `dtype` (default the input's), from two ranges and a compare as Trilu.
fn eye_like(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    if x.rank() != 2 {
        return invalid(format!("EyeLike needs a 2-D input, not rank {}", x.rank()));
    }
    let dtype = match c.typed("dtype", &[at::INT], "an INT")? {
        Some(a) => dtype_of(a.i as i32).map_err(Fail::Unsupported)?,
        None => x.dtype(),
    };
    let k = c.int("k", 0)?;
    let index = index_range;
    let r = index(b, x.ty.dims[0].clone())?;
    let r = unsqueeze(b, &r, &[1])?;
    let col = index(b, x.ty.dims[1].clone())?;
    let col = unsqueeze(b, &col, &[0])?;
    let diff = bin(b, "sub", &col, &r)?;
    let kv = b.scalar(DType::I64, k as f64);
    let on = cmp(b, "eq", &diff, &kv)?;
    let (onev, zero) = (b.scalar(dtype, 1.0), b.scalar(dtype, 0.0));
    one(select(b, &on, &onev, &zero)?)
}

/// `e / k` for a dim that `k` must divide.
fn div_dim(e: &Expr, k: i64, what: &str) -> Result<Expr, Fail> {
    match e.as_const() {
        Some(n) if n % k != 0 => invalid(format!("{what} {n} is not a multiple of {k}")),
        Some(n) => Ok(Expr::constant(n / k)),
        None => Ok(e.floor_div(&Expr::constant(k))),
    }
}

/// DepthToSpace (DCR or CRD) and SpaceToDepth (DCR, and CRD from opset 28) of an
/// `[N, C, H, W]` input: a reshape to rank 6, a transpose and a reshape back.
fn depth_space(b: &mut Builder, c: &NodeCtx, to_space: bool) -> Converted {
    let x = c.req(0)?;
    if x.rank() != 4 {
        return invalid(format!("needs a 4-D input, not rank {}", x.rank()));
    }
    let bs = c
        .typed("blocksize", &[at::INT], "an INT")?
        .ok_or_else(|| Fail::Invalid("missing attribute 'blocksize'".into()))?
        .i;
    if bs <= 0 {
        return invalid(format!("blocksize must be positive, not {bs}"));
    }
    let mode = c.string("mode")?.unwrap_or_else(|| "DCR".into());
    if mode != "DCR" && mode != "CRD" {
        return invalid(format!("unknown mode '{mode}'"));
    }
    let dims: Vec<Expr> =
        x.ty.dims
            .iter()
            .map(|d| d.expr().cloned())
            .collect::<Option<_>>()
            .ok_or_else(|| Fail::Unsupported("a dim without a symbol".into()))?;
    let (n, ch, h, w) = (&dims[0], &dims[1], &dims[2], &dims[3]);
    let k = Expr::constant(bs);
    let (tmp, perm, out) = if to_space {
        let cb = div_dim(ch, bs * bs, "the channel count")?;
        let out = vec![
            n.clone(),
            cb.clone(),
            h.clone() * k.clone(),
            w.clone() * k.clone(),
        ];
        if mode == "DCR" {
            let tmp = vec![n.clone(), k.clone(), k.clone(), cb, h.clone(), w.clone()];
            (tmp, vec![0, 3, 4, 1, 5, 2], out)
        } else {
            let tmp = vec![n.clone(), cb, k.clone(), k.clone(), h.clone(), w.clone()];
            (tmp, vec![0, 1, 4, 2, 5, 3], out)
        }
    } else {
        let hb = div_dim(h, bs, "the height")?;
        let wb = div_dim(w, bs, "the width")?;
        let tmp = vec![
            n.clone(),
            ch.clone(),
            hb.clone(),
            k.clone(),
            wb.clone(),
            k.clone(),
        ];
        let out = vec![n.clone(), ch.clone() * Expr::constant(bs * bs), hb, wb];
        let perm = if mode == "DCR" {
            vec![0, 3, 5, 1, 2, 4]
        } else {
            vec![0, 1, 3, 5, 2, 4]
        };
        (tmp, perm, out)
    };
    let r = reshape(b, x, tmp.into_iter().map(Dim::Known).collect())?;
    let t = b.op(
        "transpose",
        &[&r],
        &[("perm", A::Ints(perm))],
        x.dtype(),
        None,
    )?;
    one(reshape(b, &t, out.into_iter().map(Dim::Known).collect())?)
}

// ---------------------------------------------------------------------------------
// Layout and structure
// ---------------------------------------------------------------------------------

/// Reshape with a constant target: 0 copies the input dim (unless `allowzero`), one -1
/// is inferred from the element count.
fn reshape_node(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let shape = c
        .shape_exprs(1, "the shape")?
        .ok_or_else(|| Fail::Invalid("Reshape needs a shape".into()))?;
    let allowzero = c.int("allowzero", 0)? != 0;
    if shape.iter().filter(|d| d.as_const() == Some(-1)).count() > 1 {
        return invalid("Reshape shape has more than one -1");
    }
    let mut dims = Vec::with_capacity(shape.len());
    for (i, d) in shape.iter().enumerate() {
        dims.push(match d.as_const() {
            Some(0) if !allowzero => x.ty.dims.get(i).cloned().ok_or_else(|| {
                Fail::Invalid(format!(
                    "shape entry {i} copies a dim the input does not have"
                ))
            })?,
            Some(-1) => Dim::Unknown,
            Some(d) if d < 0 => return invalid(format!("invalid Reshape dim {d}")),
            Some(d) => Dim::constant(d),
            // A symbolic entry is a dim (dims are >= 1), never 0 or -1.
            None => Dim::Known(d.clone()),
        });
    }
    if let Some(slot) = dims.iter().position(|d| *d == Dim::Unknown) {
        // Cancel the dims shared by the input and the known target dims first, so that
        // `[batch, 4, 8] -> [0, -1]` gives `32`, not `batch*32 / batch`.
        let mut remaining: Vec<Dim> = x.ty.dims.clone();
        let mut known = Expr::constant(1);
        for (i, d) in dims.iter().enumerate() {
            if i == slot {
                continue;
            }
            if let Some(pos) = remaining.iter().position(|r| r == d) {
                remaining.remove(pos);
            } else if let Some(e) = d.expr() {
                known = known * e.clone();
            }
        }
        let total = product(&remaining)?;
        if let Some(total) = total.expr() {
            dims[slot] = match (total.as_const(), known.as_const()) {
                (Some(t), Some(k)) if k != 0 && t % k == 0 => Dim::constant(t / k),
                (Some(_), Some(0)) => Dim::constant(0),
                (Some(t), Some(k)) => {
                    return invalid(format!("cannot reshape {t} elements into multiples of {k}"))
                }
                _ if known.as_const() == Some(1) => Dim::Known(total.clone()),
                _ => Dim::Known(total.floor_div(&known)),
            };
        }
    }
    one(reshape(b, x, dims)?)
}

/// Squeeze: axes from an input (opset 13) or attribute; none = every static 1.
fn squeeze_node(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let axes = if c.opset >= 13 {
        c.known_ints(1, "axes")?
    } else {
        c.ints("axes")?
    };
    let axes = match axes {
        Some(a) => a,
        None => {
            if x.ty.dims.iter().any(|d| d.as_const().is_none()) {
                return unsupported("Squeeze without axes of a dynamic tensor");
            }
            (0..x.rank() as i64)
                .filter(|&i| x.ty.dims[i as usize].as_const() == Some(1))
                .collect()
        }
    };
    if axes.is_empty() {
        return one(x.clone());
    }
    one(squeeze(b, x, &axes)?)
}

/// Unsqueeze: axes from an input from opset 13, an attribute before.
fn unsqueeze_node(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let axes = if c.opset >= 13 {
        c.known_ints(1, "axes")?
    } else {
        c.ints("axes")?
    }
    .ok_or_else(|| Fail::Invalid("Unsqueeze needs axes".into()))?;
    one(unsqueeze(b, x, &axes)?)
}

/// Flatten to a matrix split at `axis`.
fn flatten(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let axis = axis_index(c.int("axis", 1)?, x.rank(), true)?;
    let dims = vec![product(&x.ty.dims[..axis])?, product(&x.ty.dims[axis..])?];
    one(reshape(b, x, dims)?)
}

/// Expand: broadcast to the given shape (numpy rules, so the result may be larger).
fn expand(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let shape = c
        .shape_exprs(1, "the shape")?
        .ok_or_else(|| Fail::Invalid("Expand needs a shape".into()))?;
    let target: Vec<Dim> = shape.into_iter().map(Dim::Known).collect();
    let dims = broadcast_dims(b, &x.ty.dims, &target)?;
    one(broadcast_to(b, x, dims)?)
}

/// Transpose by `perm` (reversed axes by default); the identity permutation is a no-op.
fn transpose(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let perm = c
        .ints("perm")?
        .unwrap_or_else(|| (0..x.rank() as i64).rev().collect());
    if perm.iter().copied().eq(0..x.rank() as i64) {
        return one(x.clone());
    }
    one(b.op(
        "transpose",
        &[x],
        &[("perm", A::Ints(perm))],
        x.dtype(),
        None,
    )?)
}

/// Concat of any number of inputs, as a chain of binary `ascend.concat`s.
fn concat(b: &mut Builder, c: &NodeCtx) -> Converted {
    let axis = c
        .typed("axis", &[at::INT], "an INT")?
        .ok_or_else(|| Fail::Invalid("missing attribute 'axis'".into()))?
        .i;
    let parts: Vec<&Val> = c.inputs.iter().flatten().collect();
    let (first, rest) = parts
        .split_first()
        .ok_or_else(|| Fail::Invalid("Concat needs inputs".into()))?;
    let mut acc = (*first).clone();
    for part in rest {
        acc = b.op(
            "concat",
            &[&acc, part],
            &[("axis", A::I(axis))],
            acc.dtype(),
            None,
        )?;
    }
    one(acc)
}

/// Split into `ascend.slice`s along an axis; sizes and the axis's dim may be symbolic.
fn split(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let axis = axis_index(c.int("axis", 0)?, x.rank(), false)?;
    let size = x.ty.dims[axis]
        .expr()
        .cloned()
        .ok_or_else(|| Fail::Unsupported("Split of a dim without a symbol".into()))?;
    let n = c.node.output.len();
    let sizes = if c.opset >= 13 {
        c.shape_exprs(1, "split")?
    } else {
        c.ints("split")?
            .map(|v| v.into_iter().map(Expr::constant).collect())
    };
    let sizes: Vec<Expr> = match sizes {
        Some(s) => {
            let total = s.iter().fold(Expr::constant(0), |acc, e| acc + e.clone());
            let negative = s.iter().any(|e| e.as_const().is_some_and(|v| v < 0));
            if s.len() != n || negative {
                return invalid(format!(
                    "split sizes {s:?} do not divide a dim of {size} into {n} outputs"
                ));
            }
            if total != size {
                match (total.as_const(), size.as_const()) {
                    (Some(_), Some(_)) => {
                        return invalid(format!(
                            "split sizes {s:?} do not divide a dim of {size} into {n} outputs"
                        ))
                    }
                    _ => {
                        return unsupported(format!(
                            "split sizes summing to '{total}' for a dim of '{size}'"
                        ))
                    }
                }
            }
            s
        }
        None => {
            let parts = if c.opset >= 18 {
                c.int("num_outputs", n as i64)?
            } else {
                n as i64
            };
            if parts <= 0 || parts as usize != n {
                return invalid(format!("num_outputs {parts} but the node has {n} outputs"));
            }
            if let Some(total) = size.as_const() {
                // Equal parts; from opset 18 the last may be smaller (ceil division).
                let chunk = (total + parts - 1) / parts;
                if c.opset < 18 && total % parts != 0 {
                    return invalid(format!(
                        "a dim of {total} does not split into {parts} equal parts"
                    ));
                }
                (0..parts)
                    .map(|i| Expr::constant((total - i * chunk).clamp(0, chunk)))
                    .collect()
            } else {
                // A symbolic dim: parts of ceil(size / parts), the slices clamp the last.
                let chunk = size.ceil_div(&Expr::constant(parts));
                vec![chunk; n]
            }
        }
    };
    let mut outs = Vec::with_capacity(n);
    let mut start = Expr::constant(0);
    for (i, len) in sizes.iter().enumerate() {
        let end = start.clone() + len.clone();
        let bound = |e: &Expr| match e.as_const() {
            Some(v) => A::Ints(vec![v]),
            None => A::Exprs(vec![e.clone()]),
        };
        outs.push(if c.wants(i) {
            Some(b.op(
                "slice",
                &[x],
                &[
                    ("starts", bound(&start)),
                    ("ends", bound(&end)),
                    ("axes", A::Ints(vec![axis as i64])),
                    ("steps", A::Ints(vec![1])),
                ],
                x.dtype(),
                None,
            )?)
        } else {
            None
        });
        start = end;
    }
    Ok(outs)
}

/// Slice with starts/ends that are constants or shape values, and constant axes/steps
/// (inputs from opset 10). Positive steps are one `ascend.slice` (symbolic bounds as
/// expression strings); a negative step becomes a `gather` of the indices it visits.
fn slice(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let rank = x.rank();
    let (starts, ends, axes, steps) = if c.opset >= 10 {
        (
            c.shape_exprs(1, "starts")?
                .ok_or_else(|| Fail::Invalid("Slice needs starts".into()))?,
            c.shape_exprs(2, "ends")?
                .ok_or_else(|| Fail::Invalid("Slice needs ends".into()))?,
            c.known_ints(3, "axes")?,
            c.known_ints(4, "steps")?,
        )
    } else {
        let exprs = |v: Vec<i64>| v.into_iter().map(Expr::constant).collect::<Vec<_>>();
        (
            exprs(c.ints("starts")?.unwrap_or_default()),
            exprs(c.ints("ends")?.unwrap_or_default()),
            c.ints("axes")?,
            None,
        )
    };
    let axes = axes.unwrap_or_else(|| (0..starts.len() as i64).collect());
    let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return invalid("starts, ends, axes and steps must have the same length");
    }
    let mut seen = vec![false; rank];
    let mut positive = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut negative = Vec::new();
    for i in 0..starts.len() {
        let axis = axis_index(axes[i], rank, false)?;
        if std::mem::replace(&mut seen[axis], true) {
            return invalid(format!("axis {} is sliced twice", axes[i]));
        }
        match steps[i] {
            0 => return invalid("slice steps cannot be 0"),
            s if s > 0 => {
                // A slice over the whole of a dim takes nothing away: drop it.
                let whole = starts[i].as_const() == Some(0)
                    && (ends[i].as_const().is_some_and(|e| e >= SLICE_TO_END)
                        || x.ty.dims[axis].expr() == Some(&ends[i]))
                    && s == 1;
                if !whole {
                    positive.0.push(starts[i].clone());
                    positive.1.push(ends[i].clone());
                    positive.2.push(axis as i64);
                    positive.3.push(s);
                }
            }
            s => {
                let (Some(start), Some(end)) = (starts[i].as_const(), ends[i].as_const()) else {
                    return unsupported("negative-step slice with symbolic bounds");
                };
                negative.push((axis, start, end, s));
            }
        }
    }
    let bounds = |v: Vec<Expr>| match v.iter().map(Expr::as_const).collect::<Option<Vec<_>>>() {
        Some(ints) => A::Ints(ints),
        None => A::Exprs(v),
    };
    let mut out = x.clone();
    if !positive.0.is_empty() {
        out = b.op(
            "slice",
            &[&out],
            &[
                ("starts", bounds(positive.0)),
                ("ends", bounds(positive.1)),
                ("axes", A::Ints(positive.2)),
                ("steps", A::Ints(positive.3)),
            ],
            x.dtype(),
            None,
        )?;
    }
    for (axis, start, end, step) in negative {
        let size = out.ty.dims[axis]
            .as_const()
            .ok_or_else(|| Fail::Unsupported("negative-step slice of a dynamic dim".into()))?;
        // ONNX: start clamps to [0, size-1], end to [-1, size-1] after adding size to
        // negative values.
        let start = (if start < 0 {
            start.saturating_add(size)
        } else {
            start
        })
        .clamp(0, size - 1);
        let end = (if end < 0 {
            end.saturating_add(size)
        } else {
            end
        })
        .clamp(-1, size - 1);
        let mut indices = Vec::new();
        let mut i = start;
        while i > end && size > 0 {
            indices.push(i);
            i += step;
        }
        let idx = b.ints(&indices);
        out = b.op(
            "gather",
            &[&out, &idx],
            &[("axis", A::I(axis as i64))],
            x.dtype(),
            None,
        )?;
    }
    one(out)
}

/// Gather along `axis`.
fn gather(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (data, indices) = (c.req(0)?, c.req(1)?);
    let axis = c.int("axis", 0)?;
    one(b.op(
        "gather",
        &[data, indices],
        &[("axis", A::I(axis))],
        data.dtype(),
        None,
    )?)
}

/// GatherElements along `axis`.
fn gather_elements(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (data, indices) = (c.req(0)?, c.req(1)?);
    one(b.op(
        "gather_elements",
        &[data, indices],
        &[("axis", A::I(c.int("axis", 0)?))],
        data.dtype(),
        None,
    )?)
}

/// GatherND with `batch_dims`.
fn gather_nd(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (data, indices) = (c.req(0)?, c.req(1)?);
    one(b.op(
        "gather_nd",
        &[data, indices],
        &[("batch_dims", A::I(c.int("batch_dims", 0)?))],
        data.dtype(),
        None,
    )?)
}

/// CumSum along a one-element constant `axis` input.
fn cumsum(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let axis = match c.known_ints(1, "axis")?.as_deref() {
        Some([a]) => *a,
        _ => return invalid("CumSum needs a one-element axis"),
    };
    one(b.op(
        "cumsum",
        &[x],
        &[
            ("axis", A::I(axis)),
            ("exclusive", A::B(c.int("exclusive", 0)? != 0)),
            ("reverse", A::B(c.int("reverse", 0)? != 0)),
        ],
        x.dtype(),
        None,
    )?)
}

/// Range(start, limit, delta): a constant when all three are known numbers, otherwise
/// an `ascend.range` whose length is the symbolic `ceil((limit - start) / delta)`.
fn range_node(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (start, limit, delta) = (c.req(0)?, c.req(1)?, c.req(2)?);
    let dtype = start.dtype();
    if let (Some(s), Some(l), Some(d)) = (&start.known, &limit.known, &delta.known) {
        let scalar = |v: &Values, what: &str| {
            v.scalar_f64().ok_or_else(|| {
                Fail::Invalid(format!(
                    "Range {what} must hold one element, not {}",
                    v.len()
                ))
            })
        };
        let (s, l, d) = (
            scalar(s, "start")?,
            scalar(l, "limit")?,
            scalar(d, "delta")?,
        );
        if !(s.is_finite() && l.is_finite() && d.is_finite()) {
            return invalid("Range start, limit and delta must be finite");
        }
        if d == 0.0 {
            return invalid("Range delta cannot be 0");
        }
        let count = ((l - s) / d).ceil().max(0.0) as usize;
        if count > 1 << 24 {
            return unsupported(format!("a Range of {count} elements"));
        }
        let values: Vec<f64> = (0..count).map(|i| s + i as f64 * d).collect();
        let values = if dtype.is_float() {
            Values::F(values)
        } else {
            Values::I(values.iter().map(|&v| v as i64).collect())
        };
        return one(b.constant(dtype, &[count], values));
    }
    let start_e = c.shape_scalar(0, "Range start")?;
    let limit_e = c.shape_scalar(1, "Range limit")?;
    let delta_e = c.shape_scalar(2, "Range delta")?;
    let Some(step) = delta_e.as_const() else {
        return unsupported("a Range with a symbolic delta");
    };
    if step == 0 {
        return invalid("Range delta cannot be 0");
    }
    let span = if step > 0 {
        limit_e - start_e.clone()
    } else {
        start_e.clone() - limit_e
    };
    let count = if step.abs() == 1 {
        span
    } else {
        span.ceil_div(&Expr::constant(step.abs()))
    };
    let zero = Expr::constant(0);
    let count = match b.env().static_check(&count, Relation::Ge, &zero) {
        Tri::True => count,
        _ => Expr::max(&count, &zero),
    };
    let start_attr = match start_e.as_const() {
        Some(v) if dtype.is_float() => A::F(v as f64),
        Some(v) => A::I(v),
        None => A::S(start_e.to_string()),
    };
    let delta_attr = if dtype.is_float() {
        A::F(step as f64)
    } else {
        A::I(step)
    };
    one(b.op(
        "range",
        &[],
        &[("start", start_attr), ("delta", delta_attr)],
        dtype,
        Some(vec![Dim::Known(count)]),
    )?)
}

/// Pad (constant, edge, reflect, wrap): pads (begin per axis, then end per axis; on the listed axes
/// from opset 18) from an attribute or a constant/shape-value input, the value from
/// an attribute or a constant input.
fn pad(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let rank = x.rank();
    let mode = c.string("mode")?.unwrap_or_else(|| "constant".into());
    if !matches!(mode.as_str(), "constant" | "edge" | "reflect" | "wrap") {
        return invalid(format!("unknown Pad mode '{mode}'"));
    }
    let (pads, value) = if c.opset >= 11 {
        let pads = c
            .shape_exprs(1, "pads")?
            .ok_or_else(|| Fail::Invalid("Pad needs pads".into()))?;
        let value = match c.input(2) {
            None => 0.0,
            Some(v) => match v.known.as_deref() {
                Some(values) if values.len() == 1 => values.as_f64()[0],
                Some(_) => return invalid("Pad's constant_value must hold one element"),
                None => return unsupported("Pad constant_value (input #2) is not a constant"),
            },
        };
        (pads, value)
    } else {
        let pads = c
            .ints("pads")?
            .ok_or_else(|| Fail::Invalid("Pad needs pads".into()))?;
        (
            pads.into_iter().map(Expr::constant).collect(),
            c.float("value", 0.0)?,
        )
    };
    // Pads of the listed axes (opset 18) spread over every axis.
    let axes = match c.known_ints(3, "axes")? {
        Some(axes) => axes
            .iter()
            .map(|&a| axis_index(a, rank, false))
            .collect::<Result<Vec<_>, _>>()?,
        None => (0..rank).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return invalid(format!(
            "Pad has {} pads for {} axes",
            pads.len(),
            axes.len()
        ));
    }
    let mut full = vec![Expr::constant(0); 2 * rank];
    for (k, &axis) in axes.iter().enumerate() {
        full[axis] = pads[k].clone();
        full[rank + axis] = pads[axes.len() + k].clone();
    }
    if full.iter().all(|p| p.as_const() == Some(0)) {
        return one(x.clone());
    }
    one(b.op(
        "pad",
        &[x],
        &[
            ("pads", A::Exprs(full)),
            ("value", A::F(value)),
            ("mode", A::S(mode)),
        ],
        x.dtype(),
        None,
    )?)
}

/// Tile(x, repeats): every repeated axis gains a broadcast outer copy, merged back by a
/// reshape ([.., d, ..] -> [.., 1, d, ..] -> [.., r, d, ..] -> [.., r*d, ..]).
fn tile(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let repeats = c
        .shape_exprs(1, "repeats")?
        .ok_or_else(|| Fail::Invalid("Tile needs repeats".into()))?;
    if repeats.len() != x.rank() {
        return invalid(format!(
            "Tile has {} repeats for rank {}",
            repeats.len(),
            x.rank()
        ));
    }
    let repeated: Vec<usize> = (0..x.rank())
        .filter(|&i| repeats[i].as_const() != Some(1))
        .collect();
    if repeated.is_empty() {
        return one(x.clone());
    }
    let mut expanded = Vec::new();
    let mut merged = Vec::new();
    for (i, d) in x.ty.dims.iter().enumerate() {
        let d = d
            .expr()
            .cloned()
            .ok_or_else(|| Fail::Unsupported("Tile of a dim without a symbol".into()))?;
        if repeated.contains(&i) {
            expanded.push(Dim::Known(repeats[i].clone()));
            merged.push(Dim::Known(repeats[i].clone() * d.clone()));
        } else {
            merged.push(Dim::Known(d.clone()));
        }
        expanded.push(Dim::Known(d));
    }
    let axes: Vec<i64> = {
        let mut axes = Vec::new();
        let mut pos = 0i64;
        for i in 0..x.rank() {
            if repeated.contains(&i) {
                axes.push(pos);
                pos += 1;
            }
            pos += 1;
        }
        axes
    };
    let u = unsqueeze(b, x, &axes)?;
    let e = broadcast_to(b, &u, expanded)?;
    one(reshape(b, &e, merged)?)
}

/// Trilu(x, k): keeps the elements with `col - row >= k` (upper) or `<= k` (lower) of
/// the last two axes, from two ranges and a compare (symbolic extents allowed).
fn trilu(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    if x.rank() < 2 {
        return invalid("Trilu needs a tensor of rank >= 2");
    }
    let k = match c.input(1) {
        None => 0,
        Some(v) => match v.exprs().as_deref() {
            Some([e]) => e
                .as_const()
                .ok_or_else(|| Fail::Unsupported("Trilu with a symbolic k".into()))?,
            _ => return unsupported("Trilu k is not a constant"),
        },
    };
    let upper = c.int("upper", 1)? != 0;
    let rows = x.ty.dims[x.rank() - 2].clone();
    let cols = x.ty.dims[x.rank() - 1].clone();
    let index = index_range;
    let r = index(b, rows)?;
    let r = unsqueeze(b, &r, &[1])?;
    let col = index(b, cols)?;
    let col = unsqueeze(b, &col, &[0])?;
    let diff = bin(b, "sub", &col, &r)?;
    let kv = b.scalar(DType::I64, k as f64);
    let keep = cmp(b, if upper { "ge" } else { "le" }, &diff, &kv)?;
    let zero = like(b, x, 0.0);
    one(select(b, &keep, x, &zero)?)
}

/// MatMul with numpy semantics on top of `ascend.matmul` (rank >= 2, equal batch
/// dims): 1-D operands gain and lose a unit dim, batch dims are broadcast explicitly.
fn matmul(b: &mut Builder, x: &Val, y: &Val, ta: bool, tb: bool) -> Result<Val, Fail> {
    if x.rank() == 0 || y.rank() == 0 {
        return invalid("MatMul operands cannot be scalars");
    }
    if y.rank() == 2 && x.rank() > 2 && !ta {
        // [batch..., M, K] x [K, N]: one [batch*M, K] x [K, N] product between two
        // reshapes, instead of broadcasting the weights over the batch.
        let k = x.rank() - 1;
        let rows = product(&x.ty.dims[..k])?;
        let flat = reshape(b, x, vec![rows, x.ty.dims[k].clone()])?;
        let out = matmul(b, &flat, y, false, tb)?;
        let mut dims = x.ty.dims[..k].to_vec();
        dims.push(out.ty.dims[1].clone());
        return reshape(b, &out, dims);
    }
    let x1 = x.rank() == 1;
    let y1 = y.rank() == 1;
    let mut l = if x1 {
        unsqueeze(b, x, &[0])?
    } else {
        x.clone()
    };
    let mut r = if y1 {
        unsqueeze(b, y, &[-1])?
    } else {
        y.clone()
    };
    let (lr, rr) = (l.rank(), r.rank());
    let (lb, rb) = (&l.ty.dims[..lr - 2], &r.ty.dims[..rr - 2]);
    if lb != rb {
        let batch = broadcast_dims(b, lb, rb)?;
        let mut ld = batch.clone();
        ld.extend_from_slice(&l.ty.dims[lr - 2..]);
        let mut rd = batch;
        rd.extend_from_slice(&r.ty.dims[rr - 2..]);
        l = broadcast_to(b, &l, ld)?;
        r = broadcast_to(b, &r, rd)?;
    }
    let mut out = b.op(
        "matmul",
        &[&l, &r],
        &[("transpose_a", A::B(ta)), ("transpose_b", A::B(tb))],
        x.dtype(),
        None,
    )?;
    if x1 {
        out = squeeze(b, &out, &[-2])?;
    }
    if y1 {
        out = squeeze(b, &out, &[-1])?;
    }
    Ok(out)
}

/// Gemm: `alpha * op(A) * op(B) + beta * C` on matrices.
fn gemm(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, y) = (c.req(0)?, c.req(1)?);
    let (alpha, beta) = (c.float("alpha", 1.0)?, c.float("beta", 1.0)?);
    let (ta, tb) = (c.int("transA", 0)? != 0, c.int("transB", 0)? != 0);
    if x.rank() != 2 || y.rank() != 2 {
        return invalid("Gemm operands must be matrices");
    }
    let mut out = matmul(b, x, y, ta, tb)?;
    if alpha != 1.0 {
        let s = like(b, &out, alpha);
        out = bin(b, "mul", &out, &s)?;
    }
    if let Some(bias) = c.input(2) {
        if beta != 0.0 {
            let term = if beta != 1.0 {
                let s = like(b, bias, beta);
                bin(b, "mul", bias, &s)?
            } else {
                bias.clone()
            };
            out = bin(b, "add", &out, &term)?;
        }
    }
    one(out)
}

/// Constant: `value` (a tensor) or the scalar/list shorthands of opset 12.
fn constant(im: &mut Importer, c: &NodeCtx) -> Converted {
    if let Some(t) = c.tensor("value")? {
        return one(im.tensor_value(t).map_err(Fail::Unsupported)?);
    }
    if let Some(a) = c.typed("value_float", &[at::FLOAT], "a FLOAT")? {
        return one(im.b.constant(DType::F32, &[], Values::F(vec![a.f as f64])));
    }
    if let Some(a) = c.typed("value_floats", &[at::FLOATS], "FLOATS")? {
        let v: Vec<f64> = a.floats.iter().map(|&f| f as f64).collect();
        return one(im.b.constant(DType::F32, &[v.len()], Values::F(v)));
    }
    if let Some(a) = c.typed("value_int", &[at::INT], "an INT")? {
        return one(im.b.constant(DType::I64, &[], Values::I(vec![a.i])));
    }
    if let Some(v) = c.ints("value_ints")? {
        return one(im.b.constant(DType::I64, &[v.len()], Values::I(v)));
    }
    if c.attr("sparse_value").is_some() {
        return unsupported("sparse constants");
    }
    unsupported("a Constant without a dense numeric value (sparse or string)")
}

/// ConstantOfShape: a splat of `value` (0.0 as f32 by default); a symbolic shape
/// broadcasts one element to it.
fn constant_of_shape(im: &mut Importer, c: &NodeCtx) -> Converted {
    let shape = c
        .shape_exprs(0, "the shape")?
        .ok_or_else(|| Fail::Invalid("ConstantOfShape needs a shape".into()))?;
    let (dtype, value) = match c.tensor("value")? {
        None => (DType::F32, Values::F(vec![0.0])),
        Some(t) => {
            let d = im.decode(t).map_err(Fail::Unsupported)?;
            if d.values.len() != 1 {
                return invalid("ConstantOfShape's value must hold one element");
            }
            (d.dtype, d.values)
        }
    };
    let constants: Option<Vec<i64>> = shape.iter().map(Expr::as_const).collect();
    if let Some(constants) = constants {
        let dims = constants
            .iter()
            .map(|&d| usize::try_from(d).map_err(|_| Fail::Invalid(format!("negative dim {d}"))))
            .collect::<Result<Vec<_>, _>>()?;
        super::data::element_count(&constants).map_err(Fail::Invalid)?;
        return one(splat(&mut im.b, dtype, &dims, value)?);
    }
    // A symbolic shape: one element broadcast to it.
    let scalar = im.b.constant(dtype, &[], value);
    let dims: Vec<Dim> = shape.into_iter().map(Dim::Known).collect();
    one(broadcast_to(&mut im.b, &scalar, dims)?)
}

/// Shape (from `start` to `end`) as a shape value of the input's dim expressions.
fn shape_node(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let rank = x.rank() as i64;
    let clamp = |v: i64| (if v < 0 { v + rank } else { v }).clamp(0, rank) as usize;
    let start = clamp(c.int("start", 0)?);
    let end = clamp(c.int("end", rank)?);
    let dims = &x.ty.dims[start..end.max(start)];
    let exprs: Vec<Expr> = dims
        .iter()
        .map(|d| d.expr().cloned())
        .collect::<Option<_>>()
        .ok_or_else(|| Fail::Unsupported("Shape of a dim without a symbol".into()))?;
    let n = exprs.len();
    one(b.symbolic(DType::I64, &[n], exprs))
}

/// Size as a shape value: the product of the dims.
fn size_node(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = c.req(0)?;
    let n = product(&x.ty.dims)?
        .expr()
        .cloned()
        .ok_or_else(|| Fail::Unsupported("Size of a dim without a symbol".into()))?;
    one(b.symbolic(DType::I64, &[], vec![n]))
}

/// 0, 1, ..., n-1 as i64: the row or column index EyeLike and Trilu compare.
pub(super) fn index_range(b: &mut Builder, n: Dim) -> Result<Val, Fail> {
    Ok(b.op(
        "range",
        &[],
        &[("start", A::I(0)), ("delta", A::I(1))],
        DType::I64,
        Some(vec![n]),
    )?)
}
