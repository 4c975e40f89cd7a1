//! Converters of the attention, quantization and remaining vector operators (issue 19):
//! Attention, RotaryEmbedding, QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
//! SwiGLU, Acos, Asin, Atan, CumProd and BitShift. Each is an exact decomposition into
//! existing `ascend` ops (matmuls stay `ascend.matmul`, everything else is vector ops);
//! `docs/onnx.md` describes the mappings. `ops::convert` dispatches here.

use super::data::{dtype_of, Values};
use super::emit::{Builder, Val, A};
use super::ops::NodeCtx;
use super::ops::{
    broadcast_to, index_range, invalid, like, narrow, one, reshape, unsupported, widen,
};
use super::ops::{input, req, wants};
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

fn int_attr(c: &NodeCtx, name: &str) -> Result<Option<i64>, Fail> {
    Ok(attr(c, name, &[at::INT], "an INT")?.map(|a| a.i))
}

fn int_or(c: &NodeCtx, name: &str, default: i64) -> Result<i64, Fail> {
    Ok(int_attr(c, name)?.unwrap_or(default))
}

fn float_attr(c: &NodeCtx, name: &str) -> Result<Option<f64>, Fail> {
    Ok(
        attr(c, name, &[at::FLOAT, at::INT], "a FLOAT")?.map(|a| match a.r#type {
            t if t == at::INT => a.i as f64,
            _ => a.f as f64,
        }),
    )
}

fn string_attr(c: &NodeCtx, name: &str) -> Result<Option<String>, Fail> {
    Ok(attr(c, name, &[at::STRING], "a STRING")?
        .map(|a| String::from_utf8_lossy(&a.s).into_owned()))
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

fn cmp(b: &mut Builder, name: &str, x: &Val, y: &Val) -> Result<Val, Fail> {
    op(b, name, &[x, y], &[], DType::Bool)
}

fn select(b: &mut Builder, cond: &Val, t: &Val, f: &Val) -> Result<Val, Fail> {
    op(b, "select", &[cond, t, f], &[], t.dtype())
}

fn cast(b: &mut Builder, x: &Val, dtype: DType) -> Result<Val, Fail> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    op(b, "cast", &[x], &[], dtype)
}

fn unsqueeze(b: &mut Builder, x: &Val, axes: &[i64]) -> Result<Val, Fail> {
    op(
        b,
        "unsqueeze",
        &[x],
        &[("axes", A::Ints(axes.to_vec()))],
        x.dtype(),
    )
}

fn transpose(b: &mut Builder, x: &Val, perm: &[i64]) -> Result<Val, Fail> {
    op(
        b,
        "transpose",
        &[x],
        &[("perm", A::Ints(perm.to_vec()))],
        x.dtype(),
    )
}

