//! Symbolic upper bounds of non-negative index values: the flat indices TorchScript
//! exports compute as `range(batch) * seq + range(seq)` to gather from a `[batch*seq]`
//! view of a mask.
//!
//! The numeric analysis bounds each symbol by `2^31 - 1` on its own, so such a product
//! seems to need 62 bits. Here every non-negative value also gets an inclusive upper
//! bound as a shape expression: `range(0, D, 1)` is at most `D - 1`, a symbolic constant
//! is its expression, a non-negative integer constant its largest value; sums and
//! products of non-negative values add and multiply their bounds, and data movement
//! keeps them. The example's bound is `(batch - 1) * seq + seq - 1 = batch*seq - 1`.
//! When a bound is at most `N - 1` for the element count `N` of a tensor of the graph
//! (the difference is proven non-negative with every symbol in `[1, 2^31 - 1]`), the
//! value is an offset into that tensor, which the device indexes with 32-bit offsets:
//! it fits in i32 (`N <= 2^31 - 1`, as every dim the analysis assumes).

use super::Interval;
use autofuse_ir::graph::{Graph, Node};
use autofuse_symbolic::{Expr, ShapeEnv};

/// The element counts of the graph's tensors with a symbol (a static count is already
/// bounded numerically), each once.
pub(super) fn element_counts(graph: &Graph) -> Vec<Expr> {
    let mut counts: Vec<Expr> = Vec::new();
    for ty in graph.values.iter().filter_map(|v| v.ty.as_ref()) {
        if let Some(n) = ty.num_elements() {
            if !n.is_const() && !counts.contains(&n) {
                counts.push(n);
            }
        }
    }
    counts
}

/// The symbolic inclusive upper bound of `node`'s first result, given the numeric ranges
/// and the bounds of the values before it; `None` when there is none or the result may
/// be negative.
pub(super) fn node_bound(
    graph: &Graph,
    node: &Node,
    range: Option<Interval>,
    bounds: &[Option<Expr>],
) -> Option<Expr> {
    if range?.0 < 0 {
        return None;
    }
    let operand = |i: usize| -> Option<Expr> { bounds.get(*node.operands.get(i)?)?.clone() };
    match node.op.strip_prefix("ascend.")? {
        "constant" => Some(Expr::constant(i64::try_from(range?.1).ok()?)),
        "symbolic_constant" => match node.attr("values")?.as_exprs()?.as_slice() {
            [e] => Some(e.clone()),
            _ => None,
        },
        "range" => {
            let (start, delta) = (node.attr("start")?, node.attr("delta")?);
            if start.as_int()? != 0 || delta.as_int()? != 1 {
                return None;
            }
            let count = graph
                .ty(*node.results.first()?)?
                .dims
                .first()?
                .expr()?
                .clone();
            Some(count - Expr::constant(1))
        }
        // Integer casts keep a value that fits the result (checked by the caller's
        // numeric range, which holds the result type's own range when it does not).
        "cast" => {
            let from = graph.ty(*node.operands.first()?)?.dtype;
            (!from.is_float() && from != autofuse_ir::graph::DType::Bool)
                .then(|| operand(0))
                .flatten()
        }
        "add" => Some(operand(0)? + operand(1)?),
        "mul" => Some(operand(0)? * operand(1)?),
        "broadcast_to" | "reshape" | "squeeze" | "unsqueeze" | "transpose" | "slice" => operand(0),
        _ => None,
    }
}

/// Whether `bound` is below the element count of one of `counts`.
pub(super) fn below_an_element_count(env: &ShapeEnv, bound: &Expr, counts: &[Expr]) -> bool {
    counts.iter().any(|n| {
        let slack = n.clone() - Expr::constant(1) - bound.clone();
        matches!(env.bounds(&slack), (Some(lo), _) if lo >= 0)
    })
}
