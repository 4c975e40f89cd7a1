//! TilingGroups (GE's `AxisGroup`): which loop axes of an AscGraph are tiled together.
//!
//! What it does: classifies every loop axis of a node into GE's groups (§6.3 of the GE
//! fact sheet) and merges the groups of nodes or of whole graphs with GE's table:
//! - `x`: axes tiled apart from the elementwise ones (transpose: input-side axes whose
//!   order differs from the output's),
//! - `y`: elementwise / broadcast (kept) axes,
//! - `r`: reduced axes (input repeat not 1, output repeat 1),
//! - `n`: non-splittable axes (a concat/split axis and all axes after it; the common
//!   trailing axes of a transpose).
//!
//! The same `merge` decides whether two kernels may share one loop nest (`--fuse`, in
//! [`Mode::CanFuse`]: set comparisons, the axis order is not fixed yet) and normalizes a
//! kernel's groups for scheduling ([`Mode::Schedule`]: order-sensitive comparisons).
//!
//! Preconditions: the graph is in hint form (every node's loop axes are all graph axes,
//! views have one entry per axis). Postconditions: none (pure functions).

use crate::graph::AscGraph;
use crate::ops::lookup_short;
use autofuse_ir::catalogue::Category;
use std::collections::BTreeSet;
use std::fmt;

/// The TilingGroup of a node or graph: four lists of axis ids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AxisGroup {
    pub x: Vec<i64>,
    pub y: Vec<i64>,
    pub r: Vec<i64>,
    pub n: Vec<i64>,
}

/// How groups are compared when merging.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Fusion decisions: groups are sets (the loop order of the merged graph is not
    /// fixed yet).
    CanFuse,
    /// Scheduling: groups are ordered lists and must agree in order.
    Schedule,
}

/// Two groups that do not merge, with the reason in words (boxed: errors stay small).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupConflict {
    pub target: Box<AxisGroup>,
    pub src: Box<AxisGroup>,
    pub reason: String,
}

impl fmt::Display for GroupConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tiling groups {} and {} do not merge: {}",
            self.target, self.src, self.reason
        )
    }
}

/// The shape of a group: which of x, y, r are non-empty (n is handled separately).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupKind {
    Empty,
    X,
    Y,
    R,
    XY,
    YR,
    XR,
    XYR,
}

impl AxisGroup {
    pub fn kind(&self) -> GroupKind {
        match (!self.x.is_empty(), !self.y.is_empty(), !self.r.is_empty()) {
            (false, false, false) => GroupKind::Empty,
            (true, false, false) => GroupKind::X,
            (false, true, false) => GroupKind::Y,
            (false, false, true) => GroupKind::R,
            (true, true, false) => GroupKind::XY,
            (false, true, true) => GroupKind::YR,
            (true, false, true) => GroupKind::XR,
            (true, true, true) => GroupKind::XYR,
        }
    }

    /// A group with only y axes.
    pub fn elementwise(axes: &[i64]) -> AxisGroup {
        AxisGroup {
            y: axes.to_vec(),
            ..AxisGroup::default()
        }
    }
}

fn list(f: &mut fmt::Formatter<'_>, axes: &[i64]) -> fmt::Result {
    let names: Vec<String> = axes.iter().map(|a| format!("z{a}")).collect();
    write!(f, "({})", names.join(","))
}

/// GE's notation: `(x)(y)(r)`, followed by `[n: ...]` when n is not empty.
impl fmt::Display for AxisGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        list(f, &self.x)?;
        list(f, &self.y)?;
        list(f, &self.r)?;
        if !self.n.is_empty() {
            let names: Vec<String> = self.n.iter().map(|a| format!("z{a}")).collect();
            write!(f, "[n: {}]", names.join(","))?;
        }
        Ok(())
    }
}

/// Whether a node's group is the elementwise one (every loop axis y): every op but
/// buffers, reductions, transposes, concats and splits.
fn is_elementwise(n: &crate::graph::AscNode) -> bool {
    match lookup_short(&n.op).map(|s| s.category) {
        Some(Category::Buffer | Category::Reduce) | None => false,
        Some(Category::Layout) => n.op != "transpose",
        Some(Category::Structural) => !matches!(n.op.as_str(), "concat" | "split"),
        Some(_) => true,
    }
}