fn concat(b: &mut Builder, x: &Val, y: &Val, axis: i64) -> Result<Val, Fail> {
    op(b, "concat", &[x, y], &[("axis", A::I(axis))], x.dtype())
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

/// `x[..., start:end:step]` along `axis` (static bounds).
fn slice(
    b: &mut Builder,
    x: &Val,
    axis: i64,
    start: i64,
    end: i64,
    step: i64,
) -> Result<Val, Fail> {
    op(
        b,
        "slice",
        &[x],
        &[
            ("starts", A::Ints(vec![start])),
            ("ends", A::Ints(vec![end])),
            ("axes", A::Ints(vec![axis])),
            ("steps", A::Ints(vec![step])),
        ],
        x.dtype(),
    )
}

/// The symbolic expression of a dim.
fn dim_expr(d: &Dim) -> Result<Expr, Fail> {
    d.expr()
        .cloned()
        .ok_or_else(|| Fail::Unsupported("a dim without a symbol".into()))
}

/// The static size of a dim, or an unsupported form naming `what`.
fn static_dim(d: &Dim, what: &str) -> Result<i64, Fail> {
    d.as_const()
        .ok_or_else(|| Fail::Unsupported(format!("{what} is not static")))
}

/// `e / k` for a dim that `k` must divide.
fn div_dim(e: &Expr, k: i64, what: &str) -> Result<Expr, Fail> {
    if k <= 0 {
        return invalid(format!("{what}: the divisor {k} must be positive"));
    }
    match e.as_const() {
        Some(n) if n % k != 0 => invalid(format!("{what} {n} is not a multiple of {k}")),
        Some(n) => Ok(Expr::constant(n / k)),
        None => Ok(e.floor_div(&Expr::constant(k))),
    }
}

/// -inf of `dtype`, computed as `log(0)`: non-finite dense literals are written as bit
/// patterns, which the attribute reader takes for integers.
fn neg_inf(b: &mut Builder, dtype: DType) -> Result<Val, Fail> {
    let zero = b.scalar(dtype, 0.0);
    un(b, "log", &zero)
}

// ---------------------------------------------------------------------------------
// Attention
// ---------------------------------------------------------------------------------

/// `[batch, seq, heads * size]` -> `[batch, heads, seq, size]`.
fn split_heads(b: &mut Builder, x: &Val, heads: i64, what: &str) -> Result<Val, Fail> {
    let d = &x.ty.dims;
    let size = div_dim(&dim_expr(&d[2])?, heads, what)?;
    let split = vec![
        d[0].clone(),
        d[1].clone(),
        Dim::constant(heads),
        Dim::Known(size),
    ];
    let r = reshape(b, x, split)?;
    transpose(b, &r, &[0, 2, 1, 3])
}

/// `[batch, kv_heads, len, size]` with every head repeated `reps` times in place
/// (`h0, h0, h1, h1, ...`, numpy's `repeat` along axis 1).
fn repeat_heads(b: &mut Builder, x: &Val, reps: i64) -> Result<Val, Fail> {
    if reps == 1 {
        return Ok(x.clone());
    }
    let d = x.ty.dims.clone();
    let heads = static_dim(&d[1], "the number of kv heads")?;
    let u = unsqueeze(b, x, &[2])?;
    let wide = vec![
        d[0].clone(),
        d[1].clone(),
        Dim::constant(reps),
        d[2].clone(),
        d[3].clone(),
    ];
    let e = broadcast_to(b, &u, wide)?;
    reshape(
        b,
        &e,
        vec![
            d[0].clone(),
            Dim::constant(heads * reps),
            d[2].clone(),
            d[3].clone(),
        ],
    )
}

/// The causal/window offset of the query block: none (0), the past length (one
/// scalar), or `nonpad_kv_seqlen - q_len` per batch (`[batch, 1, 1]`).
enum Offset {
    Scalar(Expr),
    PerBatch(Val),
}

/// `i + offset` for the query rows `i` of `[q, 1]` (`[batch, q, 1]` per batch).
fn shifted_rows(b: &mut Builder, q_len: &Dim, offset: &Offset) -> Result<Val, Fail> {
    let i = index_range(b, q_len.clone())?;
    let i = unsqueeze(b, &i, &[1])?;
    match offset {
        Offset::Scalar(e) if e.as_const() == Some(0) => Ok(i),
        Offset::Scalar(e) => {
            let o = b.symbolic(DType::I64, &[], vec![e.clone()]);
            bin(b, "add", &i, &o)
        }
        Offset::PerBatch(o) => bin(b, "add", &i, o),
    }
}

/// A bias of 0 where `allowed`, -inf elsewhere; a per-batch `[batch, q, kv]` gains the
/// head axis (`[batch, 1, q, kv]`), as the reference has it.
fn allowed_bias(b: &mut Builder, allowed: &Val, zero: &Val, ninf: &Val) -> Result<Val, Fail> {
    let bias = select(b, allowed, zero, ninf)?;
    if bias.rank() == 3 {
        return unsqueeze(b, &bias, &[1]);
    }
    Ok(bias)
}

fn add_bias(b: &mut Builder, acc: Option<Val>, term: Val) -> Result<Option<Val>, Fail> {
    Ok(Some(match acc {
        None => term,
        Some(a) => bin(b, "add", &a, &term)?,
    }))
}

/// The dtype `softmax_precision` names (double computes in f32, the widest type the
/// compiler has; the difference is far below the suite's tolerance).
fn precision_dtype(code: i64) -> Result<DType, Fail> {
    match code {
        11 => Ok(DType::F32),
        _ => match dtype_of(code as i32) {
            Ok(d) if d.is_float() => Ok(d),
            Ok(_) => invalid(format!(
                "softmax_precision {code} is not a floating-point type"
            )),
            Err(e) => unsupported(e),
        },
    }
}

/// Attention (opsets 23-25): scaled dot-product attention with optional mask, KV cache,
/// causal and sliding-window masks, padding lengths, softcap and grouped-query heads.
/// The two products are `ascend.matmul`; the scaling, biases, softmax, head
/// repetition and the guard of fully masked rows are vector ops.
pub fn attention(b: &mut Builder, c: &NodeCtx) -> Converted {
    let inputs = attention_inputs(b, c)?;
    let operands = attention_operands(b, c, &inputs)?;
    let (capped, cd) = capped_scores(b, c, &operands, inputs.dtype)?;
    let masks = Masks {
        q_len: inputs.q.ty.dims[2].clone(),
        kv_len: operands.present_k.ty.dims[2].clone(),
        zero: b.scalar(cd, 0.0),
        ninf: neg_inf(b, cd)?,
    };
    let bias = attention_bias(b, c, &inputs, &masks)?;
    let with_bias = match &bias {
        Some(bias) => bin(b, "add", &capped, bias)?,
        None => capped.clone(),
    };
    let probs = attention_probs(b, c, &with_bias, bias.as_ref(), &masks.ninf, cd)?;
    let p = cast(b, &probs, inputs.dtype)?;
    let y = attention_output(b, &p, &operands.v_rep, &inputs)?;
    let mut outs = vec![Some(y), None, None, None];
    if wants(c, 1) {
        outs[1] = Some(operands.present_k);
    }
    if wants(c, 2) {
        outs[2] = Some(operands.present_v);
    }
    if wants(c, 3) {
        let qk = qk_output(c, capped, with_bias, probs)?;
        outs[3] = Some(cast(b, &qk, inputs.dtype)?);
    }
    Ok(outs)
}

/// Q, K and V of an Attention node as `[batch, heads, seq, head_size]`, with the
/// optional cache and padding-length inputs, checked against each other.
struct AttentionInputs<'a> {
    rank: usize,
    dtype: DType,
    q: Val,
    k: Val,
    v: Val,
    past_k: Option<&'a Val>,
    past_v: Option<&'a Val>,
    nonpad: Option<&'a Val>,
}

/// Checks the ranks and types of Q, K and V, splits 3-D ones into heads, and checks
/// the cache and padding inputs.
fn attention_inputs<'a>(b: &mut Builder, c: &'a NodeCtx) -> Result<AttentionInputs<'a>, Fail> {
    let (q0, k0, v0) = (req(c, 0)?, req(c, 1)?, req(c, 2)?);
    let rank = q0.rank();
    if k0.rank() != rank || v0.rank() != rank || !(rank == 3 || rank == 4) {
        return invalid(format!(
            "Q, K and V must all be of rank 3 or 4, not {}, {} and {}",
            q0.rank(),
            k0.rank(),
            v0.rank()
        ));
    }
    let dtype = q0.dtype();
    if !dtype.is_float() {
        return invalid("Attention needs floating-point Q, K and V");
    }
    let (q_heads_attr, kv_heads_attr) = (int_attr(c, "q_num_heads")?, int_attr(c, "kv_num_heads")?);
    let (q, k, v) = if rank == 3 {
        let (Some(qh), Some(kvh)) = (q_heads_attr, kv_heads_attr) else {
            return invalid("3-D Attention needs q_num_heads and kv_num_heads");
        };
        if qh <= 0 || kvh <= 0 {
            return invalid("q_num_heads and kv_num_heads must be positive");
        }
        (
            split_heads(b, q0, qh, "Q's hidden size")?,
            split_heads(b, k0, kvh, "K's hidden size")?,
            split_heads(b, v0, kvh, "V's hidden size")?,
        )
    } else {
        if c.opset >= 25 && (q_heads_attr.is_some() || kv_heads_attr.is_some()) {
            return invalid("q_num_heads and kv_num_heads must not be given for 4-D inputs");
        }
        (q0.clone(), k0.clone(), v0.clone())
    };
    let (past_k, past_v) = (input(c, 4), input(c, 5));
    if past_k.is_some() != past_v.is_some() {
        return invalid("past_key and past_value must be given together");
    }
    let nonpad = if c.opset >= 24 { input(c, 6) } else { None };
    if nonpad.is_some() && past_k.is_some() {
        return invalid("nonpad_kv_seqlen cannot be combined with past_key/past_value");
    }
    for (name, p) in [("past_key", past_k), ("past_value", past_v)] {
        if p.is_some_and(|p| p.rank() != 4) {
            return invalid(format!("{name} must be of rank 4"));
        }
    }
    Ok(AttentionInputs {
        rank,
        dtype,
        q,
        k,
        v,
        past_k,
        past_v,
        nonpad,
    })
}

