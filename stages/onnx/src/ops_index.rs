//! Converters of the index and loss operators: ArgMax, ArgMin, Hardmax, OneHot,
//! NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, as exact compositions of
//! existing `ascend` ops (compares, `select`, reductions and `range`s along an axis).
//!
//! Positions along an axis are a `range` (f32 when the axis is static and at most
//! 2^24 long, so every position is exact and `select`/`reduce_min` run as Ascend C;
//! i32 otherwise, exact below 2^31); "the first position where a predicate holds" is the
//! `reduce_min` of `select(pred, position, miss)` with `miss` past every position (the
//! last: `reduce_max` of `select(pred, position, -1)`). No op of these compositions
//! computes in 64 bits except the final cast of an ArgMax/ArgMin result to i64 (and the
//! cast of i64 OneHot indices). Picking `input[n, target[n]]` is a class mask
//! (`eq(position, target)`) and a `reduce_sum` of `select(mask, input, 0)`: one term is
//! the value and the others are exact zeros, so the pick is exact.

use super::data::Values;
use super::emit::{Builder, Val, A};
use super::ops::NodeCtx;
use super::ops::{input, req, wants};
use super::ops::{invalid, product, reshape, unsupported};
use super::proto::attribute_type as at;
use super::{Converted, Fail};
use autofuse_ir::graph::{DType, Dim};
use autofuse_symbolic::Expr;

// ---------------------------------------------------------------------------------
// Reading the node
// ---------------------------------------------------------------------------------

fn int_attr(c: &NodeCtx, name: &str, default: i64) -> Result<i64, Fail> {
    match c.node.attribute.iter().find(|a| a.name == name) {
        None => Ok(default),
        Some(a) if a.r#type == at::UNDEFINED || a.r#type == at::INT => Ok(a.i),
        Some(_) => invalid(format!("attribute '{name}' must be an INT")),
    }
}

fn string_attr(c: &NodeCtx, name: &str) -> Result<Option<String>, Fail> {
    match c.node.attribute.iter().find(|a| a.name == name) {
        None => Ok(None),
        Some(a) if a.r#type == at::UNDEFINED || a.r#type == at::STRING => {
            Ok(Some(String::from_utf8_lossy(&a.s).into_owned()))
        }
        Some(_) => invalid(format!("attribute '{name}' must be a STRING")),
    }
}

fn has_attr(c: &NodeCtx, name: &str) -> bool {
    c.node.attribute.iter().any(|a| a.name == name)
}

/// `axis` in `[-rank, rank)` as an index.
fn axis_index(axis: i64, rank: usize) -> Result<usize, Fail> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return invalid(format!("axis {axis} is out of range for rank {rank}"));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

// ---------------------------------------------------------------------------------
// Emission helpers
// ---------------------------------------------------------------------------------

fn op(
    b: &mut Builder,
    name: &str,
    xs: &[&Val],
    attrs: &[(&str, A)],
    dtype: DType,
) -> Result<Val, Fail> {
    Ok(b.op(name, xs, attrs, dtype, None)?)
}

fn bin(b: &mut Builder, name: &str, x: &Val, y: &Val) -> Result<Val, Fail> {
    op(b, name, &[x, y], &[], x.dtype())
}

fn cmp(b: &mut Builder, name: &str, x: &Val, y: &Val) -> Result<Val, Fail> {
    op(b, name, &[x, y], &[], DType::Bool)
}

fn select(b: &mut Builder, c: &Val, t: &Val, f: &Val) -> Result<Val, Fail> {
    op(b, "select", &[c, t, f], &[], t.dtype())
}

fn cast(b: &mut Builder, x: &Val, dtype: DType) -> Result<Val, Fail> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    op(b, "cast", &[x], &[], dtype)
}

fn unsqueeze(b: &mut Builder, x: &Val, axes: &[i64]) -> Result<Val, Fail> {
    if axes.is_empty() {
        return Ok(x.clone());
    }
    op(
        b,
        "unsqueeze",
        &[x],
        &[("axes", A::Ints(axes.to_vec()))],
        x.dtype(),
    )
}

fn reduce(b: &mut Builder, name: &str, x: &Val, axes: &[i64], keep: bool) -> Result<Val, Fail> {
    op(
        b,
        name,
        &[x],
        &[("axes", A::Ints(axes.to_vec())), ("keep_dims", A::B(keep))],
        x.dtype(),
    )
}

/// Composites compute half-precision inputs in f32 and round once at the end.
fn widen(b: &mut Builder, x: &Val) -> Result<Val, Fail> {
    match x.dtype() {
        DType::F16 | DType::BF16 => cast(b, x, DType::F32),
        _ => Ok(x.clone()),
    }
}