/// The group of one node, or `None` for buffer nodes (data, output, workspace, scalar,
/// fill), which GE skips.
pub fn node_group(graph: &AscGraph, node: usize) -> Option<AxisGroup> {
    node_group_in(graph, node, &graph.sched_axis())
}

/// [`node_group`] with the graph's loop axes computed once by the caller.
fn node_group_in(graph: &AscGraph, node: usize, loop_axes: &[i64]) -> Option<AxisGroup> {
    let n = graph.nodes.get(node)?;
    // Elementwise, broadcast, load, store, cast, gather: all loop axes are y.
    if is_elementwise(n) {
        return Some(AxisGroup::elementwise(loop_axes));
    }
    match lookup_short(&n.op).map(|s| s.category) {
        Some(Category::Reduce) => {
            // Reduced: the input varies along the axis, the result does not.
            let input = n.operands.first().and_then(|&o| graph.nodes.get(o));
            let mut group = AxisGroup::default();
            for (position, &axis) in n.view.axis.iter().enumerate() {
                let out_unit = n.view.repeats.get(position).and_then(|e| e.as_const()) == Some(1);
                let in_unit = input
                    .and_then(|i| i.view.repeats.get(position))
                    .and_then(|e| e.as_const())
                    == Some(1);
                if out_unit && !in_unit {
                    group.r.push(axis);
                } else {
                    group.y.push(axis);
                }
            }
            Some(group)
        }
        Some(Category::Layout) if n.op == "transpose" => {
            let input = n
                .operands
                .first()
                .and_then(|&o| graph.nodes.get(o))
                .map(|i| i.view.axis.clone())
                .unwrap_or_default();
            let output = &n.view.axis;
            // Trailing axes in the same place on both sides stay whole (vectorized).
            let mut common = 0;
            while common < input.len().min(output.len())
                && input[input.len() - 1 - common] == output[output.len() - 1 - common]
            {
                common += 1;
            }
            let tail: BTreeSet<i64> = output[output.len() - common..].iter().copied().collect();
            let mut group = AxisGroup::default();
            for (position, &axis) in input.iter().enumerate() {
                if tail.contains(&axis) {
                    group.n.push(axis);
                } else if output.get(position) != Some(&axis) {
                    group.x.push(axis);
                } else {
                    group.y.push(axis);
                }
            }
            Some(group)
        }
        Some(Category::Structural) if matches!(n.op.as_str(), "concat" | "split") => {
            // The concat/split axis is where an operand's repeat differs from the
            // result's; it and everything after it cannot be split.
            let input = n.operands.first().and_then(|&o| graph.nodes.get(o));
            let cut = input
                .and_then(|i| {
                    i.view
                        .repeats
                        .iter()
                        .zip(&n.view.repeats)
                        .position(|(a, b)| a != b)
                })
                .unwrap_or(n.view.axis.len());
            let mut group = AxisGroup::default();
            for (position, &axis) in n.view.axis.iter().enumerate() {
                if position < cut || cut == 0 && n.op == "split" {
                    group.y.push(axis);
                } else {
                    group.n.push(axis);
                }
            }
            Some(group)
        }
        // Buffer nodes and unknown ops.
        _ => None,
    }
}

/// The group of a set of nodes of `graph` (every node when `nodes` is `None`), folded
/// with [`merge`] in node order.
pub fn graph_group(
    graph: &AscGraph,
    nodes: Option<&[usize]>,
    mode: Mode,
) -> Result<AxisGroup, GroupConflict> {
    let all: Vec<usize> = (0..graph.nodes.len()).collect();
    let loop_axes = graph.sched_axis();
    let elementwise = AxisGroup::elementwise(&loop_axes);
    let mut group = AxisGroup::default();
    for &node in nodes.unwrap_or(&all) {
        // Most nodes are elementwise: their group is known without building it.
        if graph.nodes.get(node).is_some_and(is_elementwise) {
            if group != elementwise {
                group = merge(&group, &elementwise, mode)?;
            }
            continue;
        }
        if let Some(g) = node_group_in(graph, node, &loop_axes) {
            // Most nodes of a kernel share one group: merging equal groups (with no
            // non-splittable axes to move) gives the same group.
            if g == group && g.n.is_empty() {
                continue;
            }
            group = merge(&group, &g, mode)?;
        }
    }
    Ok(group)
}

fn union(a: &[i64], b: &[i64]) -> Vec<i64> {
    let mut out = a.to_vec();
    for x in b {
        if !out.contains(x) {
            out.push(*x);
        }
    }
    out
}