/// The operands of the two products: the scaled queries, the present (cache plus new)
/// keys and values, and the scaled keys and the values repeated to the query heads.
struct AttentionOperands {
    qs: Val,
    present_k: Val,
    present_v: Val,
    k_rep: Val,
    v_rep: Val,
}

/// Scales Q and K, appends K and V to the cache, and repeats the kv heads for
/// grouped-query attention.
fn attention_operands(
    b: &mut Builder,
    c: &NodeCtx,
    inputs: &AttentionInputs,
) -> Result<AttentionOperands, Fail> {
    let AttentionInputs { q, k, v, .. } = inputs;
    // Scale: sqrt(scale) on both Q and K, rounded to Q's type (as the reference does).
    let head_size = static_dim(&q.ty.dims[3], "the head size")?;
    let scale = match float_attr(c, "scale")? {
        Some(s) => s,
        None => 1.0 / (head_size as f64).sqrt(),
    };
    let s = b.scalar(inputs.dtype, scale.sqrt());
    let qs = bin(b, "mul", q, &s)?;

    // The KV cache: past and new along the sequence axis.
    let present_k = match inputs.past_k {
        Some(p) => concat(b, p, k, 2)?,
        None => k.clone(),
    };
    let present_v = match inputs.past_v {
        Some(p) => concat(b, p, v, 2)?,
        None => v.clone(),
    };
    let ks = bin(b, "mul", &present_k, &s)?;

    // Grouped-query attention: every kv head serves q_heads / kv_heads query heads.
    let q_heads = static_dim(&q.ty.dims[1], "the number of query heads")?;
    let kv_heads = static_dim(&present_k.ty.dims[1], "the number of kv heads")?;
    if present_v.ty.dims[1].as_const() != Some(kv_heads) {
        return invalid("K and V must have the same number of heads");
    }
    if q_heads % kv_heads != 0 {
        return invalid(format!(
            "{q_heads} query heads are not a multiple of {kv_heads} kv heads"
        ));
    }
    let reps = q_heads / kv_heads;
    let k_rep = repeat_heads(b, &ks, reps)?;
    let v_rep = repeat_heads(b, &present_v, reps)?;
    Ok(AttentionOperands {
        qs,
        present_k,
        present_v,
        k_rep,
        v_rep,
    })
}

/// Q·Kᵀ in the compute type (f32 for half precision: the vector part computes in it),
/// softcapped when `softcap` asks; with the compute type.
fn capped_scores(
    b: &mut Builder,
    c: &NodeCtx,
    operands: &AttentionOperands,
    dtype: DType,
) -> Result<(Val, DType), Fail> {
    let scores = b.op(
        "matmul",
        &[&operands.qs, &operands.k_rep],
        &[("transpose_a", A::B(false)), ("transpose_b", A::B(true))],
        dtype,
        None,
    )?;
    let (mut x, _) = widen(b, &scores)?;
    let cd = x.dtype();
    let softcap = float_attr(c, "softcap")?.unwrap_or(0.0);
    if softcap > 0.0 {
        let sc = b.scalar(cd, softcap);
        let d = bin(b, "div", &x, &sc)?;
        let t = un(b, "tanh", &d)?;
        x = bin(b, "mul", &t, &sc)?;
    }
    Ok((x, cd))
}

/// What the additive biases of the scores are built from: the query and key lengths
/// and the 0 (attended) and -inf (masked) of the compute type.
struct Masks {
    q_len: Dim,
    kv_len: Dim,
    zero: Val,
    ninf: Val,
}

/// The additive bias of the scores, the sum of the attn_mask, causal, sliding-window
/// and padding-length biases the node asks for (`None` for none).
fn attention_bias(
    b: &mut Builder,
    c: &NodeCtx,
    inputs: &AttentionInputs,
    masks: &Masks,
) -> Result<Option<Val>, Fail> {
    let mut bias: Option<Val> = None;
    if let Some(m) = input(c, 3) {
        if m.rank() == 0 {
            return invalid("attn_mask must have rank >= 1");
        }
        bias = Some(mask_bias(b, m, &masks.kv_len, &masks.zero, &masks.ninf)?);
    }
    let window = PositionMask::of(c)?;
    let offset = query_offset(b, inputs, &masks.q_len)?;
    if window.causal || window.left >= 0 || window.right >= 0 {
        bias = window.bias(b, masks, &offset, bias)?;
    }
    if let Some(n) = inputs.nonpad {
        // Keys at or beyond a batch's length are masked: [batch, 1, 1, kv].
        let n = cast(b, n, DType::I64)?;
        let n = unsqueeze(b, &n, &[1])?;
        let j = index_range(b, masks.kv_len.clone())?;
        let j = unsqueeze(b, &j, &[0])?;
        let keep = cmp(b, "lt", &j, &n)?;
        let term = select(b, &keep, &masks.zero, &masks.ninf)?;
        let term = unsqueeze(b, &term, &[1, 2])?;
        bias = add_bias(b, bias, term)?;
    }
    Ok(bias)
}

/// The position of the first query row among the keys: the past length with a cache,
/// `nonpad_kv_seqlen - q_len` per batch with padding lengths, 0 otherwise.
fn query_offset(b: &mut Builder, inputs: &AttentionInputs, q_len: &Dim) -> Result<Offset, Fail> {
    Ok(match (inputs.past_k, inputs.nonpad) {
        (Some(p), _) => Offset::Scalar(dim_expr(&p.ty.dims[2])?),
        (None, Some(n)) => {
            if n.rank() != 1 || n.dtype().is_float() {
                return invalid("nonpad_kv_seqlen must be a 1-D integer tensor");
            }
            let n = cast(b, n, DType::I64)?;
            let ql = b.symbolic(DType::I64, &[], vec![dim_expr(q_len)?]);
            let o = bin(b, "sub", &n, &ql)?;
            Offset::PerBatch(unsqueeze(b, &o, &[1, 2])?)
        }
        (None, None) => Offset::Scalar(Expr::constant(0)),
    })
}

