//! `--narrow-index-types`: computes 64-bit integer index arithmetic in 32 bits where the
//! values provably fit.
//!
//! Why: exported models compute position ids, causal and padding masks and segment ids
//! in int64 (`Range`, `CumSum`, compares, `Where`), but the Ascend vector unit has no
//! 64-bit integer arithmetic (AF-LW003), so those ops would stay outside every kernel.
//! Their values are bounded by tensor dims, which is what this pass proves.
//!
//! What it does, per `func.func` holding `ascend` ops:
//! 0. An unbounded i64 value (a graph argument such as ONNX Attention's
//!    `nonpad_kv_seqlen`, a boundary result) whose every use only shifts it by bounded
//!    amounts (add/sub), moves it (unsqueeze, reshape, broadcast, slice, gather, ...) or
//!    compares it with a bounded value, with offsets plus partners below 2^24, is
//!    replaced at those uses by `clamp(f32(X), -2^29, 2^29)` cast to i32 and back: every
//!    compare keeps its outcome (proof at `clamp_plan`), and the shifted copies become
//!    bounded, so step 2 narrows them. Float clamps (maximum/minimum with constants) are
//!    the only floats the analysis bounds.
//! 1. A forward interval analysis gives every integer value the range of its elements:
//!    constants exactly, `symbolic_constant`/`range` from their shape expressions with
//!    every symbol in `[1, 2^31 - 1]` (a dim the device can index), casts from narrower
//!    types by the source type, and add/sub/mul/neg/abs/max/min/select, data movement
//!    (broadcast, reshape, slice, gather, concat, ...), `cumsum` and max/min reductions
//!    by interval arithmetic. Graph arguments and boundary results of i64 type are
//!    unbounded. Non-negative values also get a symbolic upper bound (`flat_index.rs`:
//!    ranges, symbolic constants, sums and products): a value whose bound is below the
//!    element count of a tensor of the graph is an offset into it and fits in i32 (a
//!    flat index `range(batch) * seq + range(seq)`).
//! 2. An i64 op result whose range fits in i32 is retyped to i32 when the op computes
//!    the same in i32, all its same-typed operands fit too, and a 32-bit reader follows
//!    (a narrowed op, a compare of fitting operands, a cast to another type, a gather
//!    reading it as indices): a value read only at 64 bits keeps its type. Constants are
//!    rewritten.
//! 3. Uses that need the other type get an `ascend.cast`: an i32 value read where i64 is
//!    needed (a graph result, a boundary call, an op that stays 64-bit) is widened; an
//!    i64 value whose range fits but whose producer stays 64-bit is narrowed where a
//!    32-bit op (or a compare whose operands all fit) reads it. Both casts are exact.
//!    A narrowed constant read at 64 bits gets an i64 copy of itself instead of a cast.
//!
//! Preconditions: the module verifies; shapes are symbolic (run after
//! `--infer-symbolic-shapes`). Postconditions: function signatures and the values every
//! op computes are unchanged (only integer widths); the module verifies.

mod flat_index;

use crate::options::PassOptions;
use crate::registry::PassInfo;
use crate::statistics;
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{DType, Dim, Graph, Node, TensorType};
use autofuse_mlir::builder::{Emitter, Typed};
use autofuse_mlir::extract::ExtractedGraph;
use autofuse_mlir::registry::{lookup, Category};
use autofuse_mlir::{diagnostics, extract, raw};
use autofuse_symbolic::{Expr, ShapeEnv, SymbolInfo};
use melior::ir::{operation::OperationLike, ValueLike};

pub const PASS: PassInfo = PassInfo {
    argument: "narrow-index-types",
    summary: "Compute int64 index arithmetic (positions, masks, segment ids) in int32 where the values provably fit",
    description: "A forward interval analysis bounds every integer value (constants, shape expressions with \
                  dims below 2^31, ranges, casts, arithmetic, data movement, cumsum), and non-negative \
                  sums and products of ranges and symbols by a shape expression: a flat index below the \
                  element count of a tensor of the graph fits (range(batch)*seq + range(seq)); i64 results that fit \
                  in i32 are retyped to i32 when their op computes the same in 32 bits and a 32-bit reader \
                  (an op, a compare, a gather's indices) follows, with exact casts \
                  where a use needs the other width (a narrowed constant read at 64 bits gets an \
                  i64 copy instead). An unbounded i64 input that is only shifted by \
                  bounded amounts, moved and compared with bounded values (a sequence length in a \
                  mask) is first clamped to +-2^29 through f32, which keeps every compare outcome. \
                  The Ascend vector unit has no 64-bit integer arithmetic, so this lets position ids \
                  and masks fuse into kernels.",
    options: &[],
    run,
};