/// Positions along an axis of `n` elements are f32 when `n` is known to be at most 2^24
/// (every position, and every integer compared with them below 2^24, is exact, and f32
/// `select`/`reduce_min` run as Ascend C), i32 otherwise (exact below 2^31; the vector
/// unit has no i32 `Select`, so such kernels are interpreted).
fn position_dtype(n: &Dim) -> DType {
    match n.as_const() {
        Some(k) if k <= F32_EXACT => DType::F32,
        _ => DType::I32,
    }
}

/// Integers up to this magnitude are exact in f32.
const F32_EXACT: i64 = 1 << 24;

/// The positions 0..n-1 along `axis` of a rank-`rank` tensor (`position_dtype`): dims
/// 1 except `n` at `axis`, so that it broadcasts against the tensor.
fn positions(b: &mut Builder, n: &Dim, rank: usize, axis: usize) -> Result<Val, Fail> {
    if let Some(k) = n.as_const() {
        if k >= i32::MAX as i64 {
            return unsupported(format!("an axis of {k} positions (indices are i32)"));
        }
    }
    let dtype = position_dtype(n);
    let (start, delta) = if dtype == DType::F32 {
        (A::F(0.0), A::F(1.0))
    } else {
        (A::I(0), A::I(1))
    };
    let r = b.op(
        "range",
        &[],
        &[("start", start), ("delta", delta)],
        dtype,
        Some(vec![n.clone()]),
    )?;
    let axes: Vec<i64> = (0..rank as i64).filter(|&a| a != axis as i64).collect();
    unsqueeze(b, &r, &axes)
}

/// The position (f32 or i32, `position_dtype`) along `axis` of the first (or last)
/// maximum (or minimum) of `x`, kept as a unit dim. NaN counts as the extreme, as
/// numpy's argmax/argmin have it: in a row holding a NaN, the first (last) NaN.
fn extreme_position(
    b: &mut Builder,
    x: &Val,
    axis: usize,
    max: bool,
    last: bool,
) -> Result<Val, Fail> {
    if x.dtype() == DType::Bool {
        return unsupported("ArgMax/ArgMin/Hardmax of booleans");
    }
    let ax = [axis as i64];
    let m = reduce(
        b,
        if max { "reduce_max" } else { "reduce_min" },
        x,
        &ax,
        true,
    )?;
    let mut hit = cmp(b, "eq", x, &m)?;
    if x.dtype().is_float() {
        // x != x: NaN (`isnan` has no Ascend C lowering).
        let nan = cmp(b, "ne", x, x)?;
        let any = reduce(b, "reduce_any", &nan, &ax, true)?;
        hit = select(b, &any, &nan, &hit)?;
    }
    let pos = positions(b, &x.ty.dims[axis], x.rank(), axis)?;
    // A miss: past every position (first) or before them (last).
    let miss = if last {
        -1.0
    } else if pos.dtype() == DType::F32 {
        F32_EXACT as f64
    } else {
        i32::MAX as f64
    };
    let miss = b.scalar(pos.dtype(), miss);
    let candidates = select(b, &hit, &pos, &miss)?;
    let pick = if last { "reduce_max" } else { "reduce_min" };
    reduce(b, pick, &candidates, &ax, true)
}

// ---------------------------------------------------------------------------------
// ArgMax, ArgMin, Hardmax
// ---------------------------------------------------------------------------------

/// ArgMax/ArgMin: the first (`select_last_index`: last) position of the extreme along
/// `axis`, as i64, the axis kept as 1 or dropped (`keepdims`).
pub fn arg_extreme(b: &mut Builder, c: &NodeCtx, max: bool) -> Converted {
    let x = req(c, 0)?;
    if x.rank() == 0 {
        return invalid("ArgMax/ArgMin needs a tensor of rank >= 1");
    }
    let axis = axis_index(int_attr(c, "axis", 0)?, x.rank())?;
    let keep = int_attr(c, "keepdims", 1)? != 0;
    let last = int_attr(c, "select_last_index", 0)? != 0;
    let pos = extreme_position(b, x, axis, max, last)?;
    let pos = if keep {
        pos
    } else {
        op(
            b,
            "squeeze",
            &[&pos],
            &[("axes", A::Ints(vec![axis as i64]))],
            pos.dtype(),
        )?
    };
    Ok(vec![Some(cast(b, &pos, DType::I64)?)])
}

