//! Axis normalization (GE's `RemoveAllZeroStrideLoopAxis` and `MergeContinuousAxis`):
//! what each node's view says about each hint axis, the axes kept, and the runs of
//! adjacent axes merged into one normalized axis.

use super::{c, refuse};
use autofuse_ascir::graph::{AscGraph, AscNode};
use autofuse_ascir::kernel::*;
use autofuse_symbolic::Expr;

/// Per node and hint axis, what its view covers.
pub(super) struct HintViews {
    /// The hint axis ids, outer to inner.
    pub(super) hint_ids: Vec<i64>,
    /// Per node and hint axis: the view iterates the axis (or a part of a concat axis);
    /// false where it is broadcast or reduced.
    pub(super) full: Vec<Vec<bool>>,
    /// Per node and hint axis: the extent of the part of a concat axis the view covers.
    pub(super) partial: Vec<Vec<Option<Expr>>>,
    /// Concat axes (hint positions): views may cover part of them.
    pub(super) concat_axes: Vec<usize>,
}

/// Nodes whose view strides are offsets into a tensor (an arange's are offsets into
/// the range it computes), not the dense strides of a UB tile.
pub(super) fn is_gm(n: &AscNode) -> bool {
    matches!(n.op.as_str(), "data" | "store" | "output" | "arange")
}

impl HintViews {
    /// Reads every node's view over the hint axes. Refuses views that are not over the
    /// whole loop nest, and repeats other than 1, the whole axis or a part of a concat
    /// axis.
    pub(super) fn classify(graph: &AscGraph) -> Result<HintViews, String> {
        let hint_ids = graph.sched_axis();
        if hint_ids.is_empty() && graph.nodes.iter().any(|n| !n.view.axis.is_empty()) {
            return refuse("views name axes the kernel does not have");
        }
        let concat_axes: Vec<usize> = (0..graph.nodes.len())
            .filter(|&n| graph.nodes[n].op == "concat")
            .map(|n| {
                graph
                    .concat_axis(n)
                    .ok_or_else(|| format!("concat node {n} has malformed views"))
            })
            .collect::<Result<_, _>>()?;
        let feeds_concat = feeds_concat(graph, &concat_axes, hint_ids.len());
        let mut views = HintViews {
            hint_ids,
            full: Vec::new(),
            partial: Vec::new(),
            concat_axes,
        };
        for (i, feeds) in feeds_concat.iter().enumerate() {
            let (f, part) = views.classify_node(graph, i, feeds)?;
            views.full.push(f);
            views.partial.push(part);
        }
        Ok(views)
    }

    /// Node `i`'s view per hint axis: full or not, and the part of a concat axis it
    /// covers (`feeds_concat`: per axis, the node's value is read as a part of a concat
    /// along it).
    fn classify_node(
        &self,
        graph: &AscGraph,
        i: usize,
        feeds_concat: &[bool],
    ) -> Result<(Vec<bool>, Vec<Option<Expr>>), String> {
        let (hint_ids, concat_axes) = (&self.hint_ids, &self.concat_axes);
        let node = &graph.nodes[i];
        if node.view.axis != *hint_ids {
            return refuse(format!(
                "node {i} ('{}') has a view over axes {:?}, not the loop nest {:?}",
                node.op, node.view.axis, hint_ids
            ));
        }
        if node.view.repeats.len() != hint_ids.len() || node.view.strides.len() != hint_ids.len() {
            return refuse(format!("node {i} has a malformed view"));
        }
        let mut f = Vec::new();
        let mut part = Vec::new();
        for (k, rep) in node.view.repeats.iter().enumerate() {
            let size = &graph.axes[k].size;
            part.push(None);
            if rep == size && rep.as_const() != Some(1) {
                f.push(true);
            } else if rep.as_const() == Some(1)
                && (!concat_axes.contains(&k) || !feeds_concat.get(k).copied().unwrap_or(false))
            {
                f.push(false);
            } else if concat_axes.contains(&k) {
                // A part of a concat axis (an operand of the concat).
                f.push(true);
                part[k] = Some(rep.clone());
            } else {
                return refuse(format!(
                    "node {i} ('{}') has repeat '{rep}' on axis {} of size '{size}' \
                         (only 1 or the whole axis are scheduled)",
                    node.op, graph.axes[k].name
                ));
            }
        }
        Ok((f, part))
    }

    /// The hint axes that stay (GE's `RemoveAllZeroStrideLoopAxis`): concat axes, and
    /// axes not of static size 1 that some node iterates.
    pub(super) fn remove_zero_stride_axes(&self, graph: &AscGraph) -> Vec<usize> {
        let (hint_ids, full_hint) = (&self.hint_ids, &self.full);
        let mut kept: Vec<usize> = (0..hint_ids.len())
            .filter(|&k| {
                self.concat_axes.contains(&k)
                    || (graph.axes[k].size.as_const() != Some(1) && full_hint.iter().any(|f| f[k]))
            })
            .collect();
        // A GM view strided along the innermost kept axis but contiguous along a later unit
        // axis (`x[..., 3:4]`, or a store of every other element) moves rows of one
        // element: the unit axis stays innermost so DataCopyPad moves those rows (32-byte
        // blocks per element, but no kernel of its own).
        if let (Some(&inner), Some(unit)) = (kept.last(), hint_ids.len().checked_sub(1)) {
            let one_element_rows = unit > inner
                && graph.axes[unit].size.as_const() == Some(1)
                && graph.nodes.iter().enumerate().any(|(n, node)| {
                    matches!(node.op.as_str(), "data" | "store" | "output")
                        && full_hint[n][inner]
                        && node.view.strides[inner] != c(1)
                        && node.view.strides[unit] == c(1)
                });
            if one_element_rows {
                kept.push(unit);
            }
        }
        kept
    }