/// The masks by position: causal, and a sliding window of `left` keys before and
/// `right` after the query's position (-1: unbounded).
struct PositionMask {
    causal: bool,
    left: i64,
    right: i64,
}

impl PositionMask {
    /// `is_causal` and, from opset 25, the window sizes.
    fn of(c: &NodeCtx) -> Result<Self, Fail> {
        let causal = int_or(c, "is_causal", 0)? != 0;
        let (left, right) = if c.opset >= 25 {
            (
                int_or(c, "left_window_size", -1)?,
                int_or(c, "right_window_size", -1)?,
            )
        } else {
            (-1, -1)
        };
        if left < -1 || right < -1 {
            return invalid("window sizes must be -1 or nonnegative");
        }
        Ok(PositionMask {
            causal,
            left,
            right,
        })
    }

    /// `bias` plus the causal and window biases.
    fn bias(
        &self,
        b: &mut Builder,
        masks: &Masks,
        offset: &Offset,
        mut bias: Option<Val>,
    ) -> Result<Option<Val>, Fail> {
        let (left, right) = (self.left, self.right);
        let rows = shifted_rows(b, &masks.q_len, offset)?;
        let j = index_range(b, masks.kv_len.clone())?;
        let j = unsqueeze(b, &j, &[0])?;
        if self.causal {
            // Query i attends key j iff j <= i + offset.
            let allowed = cmp(b, "le", &j, &rows)?;
            let term = allowed_bias(b, &allowed, &masks.zero, &masks.ninf)?;
            bias = add_bias(b, bias, term)?;
        }
        if left >= 0 || right >= 0 {
            // p - left <= j <= p + right with p = i + offset.
            let diff = bin(b, "sub", &rows, &j)?;
            let mut allowed: Option<Val> = None;
            if left >= 0 {
                let l = b.scalar(DType::I64, left as f64);
                let a = cmp(b, "le", &diff, &l)?;
                allowed = Some(a);
            }
            if right >= 0 {
                let r = b.scalar(DType::I64, -right as f64);
                let a = cmp(b, "ge", &diff, &r)?;
                allowed = Some(match allowed {
                    Some(prev) => op(b, "logical_and", &[&prev, &a], &[], DType::Bool)?,
                    None => a,
                });
            }
            if let Some(allowed) = allowed {
                let term = allowed_bias(b, &allowed, &masks.zero, &masks.ninf)?;
                bias = add_bias(b, bias, term)?;
            }
        }
        Ok(bias)
    }
}

/// The softmax over the keys in `softmax_precision` (default: the compute type `cd`).
fn attention_probs(
    b: &mut Builder,
    c: &NodeCtx,
    with_bias: &Val,
    bias: Option<&Val>,
    ninf: &Val,
    cd: DType,
) -> Result<Val, Fail> {
    let precision = match int_attr(c, "softmax_precision")? {
        Some(code) => precision_dtype(code)?,
        None => cd,
    };
    let logits = cast(b, with_bias, precision)?;
    let mut probs = op(b, "softmax", &[&logits], &[("axis", A::I(-1))], precision)?;
    if let Some(bias) = bias {
        // A row whose bias is -inf everywhere attends nothing: its probabilities are 0
        // (decided on the bias, not on the possibly NaN logits).
        let row_max = reduce(b, "reduce_max", bias, &[-1], true)?;
        let ninf_b = cast(b, ninf, bias.dtype())?;
        let masked = cmp(b, "eq", &row_max, &ninf_b)?;
        let z = b.scalar(precision, 0.0);
        probs = select(b, &masked, &z, &probs)?;
    }
    Ok(probs)
}

/// P·V, with the heads merged back into the hidden size for 3-D inputs.
fn attention_output(
    b: &mut Builder,
    p: &Val,
    v_rep: &Val,
    inputs: &AttentionInputs,
) -> Result<Val, Fail> {
    let y = b.op(
        "matmul",
        &[p, v_rep],
        &[("transpose_a", A::B(false)), ("transpose_b", A::B(false))],
        inputs.dtype,
        None,
    )?;
    if inputs.rank != 3 {
        return Ok(y);
    }
    let t = transpose(b, &y, &[0, 2, 1, 3])?;
    let d = t.ty.dims.clone();
    let hidden = dim_expr(&d[2])? * dim_expr(&d[3])?;
    reshape(b, &t, vec![d[0].clone(), d[1].clone(), Dim::Known(hidden)])
}

/// The optional fourth output by `qk_matmul_output_mode`: modes 0 and 1 expose the
/// (softcapped) product, 2 with the bias, 3 the probabilities, as the reference
/// evaluator has them.
fn qk_output(c: &NodeCtx, capped: Val, with_bias: Val, probs: Val) -> Result<Val, Fail> {
    Ok(match int_or(c, "qk_matmul_output_mode", 0)? {
        0 | 1 => capped,
        2 => with_bias,
        3 => probs,
        m => return invalid(format!("unknown qk_matmul_output_mode {m}")),
    })
}

