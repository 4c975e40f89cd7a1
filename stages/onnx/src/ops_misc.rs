//! Converters of the window, crop, sequence, einsum and LRN operators (issue 19):
//! HannWindow, HammingWindow, BlackmanWindow, CenterCropPad, ReverseSequence, Einsum and
//! LRN, each an exact decomposition into existing `ascend` ops; `docs/onnx.md`
//! describes the mappings. `ops::convert` dispatches here.

use super::data::dtype_of;
use super::emit::{Builder, Val, A};
use super::ops::req;
use super::ops::NodeCtx;
use super::ops::{broadcast_to, invalid, like, product, reshape, unsupported};
use super::proto::{attribute_type as at, AttributeProto};
use super::{Converted, Fail};
use autofuse_ir::graph::{DType, Dim};
use autofuse_symbolic::Expr;

// ---------------------------------------------------------------------------------
// Node access and emission helpers of this file (the shared ones are in `ops`)
// ---------------------------------------------------------------------------------

fn attr<'a>(
    c: &'a NodeCtx,
    name: &str,
    want: &[i32],
    what: &str,
) -> Result<Option<&'a AttributeProto>, Fail> {
    match c.node.attribute.iter().find(|a| a.name == name) {
        None => Ok(None),
        Some(a) if a.r#type == at::UNDEFINED || want.contains(&a.r#type) => Ok(Some(a)),
        Some(_) => invalid(format!("attribute '{name}' must be {what}")),
    }
}

fn int_or(c: &NodeCtx, name: &str, default: i64) -> Result<i64, Fail> {
    Ok(attr(c, name, &[at::INT], "an INT")?.map_or(default, |a| a.i))
}

fn float_or(c: &NodeCtx, name: &str, default: f64) -> Result<f64, Fail> {
    Ok(match attr(c, name, &[at::FLOAT, at::INT], "a FLOAT")? {
        None => default,
        Some(a) if a.r#type == at::INT => a.i as f64,
        Some(a) => a.f as f64,
    })
}

fn ints_attr(c: &NodeCtx, name: &str) -> Result<Option<Vec<i64>>, Fail> {
    Ok(attr(c, name, &[at::INTS], "INTS")?.map(|a| a.ints.clone()))
}

fn string_attr(c: &NodeCtx, name: &str) -> Result<Option<String>, Fail> {
    Ok(attr(c, name, &[at::STRING], "a STRING")?
        .map(|a| String::from_utf8_lossy(&a.s).into_owned()))
}

/// Input `i`'s elements as shape expressions (constants or shape values).
fn shape_exprs(c: &NodeCtx, i: usize, what: &str) -> Result<Vec<Expr>, Fail> {
    match req(c, i)?.exprs() {
        Some(e) => Ok(e),
        None => unsupported(format!("{what} (input #{i}) is not known at import time")),
    }
}

fn op(
    b: &mut Builder,
    name: &str,
    operands: &[&Val],
    attrs: &[(&str, A)],
    dtype: DType,
) -> Result<Val, Fail> {
    Ok(b.op(name, operands, attrs, dtype, None)?)
}

fn un(b: &mut Builder, name: &str, x: &Val) -> Result<Val, Fail> {
    op(b, name, &[x], &[], x.dtype())
}

fn bin(b: &mut Builder, name: &str, x: &Val, y: &Val) -> Result<Val, Fail> {
    op(b, name, &[x, y], &[], x.dtype())
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

fn transpose(b: &mut Builder, x: &Val, perm: &[usize]) -> Result<Val, Fail> {
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return Ok(x.clone());
    }
    let perm: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
    op(b, "transpose", &[x], &[("perm", A::Ints(perm))], x.dtype())
}

fn reduce_sum(b: &mut Builder, x: &Val, axes: &[usize]) -> Result<Val, Fail> {
    if axes.is_empty() {
        return Ok(x.clone());
    }
    let axes: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    op(
        b,
        "reduce_sum",
        &[x],
        &[("axes", A::Ints(axes)), ("keep_dims", A::B(false))],
        x.dtype(),
    )
}

/// Half-precision values compute in f32; the result rounds once at the end.
fn widen(b: &mut Builder, x: &Val) -> Result<(Val, DType), Fail> {
    match x.dtype() {
        DType::F16 | DType::BF16 => Ok((cast(b, x, DType::F32)?, x.dtype())),
        d => Ok((x.clone(), d)),
    }
}

fn axis_index(axis: i64, rank: usize) -> Result<usize, Fail> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return invalid(format!("axis {axis} is out of range for rank {rank}"));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