fn without(list: &[i64], removed: &[i64]) -> Vec<i64> {
    list.iter()
        .copied()
        .filter(|a| !removed.contains(a))
        .collect()
}

/// Whether two axis lists are the same group: as sets in `CanFuse` mode, as sequences
/// (after sorting a union into loop order, i.e. by id) in `Schedule` mode.
fn same(a: &[i64], b: &[i64], mode: Mode) -> bool {
    match mode {
        Mode::CanFuse => {
            let sa: BTreeSet<i64> = a.iter().copied().collect();
            let sb: BTreeSet<i64> = b.iter().copied().collect();
            sa == sb
        }
        Mode::Schedule => a == b,
    }
}

/// `a ∪ b` in loop order (axis ids are assigned outer to inner).
fn ordered_union(a: &[i64], b: &[i64]) -> Vec<i64> {
    let mut u = union(a, b);
    u.sort_unstable();
    u
}

/// Merges the group of `src` into `target` (GE's `MergeAxesGroup`).
///
/// First the n groups are united and their axes leave x/y/r on both sides; then the
/// shapes decide: Y+Y (same y), Y+YR (y equals the other's y∪r; result YR), YR+YR (same
/// y and r), Y+XY (y equals x∪y; result XY), Y+R (y equals r; result R), their mirror
/// images, and identical groups. Every other combination conflicts. Two extensions over
/// GE's table: R+R and XY+XY merge when identical (a graph with two full reductions of
/// one tensor is one loop nest).
pub fn merge(target: &AxisGroup, src: &AxisGroup, mode: Mode) -> Result<AxisGroup, GroupConflict> {
    let n = union(&target.n, &src.n);
    let strip = |g: &AxisGroup| AxisGroup {
        x: without(&g.x, &n),
        y: without(&g.y, &n),
        r: without(&g.r, &n),
        n: Vec::new(),
    };
    let t = strip(target);
    let s = strip(src);
    let conflict = |reason: String| GroupConflict {
        target: Box::new(target.clone()),
        src: Box::new(src.clone()),
        reason,
    };
    use GroupKind::*;
    let merged = match (t.kind(), s.kind()) {
        (Empty, _) => s.clone(),
        (_, Empty) => t.clone(),
        _ if same(&t.x, &s.x, mode) && same(&t.y, &s.y, mode) && same(&t.r, &s.r, mode) => {
            t.clone()
        }
        (Y, YR) => {
            if same(&t.y, &ordered_union(&s.y, &s.r), mode) {
                s.clone()
            } else {
                return Err(conflict(
                    "the elementwise axes are not the reduction's kept and reduced axes".into(),
                ));
            }
        }
        (YR, Y) => {
            if same(&s.y, &ordered_union(&t.y, &t.r), mode) {
                t.clone()
            } else {
                return Err(conflict(
                    "the elementwise axes are not the reduction's kept and reduced axes".into(),
                ));
            }
        }
        (YR, YR) => return Err(conflict("the reductions reduce different axes".into())),
        (Y, XY) => {
            if same(&t.y, &ordered_union(&s.x, &s.y), mode) {
                s.clone()
            } else {
                return Err(conflict(
                    "the elementwise axes are not the transpose's axes".into(),
                ));
            }
        }
        (XY, Y) => {
            if same(&s.y, &ordered_union(&t.x, &t.y), mode) {
                t.clone()
            } else {
                return Err(conflict(
                    "the elementwise axes are not the transpose's axes".into(),
                ));
            }
        }
        (Y, R) => {
            if same(&t.y, &s.r, mode) {
                s.clone()
            } else {
                return Err(conflict(
                    "the elementwise axes are not the fully reduced axes".into(),
                ));
            }
        }
        (R, Y) => {
            if same(&s.y, &t.r, mode) {
                t.clone()
            } else {
                return Err(conflict(
                    "the elementwise axes are not the fully reduced axes".into(),
                ));
            }
        }
        (Y, Y) => return Err(conflict("the elementwise axes differ".into())),
        (R, R) => return Err(conflict("the reductions reduce different axes".into())),
        (a, b) => {
            return Err(conflict(format!(
                "a {a:?} group cannot meet a {b:?} group in one loop nest"
            )))
        }
    };
    Ok(AxisGroup { n, ..merged })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{AscNode, Axis, AxisKind, View};
    use autofuse_ir::graph::DType;
    use autofuse_symbolic::Expr;

    fn g(x: &[i64], y: &[i64], r: &[i64]) -> AxisGroup {
        AxisGroup {
            x: x.to_vec(),
            y: y.to_vec(),
            r: r.to_vec(),
            n: Vec::new(),
        }
    }

    #[test]
    fn ge_table_cases() {
        let m = Mode::CanFuse;
        // ()(z0,z1)() Merge ()(z0)(z1) => ()(z0)(z1)  (the GE documentation's example)
        assert_eq!(
            merge(&g(&[], &[0, 1], &[]), &g(&[], &[0], &[1]), m),
            Ok(g(&[], &[0], &[1]))
        );
        assert_eq!(
            merge(&g(&[], &[0], &[1]), &g(&[], &[1, 0], &[]), m),
            Ok(g(&[], &[0], &[1]))
        );
        assert_eq!(
            merge(&g(&[], &[0], &[1]), &g(&[], &[0], &[1]), m),
            Ok(g(&[], &[0], &[1]))
        );
        assert_eq!(
            merge(&g(&[], &[0], &[]), &g(&[], &[], &[0]), m),
            Ok(g(&[], &[], &[0]))
        );
        assert_eq!(
            merge(&g(&[], &[0, 1], &[]), &g(&[1], &[0], &[]), m),
            Ok(g(&[1], &[0], &[]))
        );
        // Conflicts: different reduce axes, elementwise axes that are not the
        // reduction's, different elementwise axes, full against partial reduction.
        assert!(merge(&g(&[], &[0], &[1]), &g(&[], &[1], &[0]), m).is_err());
        assert!(merge(&g(&[], &[0], &[]), &g(&[], &[0], &[1]), m).is_err());
        assert!(merge(&g(&[], &[0], &[]), &g(&[], &[1], &[]), m).is_err());
        assert!(merge(&g(&[], &[], &[0, 1]), &g(&[], &[0], &[1]), m).is_err());
    }

    #[test]
    fn schedule_mode_is_order_sensitive() {
        assert!(merge(&g(&[], &[0, 1], &[]), &g(&[], &[1, 0], &[]), Mode::CanFuse).is_ok());
        assert!(merge(&g(&[], &[0, 1], &[]), &g(&[], &[1, 0], &[]), Mode::Schedule).is_err());
    }

    #[test]
    fn n_axes_leave_the_other_groups() {
        let target = AxisGroup {
            y: vec![0, 1],
            ..AxisGroup::default()
        };
        let src = AxisGroup {
            y: vec![0],
            n: vec![1],
            ..AxisGroup::default()
        };
        let merged = merge(&target, &src, Mode::CanFuse).unwrap();
        assert_eq!(merged.y, vec![0]);
        assert_eq!(merged.n, vec![1]);
        assert_eq!(merged.to_string(), "()(z0)()[n: z1]");
    }

    fn node(op: &str, operands: Vec<usize>, repeats: &[i64]) -> AscNode {
        let repeats: Vec<Expr> = repeats.iter().map(|&r| Expr::constant(r)).collect();
        AscNode {
            op: op.into(),
            operands,
            dtype: DType::F32,
            view: View::contiguous(vec![0, 1], repeats),
            attrs: Vec::new(),
            index: None,
            loc: None,
        }
    }

    #[test]
    fn node_groups_of_a_reduction_graph() {
        let axes = (0..2)
            .map(|i| Axis {
                id: i,
                name: format!("z{i}"),
                size: Expr::constant(4 + 4 * i),
                kind: AxisKind::Original,
                from: Vec::new(),
            })
            .collect();
        let graph = AscGraph {
            name: "k".into(),
            axes,
            sizes: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            nodes: vec![
                node("data", vec![], &[4, 8]),
                node("load", vec![0], &[4, 8]),
                node("sum", vec![1], &[4, 1]),
                node("broadcast", vec![2], &[4, 8]),
                node("sub", vec![1, 3], &[4, 8]),
            ],
            source_ops: Vec::new(),
        };
        assert_eq!(node_group(&graph, 0), None);
        assert_eq!(node_group(&graph, 2), Some(g(&[], &[0], &[1])));
        assert_eq!(node_group(&graph, 4), Some(g(&[], &[0, 1], &[])));
        let all = graph_group(&graph, None, Mode::CanFuse).unwrap();
        assert_eq!(all.to_string(), "()(z0)(z1)");
    }
}