/// Largest dim the analysis assumes (the device indexes tensors with 32-bit offsets).
const DIM_MAX: i64 = i32::MAX as i64;

type Interval = (i128, i128);

/// The unbounded end of a float value clamped on one side only (never an integer's).
const WIDE: i128 = 1 << 100;

fn fits_i32((lo, hi): Interval) -> bool {
    lo >= i32::MIN as i128 && hi <= i32::MAX as i128
}

fn union(a: Interval, b: Interval) -> Interval {
    (a.0.min(b.0), a.1.max(b.1))
}

fn dtype_range(dtype: DType) -> Option<Interval> {
    Some(match dtype {
        DType::Bool => (0, 1),
        DType::I8 => (i8::MIN as i128, i8::MAX as i128),
        DType::U8 => (0, u8::MAX as i128),
        DType::I16 => (i16::MIN as i128, i16::MAX as i128),
        DType::I32 => (i32::MIN as i128, i32::MAX as i128),
        _ => return None,
    })
}

/// The shape env the analysis bounds expressions in: every symbol of the graph in
/// `[1, DIM_MAX]`.
fn dim_env(graph: &Graph) -> ShapeEnv {
    let mut env = ShapeEnv::new();
    let mut add = |e: &Expr| {
        for s in e.symbols() {
            if env.info(&s).is_none() {
                env.declare(SymbolInfo::new(&s).with_range(1, Some(DIM_MAX)));
            }
        }
    };
    for value in &graph.values {
        for dim in value.ty.iter().flat_map(|t| &t.dims) {
            if let Dim::Known(e) = dim {
                add(e);
            }
        }
    }
    for node in &graph.nodes {
        for attr in node.attrs.values() {
            for e in attr.as_exprs().unwrap_or_default() {
                add(&e);
            }
            if let Some(e) = attr.as_expr() {
                add(&e);
            }
        }
    }
    env
}

fn expr_bounds(env: &ShapeEnv, e: &Expr) -> Option<Interval> {
    match env.bounds(e) {
        (Some(lo), Some(hi)) => Some((lo as i128, hi as i128)),
        _ => None,
    }
}

/// The element range of every value, `None` when unbounded or not an integer.
fn analyze(graph: &Graph, env: &ShapeEnv) -> Vec<Option<Interval>> {
    let mut ranges: Vec<Option<Interval>> = vec![None; graph.values.len()];
    // Symbolic bounds of flat indices (`flat_index.rs`).
    let mut bounds: Vec<Option<Expr>> = vec![None; graph.values.len()];
    let counts = flat_index::element_counts(graph);
    for &arg in &graph.arguments {
        ranges[arg] = graph.ty(arg).and_then(|t| dtype_range(t.dtype));
    }
    for node in &graph.nodes {
        let Some(&result) = node.results.first() else {
            continue;
        };
        let Some(ty) = graph.ty(result) else {
            continue;
        };
        // Floats are bounded only through constants and clamps (maximum/minimum), which
        // is what the clamp of unbounded compared values builds (see `clamp_plan`).
        if ty.dtype.is_float()
            && !matches!(
                node.op.as_str(),
                "ascend.constant" | "ascend.maximum" | "ascend.minimum"
            )
        {
            continue;
        }
        let range = node_range(graph, env, node, &ranges).map(|r| match dtype_range(ty.dtype) {
            // A narrower result type wraps: its own range is the safe bound.
            Some(own) if !fits(r, own) => own,
            _ => r,
        });
        let mut range = range.or_else(|| dtype_range(ty.dtype));
        bounds[result] = flat_index::node_bound(graph, node, range, &bounds);
        if let (Some((lo, hi)), Some(bound)) = (range, &bounds[result]) {
            if !fits_i32((lo, hi)) && flat_index::below_an_element_count(env, bound, &counts) {
                range = Some((lo, i32::MAX as i128 - 1));
            }
        }
        ranges[result] = range;
    }
    ranges
}

fn fits(inner: Interval, outer: Interval) -> bool {
    inner.0 >= outer.0 && inner.1 <= outer.1
}