    /// Runs of adjacent `kept` axes every node sees the same way (GE's
    /// `MergeContinuousAxis`): both full and contiguous in every GM view, or both
    /// broadcast or reduced. Concat axes stay axes of their own.
    pub(super) fn merge_continuous_axes(
        &self,
        graph: &AscGraph,
        kept: &[usize],
    ) -> Vec<Vec<usize>> {
        let (concat_axes, full_hint) = (&self.concat_axes, &self.full);
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for &k in kept {
            let mergeable = groups.last().is_some_and(|g: &Vec<usize>| {
                let a = *g.last().unwrap_or(&k);
                // Concat axes stay axes of their own.
                if concat_axes.contains(&a) || concat_axes.contains(&k) {
                    return false;
                }
                // Only adjacent hint axes (a dropped axis in between is size 1: fine).
                graph.nodes.iter().enumerate().all(|(n, node)| {
                    let (fa, fb) = (full_hint[n][a], full_hint[n][k]);
                    if fa != fb {
                        return false;
                    }
                    if !fa || !is_gm(node) {
                        return true;
                    }
                    node.view.strides[a]
                        == node.view.strides[k].clone() * graph.axes[k].size.clone()
                })
            });
            if mergeable {
                if let Some(g) = groups.last_mut() {
                    g.push(k);
                }
            } else {
                groups.push(vec![k]);
            }
        }
        groups
    }
}

/// Per node and hint axis: the node's value is read (transitively) as a part of a
/// concat along that axis; only such a view may cover a part of a concat axis.
/// Elsewhere a repeat of 1 there is a reduced or broadcast axis: below the concats,
/// and in the operand of a broadcast that expands the axis (an edge pad's repeated
/// border row is a part; the one row it repeats is not).
fn feeds_concat(graph: &AscGraph, concat_axes: &[usize], hint_rank: usize) -> Vec<Vec<bool>> {
    let mut feeds_concat = vec![vec![false; hint_rank]; graph.nodes.len()];
    for n in (0..graph.nodes.len()).rev() {
        let node = &graph.nodes[n];
        let mut passed = feeds_concat[n].clone();
        if node.op == "concat" {
            for &k in concat_axes {
                if graph.concat_axis(n) == Some(k) {
                    passed[k] = true;
                }
            }
        }
        for &o in &node.operands {
            let expands = |k: usize| {
                node.op == "broadcast"
                    && graph.nodes.get(o).and_then(|x| x.view.repeats.get(k))
                        != node.view.repeats.get(k)
            };
            if let Some(f) = feeds_concat.get_mut(o) {
                for k in 0..hint_rank.min(f.len()) {
                    f[k] |= passed[k] && !expands(k);
                }
            }
        }
    }
    feeds_concat
}

/// The normalized loop nest: one axis per run of merged hint axes.
pub(super) struct NormAxes {
    pub(super) axes: Vec<NormAxis>,
    /// The hint positions each normalized axis merges, outer to inner.
    pub(super) groups: Vec<Vec<usize>>,
    /// Every axis was dropped: one axis of size 1 (`zs`) keeps the tile rank >= 1.
    pub(super) scalar: bool,
    /// The id the next new axis gets.
    pub(super) next_id: i64,
}

impl NormAxes {
    /// The normalized axes of the merged runs `groups` of `graph`'s hint axes
    /// (`hint_ids`): a run of one axis keeps its id, a longer run gets a new id, the
    /// concatenated name and the product of the sizes.
    pub(super) fn merge(graph: &AscGraph, hint_ids: &[i64], groups: Vec<Vec<usize>>) -> NormAxes {
        let mut next_id = hint_ids.iter().copied().max().map_or(0, |m| m + 1);
        let mut axes = Vec::new();
        for g in &groups {
            if g.len() == 1 {
                let a = &graph.axes[g[0]];
                axes.push(NormAxis {
                    id: a.id,
                    name: a.name.clone(),
                    size: a.size.clone(),
                    from: vec![a.id],
                });
            } else {
                let size = g
                    .iter()
                    .fold(c(1), |acc, &k| acc * graph.axes[k].size.clone());
                axes.push(NormAxis {
                    id: next_id,
                    name: g.iter().map(|&k| graph.axes[k].name.as_str()).collect(),
                    size,
                    from: g.iter().map(|&k| graph.axes[k].id).collect(),
                });
                next_id += 1;
            }
        }
        let scalar = axes.is_empty();
        if scalar {
            // Everything has extent 1: one axis of size 1 keeps the tile rank >= 1.
            axes.push(NormAxis {
                id: next_id,
                name: "zs".into(),
                size: c(1),
                from: Vec::new(),
            });
            next_id += 1;
        }
        NormAxes {
            axes,
            groups,
            scalar,
            next_id,
        }
    }

    /// The normalized axis holding hint position `hint`, `None` when it was dropped.
    pub(super) fn of_hint(&self, hint: usize) -> Option<usize> {
        self.groups
            .iter()
            .position(|g| g.contains(&hint))
            .map(|p| p + usize::from(self.scalar))
    }
}