/// Hardmax: 1 at the first maximum along `axis`, 0 elsewhere. Before opset 13 the
/// input is viewed as 2-D at `axis` (default 1) and the maximum is taken along dim 1.
pub fn hardmax(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = req(c, 0)?;
    if x.rank() == 0 {
        return invalid("Hardmax needs a tensor of rank >= 1");
    }
    let (view, axis) = if c.opset >= 13 {
        (x.clone(), axis_index(int_attr(c, "axis", -1)?, x.rank())?)
    } else {
        let r = x.rank() as i64;
        let a = int_attr(c, "axis", 1)?;
        if a < -r || a > r {
            return invalid(format!("axis {a} is out of range for rank {r}"));
        }
        let a = if a < 0 { a + r } else { a } as usize;
        let flat = vec![product(&x.ty.dims[..a])?, product(&x.ty.dims[a..])?];
        (reshape(b, x, flat)?, 1)
    };
    let first = extreme_position(b, &view, axis, true, false)?;
    let pos = positions(b, &view.ty.dims[axis], view.rank(), axis)?;
    let at = cmp(b, "eq", &pos, &first)?;
    let (one, zero) = (b.scalar(x.dtype(), 1.0), b.scalar(x.dtype(), 0.0));
    let y = select(b, &at, &one, &zero)?;
    Ok(vec![Some(reshape(b, &y, x.ty.dims.clone())?)])
}

// ---------------------------------------------------------------------------------
// OneHot
// ---------------------------------------------------------------------------------

/// Element `k` of a two-element `values` input, as a one-element tensor.
fn element(b: &mut Builder, values: &Val, k: i64) -> Result<Val, Fail> {
    if let Some(known) = &values.known {
        let all = known.as_f64();
        let v = usize::try_from(k)
            .ok()
            .and_then(|k| all.get(k))
            .ok_or_else(|| {
                Fail::Invalid(format!(
                    "OneHot values must hold two elements, not {}",
                    all.len()
                ))
            })?;
        return Ok(b.scalar(values.dtype(), *v));
    }
    op(
        b,
        "slice",
        &[values],
        &[
            ("starts", A::Ints(vec![k])),
            ("ends", A::Ints(vec![k + 1])),
            ("axes", A::Ints(vec![0])),
            ("steps", A::Ints(vec![1])),
        ],
        values.dtype(),
    )
}

/// OneHot: `on` where the position along the new `axis` equals the index (a negative
/// index counts from `depth`; one outside `[-depth, depth)` matches nothing), `off`
/// elsewhere. `depth` must be known at import time. Non-integer indices are truncated
/// toward zero first, as the ONNX cast to int64 does. Indices are compared in f32
/// (depth is at most 2^24) after clamping to `[-depth - 1, depth]`, so an out-of-range
/// index of any magnitude stays out of range.
pub fn one_hot(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (indices, values) = (req(c, 0)?, req(c, 2)?);
    let depth_val = req(c, 1)?;
    let depth = match depth_val.known.as_deref().map(Values::as_f64).as_deref() {
        Some([d]) => d.trunc(),
        Some(v) => {
            return invalid(format!(
                "OneHot depth must hold one element, not {}",
                v.len()
            ))
        }
        None => return unsupported("OneHot depth (input #1) is not a constant"),
    };
    if depth < 1.0 {
        return invalid(format!("OneHot depth must be positive, not {depth}"));
    }
    if depth >= (1u64 << 24) as f64 {
        return unsupported(format!(
            "OneHot depth {depth} (positions are exact below 2^24)"
        ));
    }
    let depth = depth as i64;
    if values
        .static_shape()
        .as_deref()
        .and_then(autofuse_ir::tensor::shape_elements)
        != Some(2)
    {
        return invalid("OneHot values must hold two elements [off, on]");
    }
    if values.rank() != 1 {
        return invalid("OneHot values must be a 1-D tensor of two elements");
    }
    let rank = indices.rank() + 1;
    let axis = axis_index(int_attr(c, "axis", -1)?, rank)?;

    // The index as an integer in [-depth - 1, depth], in f32: an index of magnitude
    // below 2^24 converts exactly, a larger one rounds to a value still beyond the
    // bounds, and clamping keeps it there; inside the bounds everything is exact.
    let dt = indices.dtype();
    if dt == DType::Bool {
        return unsupported("OneHot with boolean indices");
    }
    let x = cast(b, indices, DType::F32)?;
    let x = if dt.is_float() {
        // trunc(x) = x < 0 ? ceil(x) : floor(x)
        let zero = b.scalar(DType::F32, 0.0);
        let neg = cmp(b, "lt", &x, &zero)?;
        let up = op(b, "ceil", &[&x], &[], DType::F32)?;
        let down = op(b, "floor", &[&x], &[], DType::F32)?;
        select(b, &neg, &up, &down)?
    } else {
        x
    };
    let lo = b.scalar(DType::F32, (-depth - 1) as f64);
    let hi = b.scalar(DType::F32, depth as f64);
    let x = bin(b, "maximum", &x, &lo)?;
    let x = bin(b, "minimum", &x, &hi)?;
    let zero = b.scalar(DType::F32, 0.0);
    let neg = cmp(b, "lt", &x, &zero)?;
    let d = b.scalar(DType::F32, depth as f64);
    let wrapped = bin(b, "add", &x, &d)?;
    let idx = select(b, &neg, &wrapped, &x)?;
    let idx = unsqueeze(b, &idx, &[axis as i64])?;
    let pos = positions(b, &Dim::Known(Expr::constant(depth)), rank, axis)?;
    let at = cmp(b, "eq", &idx, &pos)?;
    let (off, on) = (element(b, values, 0)?, element(b, values, 1)?);
    Ok(vec![Some(select(b, &at, &on, &off)?)])
}