fn node_range(
    graph: &Graph,
    env: &ShapeEnv,
    node: &Node,
    ranges: &[Option<Interval>],
) -> Option<Interval> {
    let operand = |i: usize| -> Option<Interval> { ranges[*node.operands.get(i)?] };
    let name = node.op.strip_prefix("ascend.")?;
    match name {
        "constant" => {
            let AttrValue::Dense { values, .. } = node.attr("value")? else {
                return None;
            };
            let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            // Outward to integers (exact for integer constants).
            (lo.is_finite() && hi.is_finite()).then_some((lo.floor() as i128, hi.ceil() as i128))
        }
        "symbolic_constant" => node
            .attr("values")?
            .as_exprs()?
            .iter()
            .map(|e| expr_bounds(env, e))
            .try_fold(None, |acc: Option<Interval>, r| {
                let r = r?;
                Some(Some(acc.map_or(r, |a| union(a, r))))
            })?,
        "range" => {
            let start = node.attr("start")?;
            let start = match start.as_int() {
                Some(v) => (v as i128, v as i128),
                None => expr_bounds(env, &start.as_expr()?)?,
            };
            let delta = node.attr("delta")?.as_int()? as i128;
            let ty = graph.ty(*node.results.first()?)?;
            let count = expr_bounds(env, ty.dims.first()?.expr()?)?;
            let last = delta * (count.1 - 1).max(0);
            Some((start.0 + last.min(0), start.1 + last.max(0)))
        }
        // A float operand has a range only when clamped (integer bounds outward of its
        // values), which truncation toward zero keeps.
        "cast" => operand(0).filter(|r| r.0 > -WIDE && r.1 < WIDE),
        // A clamp bounds an unbounded operand from the constant's side; a float clamp
        // bounded on one side only keeps the other at -+WIDE for the next clamp.
        "maximum" | "minimum" => {
            let full = (-WIDE, WIDE);
            let (a, b) = (operand(0).unwrap_or(full), operand(1).unwrap_or(full));
            let r = if name == "maximum" {
                (a.0.max(b.0), a.1.max(b.1))
            } else {
                (a.0.min(b.0), a.1.min(b.1))
            };
            let float = graph.ty(*node.results.first()?)?.dtype.is_float();
            (float || (r.0 > -WIDE && r.1 < WIDE)).then_some(r)
        }
        "add" | "sub" | "mul" => {
            let (a, b) = (operand(0)?, operand(1)?);
            Some(match name {
                "add" => (a.0 + b.0, a.1 + b.1),
                "sub" => (a.0 - b.1, a.1 - b.0),
                _ => {
                    let p = [a.0 * b.0, a.0 * b.1, a.1 * b.0, a.1 * b.1];
                    (*p.iter().min()?, *p.iter().max()?)
                }
            })
        }
        "neg" => operand(0).map(|(lo, hi)| (-hi, -lo)),
        "abs" => operand(0).map(|(lo, hi)| {
            let m = lo.abs().max(hi.abs());
            if lo >= 0 {
                (lo, hi)
            } else if hi <= 0 {
                (-hi, -lo)
            } else {
                (0, m)
            }
        }),
        "select" => Some(union(operand(1)?, operand(2)?)),
        "concat" => Some(union(operand(0)?, operand(1)?)),
        "broadcast_to" | "reshape" | "squeeze" | "unsqueeze" | "transpose" | "slice" | "gather"
        | "gather_nd" | "gather_elements" | "reduce_max" | "reduce_min" => operand(0),
        "cumsum" => {
            let (lo, hi) = operand(0)?;
            let x = graph.ty(*node.operands.first()?)?;
            let axis =
                autofuse_ascend::shape::normalize_axis(node.attr("axis")?.as_int()?, x.rank())
                    .ok()?;
            let n = expr_bounds(env, x.dims.get(axis)?.expr()?)?.1;
            Some((lo.min(0) * n, hi.max(0) * n))
        }
        _ => None,
    }
}

/// Operand positions that must have the result's element type.
fn same_typed_operands(node: &Node) -> Option<Vec<usize>> {
    let spec = lookup(&node.op)?;
    let n = node.operands.len();
    Some(match (spec.category, spec.name) {
        (Category::Constant, _) => vec![],
        (Category::Cast, _) => vec![],
        (Category::Unary | Category::Binary | Category::Layout, _) => (0..n).collect(),
        (Category::Select, _) => vec![1, 2],
        (Category::Reduce, "reduce_max" | "reduce_min") => vec![0],
        (Category::Structural, "concat" | "slice" | "cumsum") => (0..n).collect(),
        (Category::Structural, "gather" | "gather_nd" | "gather_elements") => vec![0],
        _ => return None,
    })
}