/// attn_mask as an additive bias of `zero`'s dtype: a bool mask is 0 where true and
/// -inf where false, a float mask is added as it is; a mask shorter than the keys is
/// padded with false/-inf.
fn mask_bias(b: &mut Builder, m: &Val, kv_len: &Dim, zero: &Val, ninf: &Val) -> Result<Val, Fail> {
    let last = m.rank() - 1;
    let m_len = dim_expr(&m.ty.dims[last])?;
    let kv = dim_expr(kv_len)?;
    let pad = if m_len == kv {
        0
    } else {
        match (m_len.as_const(), kv.as_const()) {
            (Some(a), Some(k)) if a < k => k - a,
            (Some(a), Some(k)) => {
                return invalid(format!("attn_mask has {a} keys, more than the {k} of K"))
            }
            _ => return unsupported("attn_mask shorter than the keys by a symbolic length"),
        }
    };
    let rank = m.rank();
    let padded = |b: &mut Builder, x: &Val| -> Result<Val, Fail> {
        if pad == 0 {
            return Ok(x.clone());
        }
        let mut pads = vec![Expr::constant(0); 2 * rank];
        pads[rank + last] = Expr::constant(pad);
        Ok(b.op(
            "pad",
            &[x],
            &[
                ("pads", A::Exprs(pads)),
                ("value", A::F(0.0)),
                ("mode", A::S("constant".into())),
            ],
            x.dtype(),
            None,
        )?)
    };
    if m.dtype() == DType::Bool {
        // Padding with false masks the extra keys.
        let mp = padded(b, m)?;
        return select(b, &mp, zero, ninf);
    }
    if !m.dtype().is_float() {
        return invalid("attn_mask must be bool or floating-point");
    }
    let mf = cast(b, m, zero.dtype())?;
    let mp = padded(b, &mf)?;
    if pad == 0 {
        return Ok(mp);
    }
    // The padded keys get -inf (the pad op takes finite values only).
    let j = index_range(b, kv_len.clone())?;
    let limit = b.scalar(
        DType::I64,
        (dim_expr(kv_len)?.as_const().unwrap_or(0) - pad) as f64,
    );
    let inside = cmp(b, "lt", &j, &limit)?;
    select(b, &inside, &mp, ninf)
}

// ---------------------------------------------------------------------------------
// RotaryEmbedding
// ---------------------------------------------------------------------------------

/// RotaryEmbedding (opset 23): rotates the first `rotary_embedding_dim` features of
/// every head by the cached cos/sin of its position (gathered by `position_ids`, or
/// given per batch and position), halves or interleaved pairs.
pub fn rotary_embedding(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x0 = req(c, 0)?;
    let (cos0, sin0) = (req(c, 1)?, req(c, 2)?);
    let (x, back) = widen(b, x0)?;
    let dims = x.ty.dims.clone();
    // Work on [B, H, S, D] (4-D input) or [B, S, H, D] (3-D input split into heads);
    // cos/sin [B, S, half] gain the head axis at `head_axis`.
    let (xv, head_axis) = match x.rank() {
        4 => (x.clone(), 1),
        3 => {
            let heads = match int_attr(c, "num_heads")? {
                Some(h) if h > 0 => h,
                _ => return invalid("RotaryEmbedding of a 3-D input needs num_heads"),
            };
            let size = div_dim(&dim_expr(&dims[2])?, heads, "the hidden size")?;
            let split = vec![
                dims[0].clone(),
                dims[1].clone(),
                Dim::constant(heads),
                Dim::Known(size),
            ];
            (reshape(b, &x, split)?, 2)
        }
        r => {
            return invalid(format!(
                "RotaryEmbedding needs a 3-D or 4-D input, not rank {r}"
            ))
        }
    };
    let head_size = static_dim(&xv.ty.dims[3], "the head size")?;
    let rd = match int_or(c, "rotary_embedding_dim", 0)? {
        0 => head_size,
        d if d > 0 && d <= head_size && d % 2 == 0 => d,
        d => {
            return invalid(format!(
                "rotary_embedding_dim {d} does not fit head size {head_size}"
            ))
        }
    };
    let half = rd / 2;
    let interleaved = int_or(c, "interleaved", 0)? != 0;
    let (cos, sin) = match input(c, 3) {
        Some(pos) => {
            if cos0.rank() != 2 || sin0.rank() != 2 {
                return invalid("with position_ids, cos_cache and sin_cache must be 2-D");
            }
            let g = |b: &mut Builder, t: &Val| {
                op(b, "gather", &[t, pos], &[("axis", A::I(0))], t.dtype())
            };
            (g(b, cos0)?, g(b, sin0)?)
        }
        None => {
            if cos0.rank() != 3 || sin0.rank() != 3 {
                return invalid("without position_ids, cos_cache and sin_cache must be 3-D");
            }
            (cos0.clone(), sin0.clone())
        }
    };
    for t in [&cos, &sin] {
        if t.ty.dims.last().and_then(Dim::as_const) != Some(half) {
            return invalid(format!(
                "the last dim of the cos/sin caches must be rotary_embedding_dim / 2 = {half}"
            ));
        }
    }
    let cos = cast(b, &cos, xv.dtype())?;
    let sin = cast(b, &sin, xv.dtype())?;
    let cos = unsqueeze(b, &cos, &[head_axis])?;
    let sin = unsqueeze(b, &sin, &[head_axis])?;
    let rot = if rd == head_size {
        xv.clone()
    } else {
        slice(b, &xv, 3, 0, rd, 1)?
    };
    let (x1, x2) = if interleaved {
        (slice(b, &rot, 3, 0, rd, 2)?, slice(b, &rot, 3, 1, rd, 2)?)
    } else {
        (
            slice(b, &rot, 3, 0, half, 1)?,
            slice(b, &rot, 3, half, rd, 1)?,
        )
    };
    let (c1, s2) = (bin(b, "mul", &cos, &x1)?, bin(b, "mul", &sin, &x2)?);
    let real = bin(b, "sub", &c1, &s2)?;
    let (s1, c2) = (bin(b, "mul", &sin, &x1)?, bin(b, "mul", &cos, &x2)?);
    let imag = bin(b, "add", &s1, &c2)?;
    let rotated = if interleaved {
        let r = unsqueeze(b, &real, &[-1])?;
        let i = unsqueeze(b, &imag, &[-1])?;
        let pairs = concat(b, &r, &i, -1)?;
        let mut d = rot.ty.dims.clone();
        d[3] = Dim::constant(rd);
        reshape(b, &pairs, d)?
    } else {
        concat(b, &real, &imag, -1)?
    };
    let out = if rd == head_size {
        rotated
    } else {
        let pass = slice(b, &xv, 3, rd, head_size, 1)?;
        concat(b, &rotated, &pass, -1)?
    };
    let out = reshape(b, &out, dims)?;
    one(narrow(b, out, back)?)
}

// ---------------------------------------------------------------------------------
// Quantization
// ---------------------------------------------------------------------------------

/// The integer range of a quantized type.
fn quant_range(dtype: DType) -> Result<(f64, f64), Fail> {
    match dtype {
        DType::U8 => Ok((0.0, 255.0)),
        DType::I8 => Ok((-128.0, 127.0)),
        DType::I16 => Ok((-32768.0, 32767.0)),
        other => unsupported(format!("quantization to {other}")),
    }
}