// ---------------------------------------------------------------------------------
// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
// ---------------------------------------------------------------------------------

/// The loss of `input[N, C, d...]` (f32) at integer `target[N, d...]` with optional
/// per-class `weight[C]`: `-input[n, target, d...] * weight[target]`, 0 where the target
/// is `ignore_index`; reduced by `none`, `sum` or `mean` (the sum divided by the sum of
/// the applied weights, ignored targets excluded).
fn nll(
    b: &mut Builder,
    input: &Val,
    target: &Val,
    weight: Option<&Val>,
    reduction: &str,
    ignore: Option<i64>,
) -> Result<Val, Fail> {
    let rank = input.rank();
    if rank < 2 {
        return invalid(format!("the loss input must have rank >= 2, not {rank}"));
    }
    if target.rank() != rank - 1 {
        return invalid(format!(
            "the target must have rank {} (the input's minus the class axis), not {}",
            rank - 1,
            target.rank()
        ));
    }
    if target.dtype().is_float() || target.dtype() == DType::Bool {
        return invalid("the target must hold integers");
    }
    if let Some(w) = weight {
        if w.rank() != 1 {
            return invalid("the weight must be a 1-D tensor of one weight per class");
        }
    }
    // Targets are class positions (or the ignored index), compared with the positions
    // in their type: exact for every position (`position_dtype`).
    let classes = positions(b, &input.ty.dims[1], rank - 1, 0)?;
    let t = targets(b, target, classes.dtype(), &input.ty.dims[1], ignore)?;
    let t1 = unsqueeze(b, &t, &[1])?;
    let mask = cmp(b, "eq", &t1, &classes)?;
    let zero = b.scalar(DType::F32, 0.0);
    let picked = select(b, &mask, input, &zero)?;
    let picked = reduce(b, "reduce_sum", &picked, &[1], false)?;
    let mut loss = op(b, "neg", &[&picked], &[], DType::F32)?;
    // The weight of each element's target (1 without weights).
    let mut applied = match weight {
        Some(w) => {
            let w = widen(b, w)?;
            let axes: Vec<i64> = (1..rank as i64 - 1).collect();
            let w = unsqueeze(b, &w, &axes)?;
            let w = select(b, &mask, &w, &zero)?;
            let w = reduce(b, "reduce_sum", &w, &[1], false)?;
            loss = bin(b, "mul", &loss, &w)?;
            Some(w)
        }
        None => None,
    };
    if let Some(ii) = ignore {
        let kept = if t.dtype() == DType::F32 || (ii >= i32::MIN as i64 && ii <= i32::MAX as i64) {
            // In f32 an index of magnitude >= 2^24 rounds, but to a value no class
            // position (<= 2^24) has, and the same way for the target that equals it.
            let iv = b.scalar(t.dtype(), ii as f64);
            cmp(b, "ne", &t, &iv)?
        } else {
            // Beyond i32: compared in f32, where no class position (< 2^31) meets it.
            let tf = cast(b, target, DType::F32)?;
            let iv = b.scalar(DType::F32, ii as f64);
            cmp(b, "ne", &tf, &iv)?
        };
        loss = select(b, &kept, &loss, &zero)?;
        applied = Some(match applied {
            Some(w) => select(b, &kept, &w, &zero)?,
            None => {
                let one = b.scalar(DType::F32, 1.0);
                select(b, &kept, &one, &zero)?
            }
        });
    }
    let all: Vec<i64> = (0..rank as i64 - 1).collect();
    Ok(match reduction {
        "none" => loss,
        "sum" => reduce(b, "reduce_sum", &loss, &all, false)?,
        "mean" => {
            let total = reduce(b, "reduce_sum", &loss, &all, false)?;
            match applied {
                Some(w) => {
                    let w = reduce(b, "reduce_sum", &w, &all, false)?;
                    bin(b, "div", &total, &w)?
                }
                None => {
                    let count = product(&target.ty.dims)?;
                    let count = match count.as_const() {
                        Some(n) => b.scalar(DType::F32, n as f64),
                        None => {
                            let e = count
                                .expr()
                                .cloned()
                                .ok_or_else(|| Fail::Unsupported("a dim has no symbol".into()))?;
                            let n = b.symbolic(DType::I64, &[], vec![e]);
                            cast(b, &n, DType::F32)?
                        }
                    };
                    bin(b, "div", &total, &count)?
                }
            }
        }
        other => return invalid(format!("unknown reduction '{other}'")),
    })
}