/// Ops that compute the same on i32 as on i64 for values that fit (wrapping aside).
fn computes_in_i32(node: &Node) -> bool {
    let Some(name) = node.op.strip_prefix("ascend.") else {
        return false;
    };
    matches!(
        name,
        "constant"
            | "symbolic_constant"
            | "range"
            | "cast"
            | "add"
            | "sub"
            | "mul"
            | "neg"
            | "abs"
            | "maximum"
            | "minimum"
            | "select"
            | "broadcast_to"
            | "reshape"
            | "squeeze"
            | "unsqueeze"
            | "transpose"
            | "slice"
            | "concat"
            | "gather"
            | "gather_nd"
            | "gather_elements"
            | "cumsum"
            | "reduce_max"
            | "reduce_min"
    )
}

/// Operands that an op reads correctly at either integer width: the source of a cast,
/// the indices of a gather.
fn either_width(node: &Node, operand: usize) -> bool {
    match node.op.as_str() {
        "ascend.cast" => operand == 0,
        "ascend.gather" | "ascend.gather_nd" | "ascend.gather_elements" => operand == 1,
        _ => false,
    }
}

fn is_compare(node: &Node) -> bool {
    lookup(&node.op).is_some_and(|s| s.category == Category::Compare)
}

/// The dense attribute text of an integer constant of type `ty` (i32 or i64).
fn dense_int(values: &[f64], splat: bool, ty: &TensorType) -> String {
    let body = if splat || values.len() == 1 {
        format!("{}", values.first().copied().unwrap_or(0.0) as i64)
    } else {
        format!(
            "[{}]",
            values
                .iter()
                .map(|v| (*v as i64).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    // A flat list is valid for a tensor of any rank only when it is rank <= 1; nested
    // literals are rebuilt row-major.
    let body = if ty.rank() > 1 && !(splat || values.len() == 1) {
        let shape: Vec<usize> = ty
            .dims
            .iter()
            .map(|d| d.as_const().unwrap_or(0) as usize)
            .collect();
        nest(values, &shape)
    } else {
        body
    };
    format!("dense<{body}> : {}", ty.to_mlir())
}

fn nest(values: &[f64], shape: &[usize]) -> String {
    match shape.split_first() {
        None => format!("{}", values.first().copied().unwrap_or(0.0) as i64),
        Some((&n, rest)) => {
            let inner: usize = rest.iter().product();
            let parts: Vec<String> = (0..n)
                .map(|i| nest(&values[i * inner..(i + 1) * inner], rest))
                .collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

/// Makes operand `index` of `op` read its value (of type `from`) cast to `to`, with the
/// cast inserted right before `op`.
fn cast_operand(
    op: melior::ir::OperationRef,
    index: usize,
    from: TensorType,
    to: DType,
) -> Result<(), String> {
    let current = op.operand(index).map_err(|e| e.to_string())?;
    let mut emitter = Emitter::before(op).ok_or("the op is not in a block")?;
    let source = Typed {
        value: current,
        ty: from,
    };
    let cast = emitter
        .op("ascend.cast", &[&source], &[], Some(to))
        .map_err(|e| e.0)?;
    raw::set_operand(op, index, cast.value);
    Ok(())
}

/// The values of the `ascend.constant` producing `value` (dense, and whether a splat).
fn constant_values(graph: &Graph, value: usize) -> Option<(&[f64], bool)> {
    let node = graph
        .nodes
        .iter()
        .find(|n| n.op == "ascend.constant" && n.results.first() == Some(&value))?;
    match node.attr("value") {
        Some(AttrValue::Dense { values, splat, .. }) => Some((values.as_slice(), *splat)),
        _ => None,
    }
}

/// Makes operand `index` of `op` read a new `ascend.constant` of type `ty` holding
/// `values` (inserted right before `op`).
fn copy_constant(
    op: melior::ir::OperationRef,
    index: usize,
    (values, splat): (&[f64], bool),
    ty: &TensorType,
) -> Result<(), String> {
    let mut emitter = Emitter::before(op).ok_or("the op is not in a block")?;
    let text = dense_int(values, splat, ty);
    let copy = emitter
        .build("ascend.constant", &[], &[("value", &text)], ty)
        .map_err(|e| e.0)?;
    raw::set_operand(op, index, copy);
    Ok(())
}

/// Offsets and compare partners of a clamped value stay below this magnitude: f32 holds
/// every integer up to it exactly.
const EXACT_F32: i128 = 1 << 24;

/// The clamp bound: a power of two (exact in f32, and printed exactly with the 9
/// significant digits of an f32 attribute), far above `EXACT_F32` and, with any offset
/// below it added, inside i32.
const CLAMP: i64 = 1 << 29;

fn magnitude((lo, hi): Interval) -> i128 {
    lo.abs().max(hi.abs())
}

/// Where an unbounded i64 value (a graph argument such as a sequence length) is only
/// shifted by bounded amounts, moved, and compared with bounded values, the uses to
/// redirect to its clamp (see `run`, step 0), per such value.
///
/// Why a clamp is exact here: every value derived from `X` is `s*X + t` (s = +-1) with
/// |t| <= T, and it is compared with `y`, |y| <= Y, where T + Y < 2^24. Replace `X` by
/// `X' = clamp(f32(X), -2^29, 2^29)`. If |X| <= 2^24, f32(X) = X and X' = X. Otherwise
/// X' has X's sign and |X'| >= 2^24 (rounding is monotone and 2^24 is exact), so
/// `s*X + t` and `s*X' + t` have the same sign and magnitude >= 2^24 - T > Y >= |y|:
/// every compare (lt, le, gt, ge, eq, ne) has the same outcome. And |s*X' + t| <=
/// 2^29 + 2^24 fits in i32.
fn clamp_plan(graph: &Graph, ranges: &[Option<Interval>]) -> Vec<(usize, Vec<(usize, usize)>)> {
    let is_i64 = |v: usize| graph.ty(v).is_some_and(|t| t.dtype == DType::I64);
    let bounded = |v: usize| ranges[v].map(magnitude).filter(|&m| m < EXACT_F32);
    // The offset bound T of every value derived from an unbounded i64 value, with the
    // operand position of the derived value in its op.
    let unbounded = |v: usize| is_i64(v) && ranges[v].is_none();
    let mut seeds: Vec<usize> = graph
        .arguments
        .iter()
        .copied()
        .filter(|&v| unbounded(v))
        .collect();
    let mut offset: Vec<Option<i128>> = vec![None; graph.values.len()];
    for &v in &seeds {
        offset[v] = Some(0);
    }
    // (node, chain operand) -> the derived result's offset, for ops that shift or move.
    let derived = |node: &Node, offset: &[Option<i128>]| -> Option<(usize, i128)> {
        let [result] = node.results.as_slice() else {
            return None;
        };
        if !is_i64(*result) {
            return None;
        }
        let name = node.op.strip_prefix("ascend.")?;
        let chain: Vec<usize> = (0..node.operands.len())
            .filter(|&i| offset[node.operands[i]].is_some())
            .collect();
        let [c] = chain.as_slice() else {
            return None;
        };
        let t = offset[node.operands[*c]]?;
        match name {
            "add" | "sub" => {
                let other = bounded(node.operands[1 - c])?;
                Some((*c, t + other))
            }
            "neg" | "unsqueeze" | "squeeze" | "reshape" | "broadcast_to" | "transpose" => {
                Some((*c, t))
            }
            "slice" | "gather" if *c == 0 => Some((*c, t)),
            _ => None,
        }
    };
    // Values derived from a clamped one are shifted copies of it; other unbounded
    // results (a boundary op's) are clamped themselves.
    for node in &graph.nodes {
        if let Some((_, t)) = derived(node, &offset) {
            offset[node.results[0]] = Some(t);
        } else {
            for &r in &node.results {
                if unbounded(r) {
                    offset[r] = Some(0);
                    seeds.push(r);
                }
            }
        }
    }
    // A use is acceptable when it compares with a bounded value within the margin, or
    // derives a value all of whose uses are acceptable (decided from the last op back).
    let mut users: Vec<Vec<(usize, usize)>> = vec![Vec::new(); graph.values.len()];
    for (n, node) in graph.nodes.iter().enumerate() {
        for (i, &v) in node.operands.iter().enumerate() {
            users[v].push((n, i));
        }
    }
    let mut closed = vec![false; graph.values.len()];
    let acceptable = |n: usize, i: usize, t: i128, closed: &[bool]| -> bool {
        let node = &graph.nodes[n];
        if is_compare(node) {
            return node.operands.len() == 2
                && bounded(node.operands[1 - i]).is_some_and(|y| t + y < EXACT_F32);
        }
        derived(node, &offset).is_some_and(|(c, _)| c == i) && closed[node.results[0]]
    };
    for node in graph.nodes.iter().rev() {
        let [result] = node.results.as_slice() else {
            continue;
        };
        let Some(t) = offset[*result] else { continue };
        if seeds.contains(result) {
            continue;
        }
        closed[*result] = !graph.outputs.contains(result)
            && users[*result]
                .iter()
                .all(|&(n, i)| acceptable(n, i, t, &closed));
    }
    seeds
        .into_iter()
        .filter_map(|v| {
            let uses: Vec<(usize, usize)> = users[v]
                .iter()
                .copied()
                .filter(|&(n, i)| acceptable(n, i, 0, &closed))
                .collect();
            (!uses.is_empty()).then_some((v, uses))
        })
        .collect()
}

/// Step 0 of `run`: redirects the planned uses of each unbounded value to
/// `cast<i64>(cast<i32>(minimum(maximum(cast<f32>(X), -2^29), 2^29)))`, built before the
/// first of them. Returns how many values were clamped.
fn clamp_unbounded<'c: 'a, 'a>(
    graph: &Graph,
    ops: &[melior::ir::OperationRef<'c, 'a>],
    ranges: &[Option<Interval>],
) -> Result<u64, String> {
    let mut clamped = 0;
    for (value, uses) in clamp_plan(graph, ranges) {
        let Some(&(first, index)) = uses.iter().min() else {
            continue;
        };
        let (Some(ty), Some(&anchor)) = (graph.ty(value).cloned(), ops.get(first)) else {
            continue;
        };
        let source = Typed {
            value: anchor.operand(index).map_err(|e| e.to_string())?,
            ty,
        };
        let mut e: Emitter<'c, 'a> = Emitter::before(anchor).ok_or("the op is not in a block")?;
        let clamp = (|| {
            let wide = e.op("ascend.cast", &[&source], &[], Some(DType::F32))?;
            let lo = e.scalar(-(CLAMP as f64), DType::F32)?;
            let hi = e.scalar(CLAMP as f64, DType::F32)?;
            let above = e.op("ascend.maximum", &[&wide, &lo], &[], None)?;
            let within = e.op("ascend.minimum", &[&above, &hi], &[], None)?;
            let narrow = e.op("ascend.cast", &[&within], &[], Some(DType::I32))?;
            e.op("ascend.cast", &[&narrow], &[], Some(DType::I64))
        })()
        .map_err(|err: autofuse_ascend::shape::ShapeError| err.0)?;
        for (n, i) in uses {
            if let Some(&op) = ops.get(n) {
                raw::set_operand(op, i, clamp.value);
            }
        }
        clamped += 1;
    }
    Ok(clamped)
}

fn run(module: melior::ir::OperationRef, _options: &PassOptions) -> Result<(), ()> {
    let body = extract::module_body(module).ok_or(())?;
    let mut narrowing = Narrowing {
        narrowed: 0,
        casts: 0,
        clamped: 0,
        ok: true,
    };
    for func in extract::functions(body) {
        narrowing.narrow_function(func);
    }
    statistics::add(
        PASS.argument,
        "clamped",
        "Number of unbounded i64 values clamped where they are only shifted and compared",
        narrowing.clamped,
    );
    statistics::add(
        PASS.argument,
        "narrowed",
        "Number of i64 results computed in i32",
        narrowing.narrowed,
    );
    statistics::add(
        PASS.argument,
        "casts",
        "Number of exact casts inserted between i32 and i64",
        narrowing.casts,
    );
    if narrowing.ok {
        Ok(())
    } else {
        Err(())
    }
}

/// The counts one run reports, and whether every rewrite succeeded.
struct Narrowing {
    narrowed: u64,
    casts: u64,
    clamped: u64,
    ok: bool,
}

/// The element ranges of a function's values, with the questions the narrowing asks
/// of them.
struct Widths<'g> {
    graph: &'g Graph,
    ranges: Vec<Option<Interval>>,
}

impl Widths<'_> {
    fn is_i64(&self, v: usize) -> bool {
        self.graph.ty(v).is_some_and(|t| t.dtype == DType::I64)
    }

    /// Whether `v` is an i64 value whose range fits in i32.
    fn fits(&self, v: usize) -> bool {
        self.is_i64(v) && self.ranges[v].is_some_and(fits_i32)
    }

    /// Which i64 results become i32.
    fn retyped(&self) -> Vec<bool> {
        let mut retyped = self.narrowable();
        self.keep_paying(&mut retyped);
        retyped
    }

    /// The results that fit and whose op computes the same in i32 on operands that fit
    /// (decided in program order: operands first).
    fn narrowable(&self) -> Vec<bool> {
        let graph = self.graph;
        let mut retyped = vec![false; graph.values.len()];
        for node in &graph.nodes {
            let [result] = node.results.as_slice() else {
                continue;
            };
            if !self.fits(*result) || !computes_in_i32(node) {
                continue;
            }
            let Some(same) = same_typed_operands(node) else {
                continue;
            };
            if same.iter().all(|&i| self.fits(node.operands[i])) {
                retyped[*result] = true;
            }
        }
        retyped
    }

    /// Narrowing pays only where a 32-bit reader follows (a narrowed op that pays, a
    /// compare of fitting operands, a cast to another type, a gather's indices); a
    /// value read only at 64 bits would just gain a widening cast. Decided backwards
    /// from the readers.
    fn keep_paying(&self, retyped: &mut [bool]) {
        let graph = self.graph;
        let mut readers: Vec<Vec<(usize, usize)>> = vec![Vec::new(); graph.values.len()];
        for (n, node) in graph.nodes.iter().enumerate() {
            for (i, &v) in node.operands.iter().enumerate() {
                readers[v].push((n, i));
            }
        }
        for node in graph.nodes.iter().rev() {
            for &result in &node.results {
                if !retyped[result] {
                    continue;
                }
                let pays = readers[result].iter().any(|&(n, operand)| {
                    let reader = &graph.nodes[n];
                    // A gather takes indices of either width; at 32 bits they no longer
                    // keep its kernel off the vector unit (BLOOM's fused-QKV split is a
                    // gather by a 0-d int64 constant).
                    let gather_index = reader.op != "ascend.cast" && either_width(reader, operand);
                    let narrowed_reader = reader.results.first().is_some_and(|&r| retyped[r]);
                    let compare = is_compare(reader)
                        && reader
                            .operands
                            .iter()
                            .filter(|&&v| self.is_i64(v))
                            .all(|&v| self.fits(v));
                    let cast_away = reader.op == "ascend.cast"
                        && reader.results.first().is_some_and(|&r| !self.is_i64(r));
                    narrowed_reader || compare || cast_away || gather_index
                });
                retyped[result] = pays;
            }
        }
    }

    /// Which operands of `node` it reads at 32 bits: the same-typed operands of a
    /// retyped op, the i64 operands of a compare whose i64 operands all fit.
    fn wanted_i32(&self, node: &Node, retyped: &[bool]) -> Vec<bool> {
        let mut wanted = vec![false; node.operands.len()];
        if node.results.first().is_some_and(|&r| retyped[r]) {
            for i in same_typed_operands(node).unwrap_or_default() {
                wanted[i] = true;
            }
        } else if is_compare(node) {
            let i64_operands: Vec<usize> = (0..node.operands.len())
                .filter(|&i| self.is_i64(node.operands[i]))
                .collect();
            if !i64_operands.is_empty() && i64_operands.iter().all(|&i| self.fits(node.operands[i]))
            {
                for i in i64_operands {
                    wanted[i] = true;
                }
            }
        }
        wanted
    }
}

impl Narrowing {
    /// Narrows the integer index arithmetic of one function holding `ascend` ops.
    fn narrow_function(&mut self, func: melior::ir::OperationRef) {
        let Some(extracted) = extract::extract_function(func) else {
            return;
        };
        if !extracted
            .graph
            .nodes
            .iter()
            .any(|n| n.op.starts_with("ascend."))
        {
            return;
        }
        let Some(extracted) = self.clamp(func, extracted) else {
            return;
        };
        let graph = &extracted.graph;
        let env = dim_env(graph);
        let widths = Widths {
            graph,
            ranges: analyze(graph, &env),
        };
        let retyped = widths.retyped();
        // Per op: cast the operands that need it, then retype its results.
        for (node, op) in graph.nodes.iter().zip(&extracted.ops) {
            self.cast_operands(&widths, node, *op, &retyped);
            self.retype_results(func, graph, (node, *op), &retyped);
        }
        // Graph results keep their declared types.
        if let Some(ret) = extracted.terminator {
            self.widen_outputs(graph, ret, &retyped);
        }
    }

    /// Clamps unbounded values that are only shifted and compared, and gives the
    /// function to analyze (extracted again after a clamp); `None` skips it.
    fn clamp<'c, 'a>(
        &mut self,
        func: melior::ir::OperationRef<'c, 'a>,
        extracted: ExtractedGraph<'c, 'a>,
    ) -> Option<ExtractedGraph<'c, 'a>> {
        let env = dim_env(&extracted.graph);
        let ranges = analyze(&extracted.graph, &env);
        match clamp_unbounded(&extracted.graph, &extracted.ops, &ranges) {
            Ok(0) => Some(extracted),
            Ok(n) => {
                self.clamped += n;
                extract::extract_function(func)
            }
            Err(e) => {
                diagnostics::error(func.location(), format!("cannot clamp: {e}"));
                self.ok = false;
                None
            }
        }
    }

    /// Casts each i64 operand of `op` that it reads at the other width than its value
    /// has; a narrowed constant read at 64 bits gets an i64 copy instead.
    fn cast_operands(
        &mut self,
        widths: &Widths,
        node: &Node,
        op: melior::ir::OperationRef,
        retyped: &[bool],
    ) {
        let graph = widths.graph;
        let wanted_i32 = widths.wanted_i32(node, retyped);
        for (i, &value) in node.operands.iter().enumerate() {
            if !widths.is_i64(value) || wanted_i32[i] == retyped[value] || either_width(node, i) {
                continue;
            }
            let Some(ty) = graph.ty(value).cloned() else {
                continue;
            };
            let (from, to) = if wanted_i32[i] {
                (ty.clone(), DType::I32)
            } else {
                (TensorType::new(DType::I32, ty.dims.clone()), DType::I64)
            };
            // A narrowed constant read at 64 bits gets its own i64 copy rather than
            // a cast: later passes then see a constant (a scalar branch of a select,
            // an operand to sink) instead of a one-op kernel computing it.
            if let Some(constant) = (to == DType::I64)
                .then(|| constant_values(graph, value))
                .flatten()
            {
                if let Err(e) = copy_constant(op, i, constant, &ty) {
                    diagnostics::error(op.location(), format!("cannot copy a constant: {e}"));
                    self.ok = false;
                }
                continue;
            }
            match cast_operand(op, i, from, to) {
                Ok(()) => self.casts += 1,
                Err(e) => {
                    diagnostics::error(op.location(), format!("cannot insert a cast: {e}"));
                    self.ok = false;
                }
            }
        }
    }

    /// Retypes the retyped results of `op` to i32, and rewrites a constant's value for
    /// its new type.
    fn retype_results(
        &mut self,
        func: melior::ir::OperationRef,
        graph: &Graph,
        (node, op): (&Node, melior::ir::OperationRef),
        retyped: &[bool],
    ) {
        for &result in &node.results {
            if !retyped[result] {
                continue;
            }
            let Some(ty) = graph.ty(result) else { continue };
            let narrow = TensorType::new(DType::I32, ty.dims.clone());
            let Some(new_type) = raw::parse_type_near(&func, &narrow.to_mlir()) else {
                self.ok = false;
                continue;
            };
            if let Ok(value) = op.result(0) {
                value.set_type(new_type);
            }
            if node.op == "ascend.constant" {
                if let Some(AttrValue::Dense { values, splat, .. }) = node.attr("value") {
                    let text = dense_int(values, *splat, &narrow);
                    raw::set_attribute_text(&op, "value", &text);
                }
            }
            self.narrowed += 1;
        }
    }

    /// Widens each retyped graph result back to i64 where `ret` returns it.
    fn widen_outputs(&mut self, graph: &Graph, ret: melior::ir::OperationRef, retyped: &[bool]) {
        for (i, &value) in graph.outputs.iter().enumerate() {
            if !retyped[value] {
                continue;
            }
            let Some(ty) = graph.ty(value).cloned() else {
                continue;
            };
            let narrow = TensorType::new(DType::I32, ty.dims.clone());
            match cast_operand(ret, i, narrow, DType::I64) {
                Ok(()) => self.casts += 1,
                Err(e) => {
                    diagnostics::error(ret.location(), format!("cannot insert a cast: {e}"));
                    self.ok = false;
                }
            }
        }
    }
}