/// Integers up to this magnitude are exact in f32.
const F32_EXACT: i64 = 1 << 24;

/// 0, 1, ..., n-1 along `axis` of a rank-`rank` tensor (other dims 1): f32 when `n` is
/// static and at most 2^24 (exact, and f32 arithmetic runs as Ascend C), i32 otherwise.
fn positions(b: &mut Builder, n: &Dim, rank: usize, axis: usize) -> Result<Val, Fail> {
    let (dtype, start, delta) = match n.as_const() {
        Some(k) if k <= F32_EXACT => (DType::F32, A::F(0.0), A::F(1.0)),
        Some(k) if k >= i32::MAX as i64 => {
            return unsupported(format!("an axis of {k} positions (indices are i32)"))
        }
        _ => (DType::I32, A::I(0), A::I(1)),
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

// ---------------------------------------------------------------------------------
// HannWindow, HammingWindow, BlackmanWindow
// ---------------------------------------------------------------------------------

/// The windows over `n = 0 .. size-1` (a `range`), with `h = pi * n / N` where `N` is
/// `size` (`periodic`) or `size - 1`, computed in f32 in forms that stay accurate where
/// the window is near 0:
/// - Hann `0.5 - 0.5 cos(2h)` as `sin(h)^2`;
/// - Hamming `25/46 - 21/46 cos(2h)`;
/// - Blackman `0.42 - 0.5 cos(2h) + 0.08 cos(4h)` as `sin(h)^2 (1 - 0.64 cos(h)^2)`
///   (the same function: `cos 2h = 1 - 2 sin^2 h`, `cos 4h = 1 - 8 sin^2 h cos^2 h`).
pub fn window(b: &mut Builder, c: &NodeCtx, op_type: &str) -> Converted {
    let size = match shape_exprs(c, 0, "the window size")?.as_slice() {
        [e] => e.clone(),
        v => {
            return invalid(format!(
                "the window size must hold one element, not {}",
                v.len()
            ))
        }
    };
    let Some(size_value) = size.as_const() else {
        return unsupported("a window of symbolic size");
    };
    if size_value < 0 {
        return invalid(format!("negative window size {size_value}"));
    }
    let out = dtype_of(int_or(c, "output_datatype", 1)? as i32).map_err(Fail::Unsupported)?;
    if !matches!(out, DType::F32 | DType::F16 | DType::BF16) {
        return unsupported(format!("a window of {out:?} elements"));
    }
    let periodic = int_or(c, "periodic", 1)? != 0;
    let denominator = if periodic { size_value } else { size_value - 1 };
    let n = positions(b, &Dim::Known(size), 1, 0)?;
    let n = cast(b, &n, DType::F32)?;
    let step = like(b, &n, std::f64::consts::PI / denominator as f64);
    let h = bin(b, "mul", &n, &step)?;
    let y = match op_type {
        "HannWindow" => {
            let s = un(b, "sin", &h)?;
            bin(b, "mul", &s, &s)?
        }
        "HammingWindow" => {
            let two = like(b, &h, 2.0);
            let h2 = bin(b, "mul", &h, &two)?;
            let k = un(b, "cos", &h2)?;
            let beta = like(b, &k, 21.0 / 46.0);
            let alpha = like(b, &k, 25.0 / 46.0);
            let t = bin(b, "mul", &k, &beta)?;
            bin(b, "sub", &alpha, &t)?
        }
        _ => {
            let s = un(b, "sin", &h)?;
            let k = un(b, "cos", &h)?;
            let s2 = bin(b, "mul", &s, &s)?;
            let k2 = bin(b, "mul", &k, &k)?;
            let f = like(b, &k2, 0.64);
            let t = bin(b, "mul", &k2, &f)?;
            let one = like(b, &t, 1.0);
            let u = bin(b, "sub", &one, &t)?;
            bin(b, "mul", &s2, &u)?
        }
    };
    Ok(vec![Some(cast(b, &y, out)?)])
}

// ---------------------------------------------------------------------------------
// CenterCropPad
// ---------------------------------------------------------------------------------

/// CenterCropPad: each listed axis (all by default) is cropped with one `slice` (start
/// `(dim - target) / 2` rounded down) or padded with zeros by one `pad` (before
/// `(target - dim) / 2` rounded down, the rest after), as the reference has it.
pub fn center_crop_pad(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = req(c, 0)?;
    let rank = x.rank();
    let shape = shape_exprs(c, 1, "the target shape")?;
    let axes = match ints_attr(c, "axes")? {
        Some(axes) => axes
            .iter()
            .map(|&a| axis_index(a, rank))
            .collect::<Result<Vec<_>, _>>()?,
        None => (0..rank).collect(),
    };
    if shape.len() != axes.len() {
        return invalid(format!(
            "CenterCropPad has {} target dims for {} axes",
            shape.len(),
            axes.len()
        ));
    }
    let mut seen = vec![false; rank];
    let (mut starts, mut ends, mut sliced) = (Vec::new(), Vec::new(), Vec::new());
    let mut pads = vec![0i64; 2 * rank];
    let mut padded = false;
    for (target, &axis) in shape.iter().zip(&axes) {
        if std::mem::replace(&mut seen[axis], true) {
            return invalid(format!("axis {axis} is listed twice"));
        }
        if x.ty.dims[axis].expr() == Some(target) {
            continue;
        }
        let (Some(dim), Some(want)) = (x.ty.dims[axis].as_const(), target.as_const()) else {
            return unsupported("CenterCropPad of a symbolic dim or to a symbolic size");
        };
        if want < 0 {
            return invalid(format!("negative target size {want}"));
        }
        if want < dim {
            let start = (dim - want) / 2;
            starts.push(start);
            ends.push(start + want);
            sliced.push(axis as i64);
        } else if want > dim {
            let before = (want - dim) / 2;
            pads[axis] = before;
            pads[rank + axis] = want - dim - before;
            padded = true;
        }
    }
    let mut y = x.clone();
    if !sliced.is_empty() {
        let steps = vec![1; sliced.len()];
        y = op(
            b,
            "slice",
            &[&y],
            &[
                ("starts", A::Ints(starts)),
                ("ends", A::Ints(ends)),
                ("axes", A::Ints(sliced)),
                ("steps", A::Ints(steps)),
            ],
            x.dtype(),
        )?;
    }
    if padded {
        let pads = pads.into_iter().map(Expr::constant).collect();
        y = op(
            b,
            "pad",
            &[&y],
            &[
                ("pads", A::Exprs(pads)),
                ("value", A::F(0.0)),
                ("mode", A::S("constant".into())),
            ],
            x.dtype(),
        )?;
    }
    Ok(vec![Some(y)])
}

// ---------------------------------------------------------------------------------
// ReverseSequence
// ---------------------------------------------------------------------------------

/// ReverseSequence: a `gather_elements` along `time_axis` whose indices are
/// `select(t < len[b], len[b] - 1 - t, t)` (positions and lengths in f32 when the time
/// axis is static and at most 2^24 long, i32 otherwise), broadcast to the input.
pub fn reverse_sequence(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, lens) = (req(c, 0)?, req(c, 1)?);
    let rank = x.rank();
    if rank < 2 {
        return invalid("ReverseSequence needs a tensor of rank >= 2");
    }
    let time = int_or(c, "time_axis", 0)?;
    let batch = int_or(c, "batch_axis", 1)?;
    if !matches!((time, batch), (0, 1) | (1, 0)) {
        return invalid(format!(
            "time_axis {time} and batch_axis {batch} must be 0 and 1 in some order"
        ));
    }
    let (time, batch) = (time as usize, batch as usize);
    if lens.rank() != 1 || lens.dtype().is_float() || lens.dtype() == DType::Bool {
        return invalid("sequence_lens must be a 1-D integer tensor");
    }
    let pos = positions(b, &x.ty.dims[time], rank, time)?;
    let len = cast(b, lens, pos.dtype())?;
    let len_axes: Vec<i64> = (0..rank as i64).filter(|&a| a != batch as i64).collect();
    let len = unsqueeze(b, &len, &len_axes)?;
    let one = like(b, &len, 1.0);
    let last = bin(b, "sub", &len, &one)?;
    let reversed = bin(b, "sub", &last, &pos)?;
    let inside = op(b, "lt", &[&pos, &len], &[], DType::Bool)?;
    let idx = op(b, "select", &[&inside, &reversed, &pos], &[], pos.dtype())?;
    let idx = cast(b, &idx, DType::I32)?;
    let idx = broadcast_to(b, &idx, x.ty.dims.clone())?;
    Ok(vec![Some(op(
        b,
        "gather_elements",
        &[x, &idx],
        &[("axis", A::I(time as i64))],
        x.dtype(),
    )?)])
}

// ---------------------------------------------------------------------------------
// Einsum
// ---------------------------------------------------------------------------------

/// The labels of one operand: letters, with `...` expanded to labels past 'z' (one
/// per broadcast dim, aligned to the right).
fn operand_labels(
    term: &str,
    rank: Option<usize>,
    ellipsis: &mut Option<usize>,
) -> Result<Vec<u32>, Fail> {
    let letters: Vec<char> = term.chars().filter(|&ch| ch != '.').collect();
    if let Some(ch) = letters.iter().find(|ch| !ch.is_ascii_alphabetic()) {
        return invalid(format!("Einsum equation has the character '{ch}'"));
    }
    let dots = term.matches("...").count();
    if dots > 1 || term.chars().filter(|&ch| ch == '.').count() != 3 * dots {
        return invalid(format!("Einsum term '{term}' has a malformed ellipsis"));
    }
    let mut labels = Vec::new();
    if dots == 0 {
        labels.extend(letters.iter().map(|&ch| ch as u32));
        return Ok(labels);
    }
    let before = term.find("...").unwrap_or(0);
    let head: Vec<u32> = term[..before].chars().map(|ch| ch as u32).collect();
    let tail: Vec<u32> = term[before + 3..].chars().map(|ch| ch as u32).collect();
    let count = match rank {
        Some(r) => {
            let Some(n) = r.checked_sub(head.len() + tail.len()) else {
                return invalid(format!("Einsum term '{term}' has more labels than dims"));
            };
            match *ellipsis {
                Some(m) if m != n => {
                    return unsupported("Einsum ellipses of different ranks (broadcasting)")
                }
                _ => *ellipsis = Some(n),
            }
            n
        }
        None => ellipsis.unwrap_or(0),
    };
    labels.extend(head);
    labels.extend((0..count as u32).map(|i| 0x1000 + i));
    labels.extend(tail);
    Ok(labels)
}

/// Einsum of one or two operands without repeated labels within an operand: labels in
/// one operand only and not in the output are summed first (`reduce_sum`); one operand
/// is then a `transpose` to the output order; two are a batched `matmul` of
/// `[batch, free_a, contracted]` by `[batch, contracted, free_b]` (each operand
/// `transpose`d and `reshape`d to 3-D), `reshape`d to `batch + free_a + free_b` and
/// `transpose`d to the output order. Half precision sums in f32.
pub fn einsum(b: &mut Builder, c: &NodeCtx) -> Converted {
    let equation: String = string_attr(c, "equation")?
        .ok_or_else(|| Fail::Invalid("Einsum needs an equation".into()))?
        .chars()
        .filter(|ch| !ch.is_whitespace())
        .collect();
    let operands: Vec<&Val> = c.inputs.iter().flatten().collect();
    let spec = EinsumLabels::parse(&equation, &operands)?;
    let dtype = operands[0].dtype();
    let mut vals = spec.sum_private_labels(b, &operands)?;
    let (y, ylabels) = match (vals.pop(), vals.pop()) {
        (Some(only), None) => only,
        (Some(r), Some(l)) => spec.contract(b, l, r, dtype)?,
        _ => return invalid("Einsum needs an input"),
    };
    let perm: Vec<usize> = spec
        .out
        .iter()
        .map(|a| ylabels.iter().position(|b| b == a).unwrap_or(0))
        .collect();
    let y = transpose(b, &y, &perm)?;
    Ok(vec![Some(cast(b, &y, dtype)?)])
}

/// The labels of an Einsum equation: of every operand, of the output, and the dim of
/// every label (equal in every operand that has it).
struct EinsumLabels {
    operands: Vec<Vec<u32>>,
    out: Vec<u32>,
    dims: Vec<(u32, Dim)>,
}

/// An operand with the labels of its dims.
type Labelled = (Val, Vec<u32>);

impl EinsumLabels {
    /// Parses and checks `equation` (whitespace removed) against the operands.
    fn parse(equation: &str, operands: &[&Val]) -> Result<Self, Fail> {
        let (lhs, rhs) = match equation.split_once("->") {
            Some((l, r)) => (l, Some(r)),
            None => (equation, None),
        };
        let terms: Vec<&str> = lhs.split(',').collect();
        if terms.len() != operands.len() {
            return invalid(format!(
                "Einsum equation has {} terms for {} inputs",
                terms.len(),
                operands.len()
            ));
        }
        if operands.len() > 2 {
            return unsupported("Einsum of more than two operands");
        }
        let mut ellipsis = None;
        let mut labels = Vec::new();
        for (term, x) in terms.iter().zip(operands) {
            let l = operand_labels(term, Some(x.rank()), &mut ellipsis)?;
            if l.len() != x.rank() {
                return invalid(format!(
                    "Einsum term '{term}' does not match rank {}",
                    x.rank()
                ));
            }
            for (i, a) in l.iter().enumerate() {
                if l[..i].contains(a) {
                    return unsupported("Einsum with a repeated label in one operand (a diagonal)");
                }
            }
            labels.push(l);
        }
        let out: Vec<u32> = match rhs {
            Some(r) => operand_labels(r, None, &mut ellipsis)?,
            None => implicit_output(&labels),
        };
        for (i, a) in out.iter().enumerate() {
            if out[..i].contains(a) || !labels.iter().any(|l| l.contains(a)) {
                return invalid(format!(
                    "Einsum output '{}' has a bad label",
                    rhs.unwrap_or("")
                ));
            }
        }
        let dims = label_dims(&labels, operands)?;
        Ok(EinsumLabels {
            operands: labels,
            out,
            dims,
        })
    }

    fn dim_of(&self, a: u32) -> Option<Dim> {
        self.dims
            .iter()
            .find(|(b, _)| *b == a)
            .map(|(_, d)| d.clone())
    }

    /// Every operand (widened) with the labels that no other operand and not the
    /// output has summed away, and its remaining labels.
    fn sum_private_labels(
        &self,
        b: &mut Builder,
        operands: &[&Val],
    ) -> Result<Vec<Labelled>, Fail> {
        let (labels, out) = (&self.operands, &self.out);
        let mut vals = Vec::new();
        for (k, x) in operands.iter().enumerate() {
            let (w, _) = widen(b, x)?;
            let only: Vec<usize> = (0..labels[k].len())
                .filter(|&i| {
                    let a = labels[k][i];
                    !out.contains(&a)
                        && labels
                            .iter()
                            .enumerate()
                            .all(|(j, l)| j == k || !l.contains(&a))
                })
                .collect();
            let w = reduce_sum(b, &w, &only)?;
            let kept: Vec<u32> = (0..labels[k].len())
                .filter(|i| !only.contains(i))
                .map(|i| labels[k][i])
                .collect();
            vals.push((w, kept));
        }
        Ok(vals)
    }

    /// The product of two operands as one batched `matmul` (in `dtype`), with the
    /// labels of its dims: batch, then the free labels of `l`, then those of `r`.
    fn contract(
        &self,
        b: &mut Builder,
        (l, ll): Labelled,
        (r, rl): Labelled,
        dtype: DType,
    ) -> Result<Labelled, Fail> {
        let out = &self.out;
        let batch: Vec<u32> = ll
            .iter()
            .copied()
            .filter(|a| rl.contains(a) && out.contains(a))
            .collect();
        let contracted: Vec<u32> = ll
            .iter()
            .copied()
            .filter(|a| rl.contains(a) && !out.contains(a))
            .collect();
        let free_l: Vec<u32> = ll.iter().copied().filter(|a| !rl.contains(a)).collect();
        let free_r: Vec<u32> = rl.iter().copied().filter(|a| !ll.contains(a)).collect();
        let pos = |labels: &[u32], order: &[&[u32]]| -> Vec<usize> {
            order
                .iter()
                .flat_map(|g| g.iter())
                .map(|a| labels.iter().position(|b| b == a).unwrap_or(0))
                .collect()
        };
        let group = |g: &[u32]| -> Result<Dim, Fail> {
            let ds: Vec<Dim> = g.iter().filter_map(|&a| self.dim_of(a)).collect();
            product(&ds)
        };
        let (bd, md, kd, nd) = (
            group(&batch)?,
            group(&free_l)?,
            group(&contracted)?,
            group(&free_r)?,
        );
        let lt = transpose(b, &l, &pos(&ll, &[&batch, &free_l, &contracted]))?;
        let lt = reshape(b, &lt, vec![bd.clone(), md, kd.clone()])?;
        let rt = transpose(b, &r, &pos(&rl, &[&batch, &contracted, &free_r]))?;
        let rt = reshape(b, &rt, vec![bd, kd, nd])?;
        let lt = cast(b, &lt, dtype)?;
        let rt = cast(b, &rt, dtype)?;
        let m = op(
            b,
            "matmul",
            &[&lt, &rt],
            &[("transpose_a", A::B(false)), ("transpose_b", A::B(false))],
            dtype,
        )?;
        let ylabels: Vec<u32> = batch
            .iter()
            .chain(&free_l)
            .chain(&free_r)
            .copied()
            .collect();
        let ydims: Vec<Dim> = ylabels.iter().filter_map(|&a| self.dim_of(a)).collect();
        Ok((reshape(b, &m, ydims)?, ylabels))
    }
}

/// The implicit output of an equation without `->`: the broadcast dims, then the labels
/// used once, sorted.
fn implicit_output(labels: &[Vec<u32>]) -> Vec<u32> {
    let all: Vec<u32> = labels.iter().flatten().copied().collect();
    let mut once: Vec<u32> = all
        .iter()
        .copied()
        .filter(|a| all.iter().filter(|b| *b == a).count() == 1)
        .collect();
    once.sort_by_key(|&a| (a < 0x1000, a));
    once
}

/// The dim of every label, in order of first appearance; a label's dims must be equal
/// in every operand that has it.
fn label_dims(labels: &[Vec<u32>], operands: &[&Val]) -> Result<Vec<(u32, Dim)>, Fail> {
    let mut dims: Vec<(u32, Dim)> = Vec::new();
    for (l, x) in labels.iter().zip(operands) {
        for (a, d) in l.iter().zip(&x.ty.dims) {
            match dims.iter().find(|(b, _)| b == a) {
                Some((_, e)) if e != d => {
                    return unsupported("Einsum dims that differ (broadcasting) for one label")
                }
                Some(_) => {}
                None => dims.push((*a, d.clone())),
            }
        }
    }
    Ok(dims)
}

// ---------------------------------------------------------------------------------
// LRN
// ---------------------------------------------------------------------------------

/// LRN: the squares `pad`ded with zeros on the channel axis (`floor((size-1)/2)` before,
/// `ceil((size-1)/2)` after), the window sum as the sum of `size` shifted `slice`s,
/// `x / exp(beta * log(bias + alpha / size * sum))` (in f32).
pub fn lrn(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x0 = req(c, 0)?;
    if x0.rank() < 2 {
        return invalid("LRN needs a tensor of rank >= 2");
    }
    let size = match attr(c, "size", &[at::INT], "an INT")? {
        Some(a) => a.i,
        None => return invalid("LRN needs a size"),
    };
    if size < 1 {
        return invalid(format!("LRN size {size} must be positive"));
    }
    let alpha = float_or(c, "alpha", 1e-4)?;
    let beta = float_or(c, "beta", 0.75)?;
    let bias = float_or(c, "bias", 1.0)?;
    let (x, back) = widen(b, x0)?;
    let rank = x.rank();
    let channels = x.ty.dims[1]
        .expr()
        .cloned()
        .ok_or_else(|| Fail::Unsupported("LRN of a channel dim without a symbol".into()))?;
    let sq = bin(b, "mul", &x, &x)?;
    let (before, after) = ((size - 1) / 2, size - 1 - (size - 1) / 2);
    let sum = if size == 1 {
        sq
    } else {
        let mut pads = vec![Expr::constant(0); 2 * rank];
        pads[1] = Expr::constant(before);
        pads[rank + 1] = Expr::constant(after);
        let padded = op(
            b,
            "pad",
            &[&sq],
            &[
                ("pads", A::Exprs(pads)),
                ("value", A::F(0.0)),
                ("mode", A::S("constant".into())),
            ],
            x.dtype(),
        )?;
        let mut acc: Option<Val> = None;
        for k in 0..size {
            let part = op(
                b,
                "slice",
                &[&padded],
                &[
                    ("starts", A::Exprs(vec![Expr::constant(k)])),
                    ("ends", A::Exprs(vec![channels.clone() + Expr::constant(k)])),
                    ("axes", A::Ints(vec![1])),
                    ("steps", A::Ints(vec![1])),
                ],
                x.dtype(),
            )?;
            acc = Some(match acc {
                None => part,
                Some(a) => bin(b, "add", &a, &part)?,
            });
        }
        match acc {
            Some(a) => a,
            None => return invalid("LRN size must be positive"),
        }
    };
    let scale = like(b, &sum, alpha / size as f64);
    let scaled = bin(b, "mul", &sum, &scale)?;
    let k = like(b, &scaled, bias);
    let base = bin(b, "add", &scaled, &k)?;
    let l = un(b, "log", &base)?;
    let bv = like(b, &l, beta);
    let e = bin(b, "mul", &l, &bv)?;
    let p = un(b, "exp", &e)?;
    let y = bin(b, "div", &x, &p)?;
    Ok(vec![Some(cast(b, &y, back)?)])
}