/// Largest half-width of the table that converts i64 targets (`targets`).
const TARGET_TABLE: i64 = 1 << 14;

/// The targets in `dtype`, that of the class positions. Kernels hold no 64-bit vector
/// values, so an i64 target is not cast by the vector unit: it indexes a gather
/// (whose indices only the scalar unit reads) from the f32 table
/// `[0, 1, ..., K-1, -K, ..., -1]` (a negative index counts from the end), which gives
/// every target in `[-K, K)` exactly. K covers the classes and the ignored index, so
/// every target the operator defines is in the table (a target outside it is
/// undefined by the operator; beyond the table it is a gather out of range). Without
/// a static class count, or a K above 2^14, the target is cast.
fn targets(
    b: &mut Builder,
    target: &Val,
    dtype: DType,
    classes: &Dim,
    ignore: Option<i64>,
) -> Result<Val, Fail> {
    if let (DType::I64, DType::F32, Some(c)) = (target.dtype(), dtype, classes.as_const()) {
        let k = match ignore {
            Some(ii) if ii >= 0 => c.max(ii.saturating_add(1)),
            Some(ii) => c.max(ii.saturating_neg()),
            None => c,
        };
        if k <= TARGET_TABLE {
            let table: Vec<f64> = (0..2 * k)
                .map(|i| if i < k { i } else { i - 2 * k } as f64)
                .collect();
            let table = b.constant(DType::F32, &[2 * k as usize], Values::F(table));
            return op(
                b,
                "gather",
                &[&table, target],
                &[("axis", A::I(0))],
                DType::F32,
            );
        }
    }
    cast(b, target, dtype)
}

fn loss_attrs(c: &NodeCtx) -> Result<(String, Option<i64>), Fail> {
    let reduction = string_attr(c, "reduction")?.unwrap_or_else(|| "mean".into());
    let ignore = if has_attr(c, "ignore_index") {
        Some(int_attr(c, "ignore_index", 0)?)
    } else {
        None
    };
    Ok((reduction, ignore))
}

fn float_input(x: &Val, what: &str) -> Result<(), Fail> {
    if x.dtype().is_float() {
        Ok(())
    } else {
        invalid(format!("the {what} must be a float tensor"))
    }
}

/// NegativeLogLikelihoodLoss (see `nll`), computed in f32 and rounded once to the
/// input's type.
pub fn nll_loss(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, target) = (req(c, 0)?, req(c, 1)?);
    float_input(x, "input")?;
    let (reduction, ignore) = loss_attrs(c)?;
    let xf = widen(b, x)?;
    let loss = nll(b, &xf, target, input(c, 2), &reduction, ignore)?;
    Ok(vec![Some(cast(b, &loss, x.dtype())?)])
}

/// SoftmaxCrossEntropyLoss: `log_softmax` over the class axis 1, then the
/// NegativeLogLikelihoodLoss of it; the optional second output is the log-probabilities.
pub fn softmax_cross_entropy(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, target) = (req(c, 0)?, req(c, 1)?);
    float_input(x, "scores")?;
    if x.rank() < 2 {
        return invalid(format!("the scores must have rank >= 2, not {}", x.rank()));
    }
    let (reduction, ignore) = loss_attrs(c)?;
    let xf = widen(b, x)?;
    let log_prob = op(b, "log_softmax", &[&xf], &[("axis", A::I(1))], DType::F32)?;
    let loss = nll(b, &log_prob, target, input(c, 2), &reduction, ignore)?;
    let loss = cast(b, &loss, x.dtype())?;
    let second = if wants(c, 1) {
        Some(cast(b, &log_prob, x.dtype())?)
    } else {
        None
    };
    Ok(vec![Some(loss), second])
}