/// A scale or zero point made broadcastable to `x`: a scalar or one-element tensor as
/// a scalar, a 1-D per-axis vector as `[1, .., C, .., 1]`, a blocked one repeated
/// `block_size` times along `axis` (a remainder block cut to x's extent).
fn per_axis(b: &mut Builder, v: &Val, x: &Val, axis: i64, block: i64) -> Result<Val, Fail> {
    let rank = x.rank();
    let r = rank as i64;
    let count =
        v.ty.dims
            .iter()
            .try_fold(1i64, |acc, d| d.as_const().map(|n| acc * n));
    if v.rank() == 0 {
        return Ok(v.clone());
    }
    if count == Some(1) {
        return reshape(b, v, vec![]);
    }
    if axis < -r || axis >= r {
        return invalid(format!("axis {axis} is out of range for rank {rank}"));
    }
    let axis = if axis < 0 { axis + r } else { axis } as usize;
    if block <= 0 {
        if v.rank() != 1 {
            return invalid("a per-axis scale or zero point must be 1-D");
        }
        if v.ty.dims[0] != x.ty.dims[axis] {
            return invalid("a per-axis scale or zero point must have the axis' length");
        }
        let mut dims = vec![Dim::constant(1); rank];
        dims[axis] = v.ty.dims[0].clone();
        return reshape(b, v, dims);
    }
    if v.rank() != rank {
        return invalid("a blocked scale or zero point must have x's rank");
    }
    let blocks = static_dim(&v.ty.dims[axis], "the number of blocks")?;
    let extent = static_dim(&x.ty.dims[axis], "the blocked axis")?;
    if blocks * block < extent || (blocks - 1) * block >= extent {
        return invalid(format!(
            "{blocks} blocks of {block} do not cover the axis of {extent}"
        ));
    }
    // [.., n, ..] -> [.., n, 1, ..] -> [.., n, block, ..] -> [.., n * block, ..].
    let u = unsqueeze(b, v, &[axis as i64 + 1])?;
    let mut wide = v.ty.dims.clone();
    wide.insert(axis + 1, Dim::constant(block));
    let e = broadcast_to(b, &u, wide)?;
    let mut merged = v.ty.dims.clone();
    merged[axis] = Dim::constant(blocks * block);
    let m = reshape(b, &e, merged)?;
    if blocks * block == extent {
        return Ok(m);
    }
    slice(b, &m, axis as i64, 0, extent, 1)
}

/// QuantizeLinear: `clip(round_half_even(x / scale) + zero_point)` to the range of the
/// output type (the zero point's, else `output_dtype`, else uint8), per tensor, per
/// axis or per block.
pub fn quantize_linear(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, scale) = (req(c, 0)?, req(c, 1)?);
    let zp = input(c, 2);
    if !x.dtype().is_float() || !scale.dtype().is_float() {
        return invalid("QuantizeLinear needs floating-point x and y_scale");
    }
    let out_attr = match int_attr(c, "output_dtype")? {
        Some(0) | None => None,
        Some(code) => Some(dtype_of(code as i32).map_err(Fail::Unsupported)?),
    };
    let out = match (zp, out_attr) {
        (Some(z), Some(o)) if z.dtype() != o => {
            return invalid("output_dtype differs from the zero point's type")
        }
        (Some(z), _) => z.dtype(),
        (None, Some(o)) => o,
        (None, None) => DType::U8,
    };
    let (lo, hi) = quant_range(out)?;
    let axis = int_or(c, "axis", 1)?;
    let block = if c.opset >= 21 {
        int_or(c, "block_size", 0)?
    } else {
        0
    };
    if block < 0 {
        return invalid("block_size must be nonnegative");
    }
    let compute = match int_attr(c, "precision")? {
        Some(0) | None => x.dtype(),
        Some(code) => match dtype_of(code as i32) {
            Ok(d) if d.is_float() => d,
            _ => return unsupported(format!("QuantizeLinear precision {code}")),
        },
    };
    let s = per_axis(b, scale, x, axis, block)?;
    let xc = cast(b, x, compute)?;
    let sc = cast(b, &s, compute)?;
    let q = bin(b, "div", &xc, &sc)?;
    let r = un(b, "round", &q)?;
    let mut y = cast(b, &r, DType::F32)?;
    if let Some(z) = zp {
        let z = per_axis(b, z, x, axis, block)?;
        let zf = cast(b, &z, DType::F32)?;
        y = bin(b, "add", &y, &zf)?;
    }
    let (lov, hiv) = (b.scalar(DType::F32, lo), b.scalar(DType::F32, hi));
    let clipped = op(b, "clip", &[&y, &lov, &hiv], &[], DType::F32)?;
    one(cast(b, &clipped, out)?)
}

/// DequantizeLinear: `(x - zero_point) * scale` in f32, in the scale's type (or
/// `output_dtype`), per tensor, per axis or per block.
pub fn dequantize_linear(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, scale) = (req(c, 0)?, req(c, 1)?);
    if x.dtype().is_float() || x.dtype() == DType::Bool {
        return unsupported(format!("DequantizeLinear of {}", x.dtype()));
    }
    if !scale.dtype().is_float() {
        return invalid("x_scale must be floating-point");
    }
    let axis = int_or(c, "axis", 1)?;
    let block = if c.opset >= 21 {
        int_or(c, "block_size", 0)?
    } else {
        0
    };
    if block < 0 {
        return invalid("block_size must be nonnegative");
    }
    let out = match int_attr(c, "output_dtype")? {
        Some(0) | None => scale.dtype(),
        Some(code) => match dtype_of(code as i32) {
            Ok(d) if d.is_float() => d,
            _ => return invalid(format!("output_dtype {code} is not a floating-point type")),
        },
    };
    let mut d = cast(b, x, DType::F32)?;
    if let Some(z) = input(c, 2) {
        if z.dtype() != x.dtype() {
            return invalid("x_zero_point must have x's type");
        }
        let z = per_axis(b, z, x, axis, block)?;
        let zf = cast(b, &z, DType::F32)?;
        d = bin(b, "sub", &d, &zf)?;
    }
    let s = per_axis(b, scale, x, axis, block)?;
    let sf = cast(b, &s, DType::F32)?;
    let y = bin(b, "mul", &d, &sf)?;
    one(cast(b, &y, out)?)
}

/// DynamicQuantizeLinear: uint8 quantization with the scale and zero point of x's
/// range extended to 0: `scale = (max - min) / 255` (1/255 when the range is empty),
/// `zero_point = round(clip(-min / scale, 0, 255))`.
pub fn dynamic_quantize_linear(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x0 = req(c, 0)?;
    if !x0.dtype().is_float() {
        return invalid("DynamicQuantizeLinear needs a floating-point input");
    }
    let x = cast(b, x0, DType::F32)?;
    let axes: Vec<i64> = (0..x.rank() as i64).collect();
    let zero = b.scalar(DType::F32, 0.0);
    let mx = reduce(b, "reduce_max", &x, &axes, false)?;
    let mn = reduce(b, "reduce_min", &x, &axes, false)?;
    let mx = bin(b, "maximum", &mx, &zero)?;
    let mn = bin(b, "minimum", &mn, &zero)?;
    let span = bin(b, "sub", &mx, &mn)?;
    let same = cmp(b, "eq", &mx, &mn)?;
    let onev = b.scalar(DType::F32, 1.0);
    let span = select(b, &same, &onev, &span)?;
    let q255 = b.scalar(DType::F32, 255.0);
    let scale = bin(b, "div", &span, &q255)?;
    let ms = bin(b, "div", &mn, &scale)?;
    let initial = bin(b, "sub", &zero, &ms)?;
    let zp = op(b, "clip", &[&initial, &zero, &q255], &[], DType::F32)?;
    let zp = un(b, "round", &zp)?;
    let q = bin(b, "div", &x, &scale)?;
    let r = un(b, "round", &q)?;
    let shifted = bin(b, "add", &r, &zp)?;
    let y = op(b, "clip", &[&shifted, &zero, &q255], &[], DType::F32)?;
    Ok(vec![
        Some(cast(b, &y, DType::U8)?),
        Some(cast(b, &scale, x0.dtype())?),
        Some(cast(b, &zp, DType::U8)?),
    ])
}

// ---------------------------------------------------------------------------------
// SwiGLU, inverse trigonometric functions, CumProd, BitShift
// ---------------------------------------------------------------------------------

/// SwiGLU (opset 28): `a * sigmoid(alpha * a) * b`.
pub fn swiglu(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (a0, g0) = (req(c, 0)?, req(c, 1)?);
    if a0.ty.dims != g0.ty.dims || a0.dtype() != g0.dtype() {
        return invalid("SwiGLU needs A and B of the same shape and type");
    }
    let alpha = float_attr(c, "alpha")?.unwrap_or(1.0);
    let (a, back) = widen(b, a0)?;
    let g = cast(b, g0, a.dtype())?;
    let s = op(b, "swish", &[&a], &[("beta", A::F(alpha))], a.dtype())?;
    let y = bin(b, "mul", &s, &g)?;
    one(narrow(b, y, back)?)
}

/// atan(x) for any f32 x: `|x| > 1` reflects to `sign(x) * pi/2 - atan(1/x)`; two
/// argument halvings `t -> t / (1 + sqrt(1 + t*t))` (atan(t) = 2 atan(that)) bring
/// |t| <= 1 to |u| <= tan(pi/16) < 0.1990; the Taylor series to u^13 then has a relative
/// truncation error below u^14 / 15 < 1.1e-11. Rounding adds a few ulps of f32.
fn atan_f32(b: &mut Builder, x: &Val) -> Result<Val, Fail> {
    let onev = like(b, x, 1.0);
    let ax = un(b, "abs", x)?;
    let big = cmp(b, "gt", &ax, &onev)?;
    let inv = bin(b, "div", &onev, x)?;
    let mut t = select(b, &big, &inv, x)?;
    for _ in 0..2 {
        let sq = bin(b, "mul", &t, &t)?;
        let s1 = bin(b, "add", &onev, &sq)?;
        let r = un(b, "sqrt", &s1)?;
        let den = bin(b, "add", &onev, &r)?;
        t = bin(b, "div", &t, &den)?;
    }
    let v = bin(b, "mul", &t, &t)?;
    // Horner in v: 1 - v/3 + v^2/5 - ... + v^6/13.
    let mut p = like(b, x, 1.0 / 13.0);
    for k in (0..6).rev() {
        let coef = if k % 2 == 0 { 1.0 } else { -1.0 } / (2 * k + 1) as f64;
        let pv = bin(b, "mul", &p, &v)?;
        let cv = like(b, x, coef);
        p = bin(b, "add", &cv, &pv)?;
    }
    let small = bin(b, "mul", &t, &p)?;
    let four = like(b, x, 4.0);
    let a = bin(b, "mul", &small, &four)?;
    // Reflection: sign(x) * pi/2 - atan(1/x).
    let sign = un(b, "sign", x)?;
    let half_pi = like(b, x, std::f64::consts::FRAC_PI_2);
    let hp = bin(b, "mul", &sign, &half_pi)?;
    let reflected = bin(b, "sub", &hp, &a)?;
    select(b, &big, &reflected, &a)
}

/// Acos, Asin, Atan in f32 from `atan_f32`: asin(x) = atan(x / sqrt((1-x)(1+x))),
/// acos(x) = 2 atan(sqrt((1-x)/(1+x))) (both exact near +-1 where 1-x and 1+x are;
/// NaN outside [-1, 1] from the square roots).
pub fn inverse_trig(b: &mut Builder, c: &NodeCtx, op_type: &str) -> Converted {
    let (x, back) = widen(b, req(c, 0)?)?;
    if !x.dtype().is_float() {
        return invalid(format!("{op_type} needs a floating-point input"));
    }
    let onev = like(b, &x, 1.0);
    let y = match op_type {
        "Atan" => atan_f32(b, &x)?,
        "Asin" => {
            let m = bin(b, "sub", &onev, &x)?;
            let p = bin(b, "add", &onev, &x)?;
            let d = bin(b, "mul", &m, &p)?;
            let r = un(b, "sqrt", &d)?;
            let t = bin(b, "div", &x, &r)?;
            atan_f32(b, &t)?
        }
        _ => {
            let m = bin(b, "sub", &onev, &x)?;
            let p = bin(b, "add", &onev, &x)?;
            let q = bin(b, "div", &m, &p)?;
            let r = un(b, "sqrt", &q)?;
            let a = atan_f32(b, &r)?;
            let two = like(b, &x, 2.0);
            bin(b, "mul", &a, &two)?
        }
    };
    one(narrow(b, y, back)?)
}

/// `x` shifted by `s` along `axis` (of static extent `n`), the vacated places filled
/// with 1: forward (`y[i] = x[i - s]`) or backward (`y[i] = x[i + s]`).
fn shift_ones(
    b: &mut Builder,
    x: &Val,
    axis: usize,
    n: i64,
    s: i64,
    reverse: bool,
) -> Result<Val, Fail> {
    let rank = x.rank();
    let mut pads = vec![Expr::constant(0); 2 * rank];
    pads[if reverse { rank + axis } else { axis }] = Expr::constant(s);
    let p = b.op(
        "pad",
        &[x],
        &[
            ("pads", A::Exprs(pads)),
            ("value", A::F(1.0)),
            ("mode", A::S("constant".into())),
        ],
        x.dtype(),
        None,
    )?;
    let start = if reverse { s } else { 0 };
    slice(b, &p, axis as i64, start, start + n, 1)
}

/// CumProd (opset 26): an inclusive scan by doubling (Hillis-Steele): log2(n) steps of
/// `y = y * shift(y, 2^k)` with ones shifted in; `exclusive` shifts the input by one
/// first, `reverse` shifts the other way. The axis must be static.
pub fn cumprod(b: &mut Builder, c: &NodeCtx) -> Converted {
    let x = req(c, 0)?;
    let axis = match input(c, 1).and_then(|v| v.exprs()).as_deref() {
        Some([e]) => e
            .as_const()
            .ok_or_else(|| Fail::Unsupported("CumProd with a symbolic axis".into()))?,
        Some(_) => return invalid("CumProd needs a one-element axis"),
        None if input(c, 1).is_some() => return unsupported("CumProd axis is not a constant"),
        None => return invalid("CumProd needs an axis"),
    };
    let rank = x.rank() as i64;
    if axis < -rank || axis >= rank {
        return invalid(format!("axis {axis} is out of range for rank {rank}"));
    }
    let axis = if axis < 0 { axis + rank } else { axis } as usize;
    let n = static_dim(&x.ty.dims[axis], "CumProd's axis")?;
    let exclusive = int_or(c, "exclusive", 0)? != 0;
    let reverse = int_or(c, "reverse", 0)? != 0;
    let mut y = x.clone();
    if n == 0 {
        return one(y);
    }
    if exclusive {
        y = shift_ones(b, &y, axis, n, 1, reverse)?;
    }
    let mut s = 1;
    while s < n {
        let sh = shift_ones(b, &y, axis, n, s, reverse)?;
        y = bin(b, "mul", &y, &sh)?;
        s *= 2;
    }
    one(y)
}

/// BitShift: `x * 2^k` (left, wrapping) or `floor(x / 2^k)` (right, arithmetic for
/// signed types), in i32 (i64 for 64-bit types) with 2^k gathered from a table; shifts
/// outside `[0, bits)` give 0 (left) or the sign fill (right), as opset 28 defines.
pub fn bitshift(b: &mut Builder, c: &NodeCtx) -> Converted {
    let (x, k) = (req(c, 0)?, req(c, 1)?);
    if x.dtype() != k.dtype() {
        return invalid("BitShift needs X and Y of the same type");
    }
    let bits: i64 = match x.dtype() {
        DType::U8 | DType::I8 => 8,
        DType::I16 => 16,
        DType::I32 => 32,
        DType::I64 => 64,
        other => return unsupported(format!("BitShift of {other}")),
    };
    let left = match string_attr(c, "direction")?.as_deref() {
        Some("LEFT") => true,
        Some("RIGHT") => false,
        Some(d) => return invalid(format!("unknown BitShift direction '{d}'")),
        None => return invalid("BitShift needs a direction"),
    };
    let wide = if bits == 64 { DType::I64 } else { DType::I32 };
    let wide_bits = if bits == 64 { 64 } else { 32 };
    // Shifts whose power of two fits the wide type; a right shift by wide_bits - 1
    // (only possible when bits == wide_bits) equals the out-of-range sign fill.
    let limit = if left || bits < wide_bits {
        bits
    } else {
        bits - 1
    };
    let table: Vec<i64> = (0..limit)
        .map(|i| {
            let p = 1i128 << i;
            if wide_bits == 32 {
                p as u32 as i32 as i64
            } else {
                p as u64 as i64
            }
        })
        .collect();
    let table = b.constant(wide, &[table.len()], Values::I(table));
    let xw = cast(b, x, wide)?;
    let kw = cast(b, k, wide)?;
    let (z, lim) = (b.scalar(wide, 0.0), b.scalar(wide, (limit - 1) as f64));
    let idx = bin(b, "maximum", &kw, &z)?;
    let idx = bin(b, "minimum", &idx, &lim)?;
    let power = op(b, "gather", &[&table, &idx], &[("axis", A::I(0))], wide)?;
    let shifted = if left {
        bin(b, "mul", &xw, &power)?
    } else if bits < 32 {
        // An 8- or 16-bit value over a power of two is exact in f32, and so is its
        // floor: the kernels compute it with f32 Div and a floor (no int32 division).
        let xf = cast(b, &xw, DType::F32)?;
        let pf = cast(b, &power, DType::F32)?;
        let q = bin(b, "div", &xf, &pf)?;
        let q = op(b, "floor", &[&q], &[], DType::F32)?;
        cast(b, &q, wide)?
    } else {
        bin(b, "floor_div", &xw, &power)?
    };
    let lo_ok = cmp(b, "ge", &kw, &z)?;
    let hi = b.scalar(wide, limit as f64);
    let hi_ok = cmp(b, "lt", &kw, &hi)?;
    let valid = op(b, "logical_and", &[&lo_ok, &hi_ok], &[], DType::Bool)?;
    let fill = if left {
        z.clone()
    } else {
        let neg = cmp(b, "lt", &xw, &z)?;
        let m1 = b.scalar(wide, -1.0);
        select(b, &neg, &m1, &z)?
    };
    let y = select(b, &valid, &shifted, &fill)?;
    one(cast(b, &y, x.dtype())?)
}
