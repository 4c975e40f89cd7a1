//! The algorithm of `--schedule`: from an AscGraph in GE's hint form to the impl-form
//! kernel model (`autofuse_ascir::kernel::Schedule`) the tiling solver, the impl-form
//! interpreter and the Ascend C translation read.
//!
//! Steps (GE `optimize::Optimizer`, ge_autofuse.md §6):
//! 0. **Loop order**: a pointwise kernel whose data view is contiguous along an axis
//!    other than the one just outside the innermost (a transpose moving the innermost
//!    axis anywhere) gets that axis moved there (`transposed_loop_order`), so its loads
//!    are 2-D blocks of the two innermost loops.
//! 1. **Normalize axes** (module `axes`, GE's `RemoveAllZeroStrideLoopAxis` and
//!    `MergeContinuousAxis`): drop axes of static size 1 and axes no node iterates on
//!    (but a unit innermost axis along which a data view is contiguous stays: rows of
//!    one element); merge adjacent axes that every node sees the same way (both extents
//!    full and contiguous in every GM view, or both broadcast/reduced). Each result is
//!    a [`NormAxis`].
//! 2. **TilingGroup** (module `nodes`, with the checks of what the schedule expresses):
//!    per node, axes it reduces go to R, the rest to Y (X, transposes, is empty: no op
//!    of the hint form transposes); the kernel's group is the union.
//! 3. **Tiling cases** (module `cases`): one per Y axis `u` (the UB-split axis, GE's
//!    `ub_tiling_id_y`). A tile is a box: looped axes (Y axes before `u`) have extent
//!    1, `u` has the tile size `t` (`<u>t_size`, the `zT`/`zt` split), every later axis
//!    and every R axis is whole (R axes stay in UB: GE's all-load reduce template). The
//!    tiles of all looped axes and `zT` are merged and block-split over cores
//!    (`<M>TB`/`<M>Tb`). A kernel without Y axes has one case without split: one tile,
//!    one block. Then one split-reduction case per R axis, for rows longer than UB: the
//!    tile is a chunk of the reduced axis, blocks take row groups, and each row group
//!    runs passes over the chunks ([`SplitPlan`]): reductions accumulate chunk by
//!    chunk, what depends on them is recomputed in later passes.
//! 4. **Layout**: a value in UB is the row-major box of its extents (1 where its view is
//!    broadcast or reduced) with the innermost extent padded to `align` elements, where
//!    `align = 32 B / smallest element size` of the kernel: every row starts 32-byte
//!    aligned for every dtype, so casts keep the layout. Buffers are rounded to 256 B so
//!    `Compare` (count*sizeof(T) % 256 == 0 on 2201) may run over whole buffers.
//! 5. **Buffers** (module `allocate`, GE's `BufQueAllocator`): each load gets a VECIN
//!    queue and each store a VECOUT queue, double buffered (queues beyond the chip's
//!    per-position budget share one queue block); values computed and consumed by the
//!    vector unit get VECCALC TBuf slots, reused by lifetime (an elementwise op may
//!    write over an operand that dies at it); one work buffer for reductions, one mask
//!    buffer for compares and selects, one scratch buffer for ops that need a
//!    temporary.
//!
//! Booleans live in UB as half 0.0/1.0 (`Compare` + `Select`), as u8 in GM.
//!
//! Preconditions: a verified AscGraph in hint form (every view names all axes in order,
//! repeats are 1 or the axis size). Postconditions: `Schedule::check` holds (buffer
//! counts within the chip's limits); every R axis is inside the tile of every case.
//! Kernels the schedule cannot express are refused with a reason (the caller leaves them
//! in hint form).

mod allocate;
mod axes;
mod cases;
mod nodes;
mod ops;

use allocate::allocate;
use autofuse_ascir::chip::ChipProfile;
use autofuse_ascir::graph::{AscGraph, AscNode, View};
use autofuse_ascir::kernel::*;
use autofuse_symbolic::Expr;
use axes::{HintViews, NormAxes};
use cases::{add_cross_core_cases, FitCases};
use nodes::node_infos;
use ops::CheckOps;

fn c(v: i64) -> Expr {
    Expr::constant(v)
}

fn refuse<T>(message: impl Into<String>) -> Result<T, String> {
    Err(message.into())
}

/// Builds the impl-form model of a kernel (`Schedule::build`).
pub trait BuildSchedule: Sized {
    /// Schedules `graph` for `chip`. Errors explain why the kernel stays in hint form.
    fn build(graph: &AscGraph, chip: &ChipProfile) -> Result<Self, String>;
}

impl BuildSchedule for Schedule {
    /// Schedules `graph` for `chip`. Errors explain why the kernel stays in hint form.
    fn build(graph: &AscGraph, chip: &ChipProfile) -> Result<Schedule, String> {
        match transposed_loop_order(graph) {
            Some(order) => build_in_order(&permute_loop_nest(graph, &order), chip),
            None => build_in_order(graph, chip),
        }
    }
}

/// Concat rows (elements after the concat axis) up to this many always fit a tile
/// whole; longer or symbolic rows also get a case cutting them into blocks.
const CONCAT_ROW_BLOCK_MIN: i64 = 1024;
/// The longest row block tried for such a case (elements).
const CONCAT_ROW_BLOCK_MAX: i64 = 16384;

/// Ops of a pointwise kernel: the only ones whose loop nest may be reordered (each
/// element is computed on its own, and no attribute names an axis position).
const REORDERABLE_OPS: &[&str] = &["data", "load", "store", "output", "cast", "scalar", "fill"];

/// The loop order that turns a transpose moving the innermost axis into one the kernel
/// transposes in 2-D UB blocks: a pointwise kernel walks its result's axes, and a data
/// view contiguous along axis `k` but strided along the innermost non-unit axis `last`
/// is loaded in blocks of (`k`, `last`), so `k` must be the loop just outside `last`.
/// Axes `k` moves across keep their order; stores then write rows (contiguous along
/// `last`) with permuted outer strides. `None` when the nest is already right or the
/// kernel is not pointwise (the schedule then refuses what it cannot express).
fn transposed_loop_order(graph: &AscGraph) -> Option<Vec<usize>> {
    let non_unit: Vec<usize> = (0..graph.axes.len())
        .filter(|&k| graph.axes[k].size.as_const() != Some(1))
        .collect();
    let (&last, rest) = non_unit.split_last()?;
    let &second = rest.last()?;
    let pointwise = graph.nodes.iter().all(|n| {
        REORDERABLE_OPS.contains(&n.op.as_str())
            || (node_is_elementwise(&n.op) && n.view.axis.len() == graph.axes.len())
    });
    if !pointwise {
        return None;
    }
    let whole = |n: &AscNode, k: usize| n.view.repeats.get(k) == Some(&graph.axes[k].size);
    let k = graph.nodes.iter().find_map(|n| {
        if n.op != "data" || !whole(n, last) || n.view.strides.get(last) == Some(&c(1)) {
            return None;
        }
        rest.iter()
            .copied()
            .find(|&k| whole(n, k) && n.view.strides.get(k) == Some(&c(1)))
    })?;
    if k == second {
        return None;
    }
    let mut order: Vec<usize> = (0..graph.axes.len()).filter(|&a| a != k).collect();
    let at = order.iter().position(|&a| a == last)?;
    order.insert(at, k);
    Some(order)
}

/// Whether `op` names an elementwise op of the hint form (not a structural one).
fn node_is_elementwise(op: &str) -> bool {
    !REDUCE_OPS.contains(&op)
        && !matches!(
            op,
            "broadcast"
                | "arange"
                | "concat"
                | "extract_slice"
                | "gather"
                | "workspace"
                | "transpose"
                | "split"
        )
}

/// `graph` with its loop nest in `order` (positions of the current axes): GM views keep
/// their strides per axis, UB views are the row-major boxes of the new order.
fn permute_loop_nest(graph: &AscGraph, order: &[usize]) -> AscGraph {
    let mut permuted = graph.clone();
    permuted.axes = order.iter().map(|&k| graph.axes[k].clone()).collect();
    let ids: Vec<i64> = permuted.axes.iter().map(|a| a.id).collect();
    for node in &mut permuted.nodes {
        let pick = |list: &[Expr]| -> Vec<Expr> {
            order.iter().filter_map(|&k| list.get(k).cloned()).collect()
        };
        let repeats = pick(&node.view.repeats);
        node.view = if matches!(node.op.as_str(), "data" | "store" | "output") {
            View {
                axis: ids.clone(),
                strides: pick(&node.view.strides),
                repeats,
            }
        } else {
            View::contiguous(ids.clone(), repeats)
        };
    }
    permuted
}

/// Schedules `graph` with its loop nest as it is: the steps of the module
/// documentation, in order.
fn build_in_order(graph: &AscGraph, chip: &ChipProfile) -> Result<Schedule, String> {
    let views = HintViews::classify(graph)?;
    let kept = views.remove_zero_stride_axes(graph);
    let groups = views.merge_continuous_axes(graph, &kept);
    let norm = NormAxes::merge(graph, &views.hint_ids, groups);
    let nodes = node_infos(graph, &views, &norm)?;
    let mut kernel = Kernel::new(graph, norm, nodes);
    kernel.find_n_group()?;
    kernel.find_reduced_axes()?;
    kernel.mark_transposing_loads()?;
    kernel.choose_alignment()?;
    let (concats, transposes) = (kernel.n_from.is_some(), kernel.transposes);
    let cases = kernel.enumerate_cases();
    let mut schedule = kernel.into_schedule(cases);
    mark_persistent(&mut schedule);
    schedule.check_ops(graph, chip)?;
    allocate(&mut schedule, graph, chip)?;
    if concats {
        schedule.fit_concat_row_block(chip);
        schedule.check_concat_slabs_fit(chip)?;
    }
    if transposes {
        schedule.fit_transpose_block(chip)?;
    }
    schedule.add_table_in_ub_cases(chip);
    add_cross_core_cases(&mut schedule, chip);
    Ok(schedule)
}

/// A kernel over its normalized axes while its tiling group and cases are found.
struct Kernel<'g> {
    graph: &'g AscGraph,
    norm: NormAxes,
    nodes: Vec<NodeInfo>,
    /// The first concat axis: it and every later axis stay whole in every tile (GE's
    /// n_group).
    n_from: Option<usize>,
    /// Per normalized axis: some node reduces it (GE's r_group; the others form the
    /// y_group).
    r_set: Vec<bool>,
    /// Loads transpose the innermost axis in UB (GE's x_group).
    transposes: bool,
    /// Elements of the kernel's smallest type per 32 bytes: rows start aligned.
    align: i64,
}

impl<'g> Kernel<'g> {
    /// The kernel before its groups are found: no concat, nothing reduced, nothing
    /// transposed.
    fn new(graph: &'g AscGraph, norm: NormAxes, nodes: Vec<NodeInfo>) -> Kernel<'g> {
        let rank = norm.axes.len();
        Kernel {
            graph,
            norm,
            nodes,
            n_from: None,
            r_set: vec![false; rank],
            transposes: false,
            align: 1,
        }
    }

    /// The axes no node reduces.
    fn y_group(&self) -> Vec<usize> {
        (0..self.r_set.len()).filter(|&k| !self.r_set[k]).collect()
    }

    /// The axes some node reduces.
    fn r_group(&self) -> Vec<usize> {
        (0..self.r_set.len()).filter(|&k| self.r_set[k]).collect()
    }

    /// The impl-form model of the kernel with `cases`, before buffers are allocated.
    fn into_schedule(self, cases: Vec<Case>) -> Schedule {
        let graph = self.graph;
        let (y, r) = (self.y_group(), self.r_group());
        Schedule {
            kernel: graph.name.clone(),
            axes: self.norm.axes,
            y,
            r,
            cases,
            persistent: vec![false; self.nodes.len()],
            nodes: self.nodes,
            queues: Vec::new(),
            slots: Vec::new(),
            extras: Extras::default(),
            align: self.align,
            symbols: graph.sizes.clone(),
            inputs: graph.inputs.clone(),
            outputs: graph.outputs.clone(),
            source_ops: graph.source_ops.clone(),
            next_axis_id: self.norm.next_id,
            operands: graph.nodes.iter().map(|n| n.operands.clone()).collect(),
            node_groups: (0..graph.nodes.len())
                .map(|n| autofuse_ascir::tiling_group::node_group(graph, n).map(|g| g.to_string()))
                .collect(),
            hint_group: hint_group(graph),
        }
    }
}

/// The hint form's TilingGroup as text: in schedule mode, else in can-fuse mode, else
/// the conflict.
fn hint_group(graph: &AscGraph) -> String {
    autofuse_ascir::tiling_group::graph_group(
        graph,
        None,
        autofuse_ascir::tiling_group::Mode::Schedule,
    )
    .or_else(|_| {
        autofuse_ascir::tiling_group::graph_group(
            graph,
            None,
            autofuse_ascir::tiling_group::Mode::CanFuse,
        )
    })
    .map(|g| g.to_string())
    .unwrap_or_else(|conflict| format!("conflict: {conflict}"))
}

/// Marks the values a split-reduction case keeps across chunks and passes
/// (`SplitPlan::persistent`, of any such case).
fn mark_persistent(schedule: &mut Schedule) {
    for case in schedule.cases.clone().iter().filter(|c| c.reduce_split) {
        if let Some(plan) = schedule.split_plan(case) {
            for (p, &x) in schedule.persistent.iter_mut().zip(&plan.persistent) {
                *p |= x;
            }
        }
    }
}

// The unit tests below name element types through `super::*`.
#[cfg(test)]
use autofuse_ir::graph::DType;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower_to_ascir::lowering::lower_op;
    use autofuse_ir::attr::AttrValue;
    use autofuse_ir::graph::TensorType;
    use std::collections::BTreeMap as Map;
    use std::collections::HashMap;

    fn t(dtype: DType, dims: &[&str]) -> TensorType {
        TensorType::with_dims(dtype, dims).unwrap()
    }

    fn chip() -> ChipProfile {
        ChipProfile::lookup("ascend910b").unwrap()
    }

    fn reduce_sum(input: &[&str], out: &[&str], axis: i64) -> AscGraph {
        let mut attrs = Map::new();
        attrs.insert(
            "axes".to_string(),
            AttrValue::Array(vec![AttrValue::Int(axis)]),
        );
        attrs.insert("keep_dims".to_string(), AttrValue::Bool(true));
        lower_op(
            "ascend.reduce_sum",
            &attrs,
            &[t(DType::F32, input)],
            &[t(DType::F32, out)],
            None,
            "k",
        )
        .unwrap()
    }

    /// A one-pass split-reduction case gets a cross-core twin with the next key (same
    /// split, same buffers but a `part` of CROSS_CORE_BATCH partials), whose workspace
    /// record holds each accumulator's UB value; none when the row groups are known to
    /// fill half the cores.
    #[test]
    fn one_pass_split_reductions_get_a_cross_core_twin() {
        use autofuse_ascir::kernel::CROSS_CORE_BATCH;
        let s = Schedule::build(&reduce_sum(&["s0", "256"], &["1", "256"], 0), &chip()).unwrap();
        let split = s
            .cases
            .iter()
            .find(|c| c.reduce_split && !c.cross_core)
            .unwrap();
        let twin = s.cases.iter().find(|c| c.cross_core).unwrap();
        assert_eq!(twin.key as usize, s.cases.len() - 1);
        assert_eq!((twin.split, &twin.in_tile), (split.split, &split.in_tile));
        assert!(s.cross_core_ok(split));
        let acc = s.cross_core_accs(twin);
        assert_eq!(acc.len(), 1);
        // One [1, 256] f32 partial per unit.
        assert_eq!(s.partial_bytes(twin), Expr::constant(1024));
        assert_eq!(s.partial_offset(twin, acc[0]), Expr::constant(0));
        let part = |case: &Case| {
            s.buffers(case, &s.operands)
                .into_iter()
                .find(|b| b.name == "part")
                .unwrap()
                .bytes
        };
        assert_eq!(part(split), Expr::constant(1024));
        assert_eq!(part(twin), Expr::constant(1024 * CROSS_CORE_BATCH));
        assert!(s.cross_core_cost(split).is_none());
        let cost = s.cross_core_cost(twin).unwrap();
        assert_eq!(cost.partial.mte3_bytes, Expr::constant(1024));
        assert_eq!(cost.batch.load_ops, Expr::constant(1));
        // Row sums: 4 row groups (a twin), 40 row groups of 48 cores (none).
        let few = Schedule::build(&reduce_sum(&["4", "s1"], &["4", "1"], 1), &chip()).unwrap();
        assert!(few.cases.iter().any(|c| c.cross_core));
        let many = Schedule::build(&reduce_sum(&["40", "s1"], &["40", "1"], 1), &chip()).unwrap();
        assert!(many.cases.iter().any(|c| c.reduce_split));
        assert!(!many.cases.iter().any(|c| c.cross_core));
    }

    #[test]
    fn pointwise_axes_merge_into_one() {
        let g = lower_op(
            "ascend.add",
            &Map::new(),
            &[
                t(DType::F32, &["s0", "s1", "8"]),
                t(DType::F32, &["s0", "s1", "8"]),
            ],
            &[t(DType::F32, &["s0", "s1", "8"])],
            None,
            "k",
        )
        .unwrap();
        let s = Schedule::build(&g, &chip()).unwrap();
        assert_eq!(s.axes.len(), 1);
        assert_eq!(s.axes[0].name, "z0z1z2");
        assert_eq!(s.axes[0].size, Expr::parse("s0*s1*8").unwrap());
        assert_eq!(s.cases.len(), 1);
        assert_eq!(s.cases[0].tile_align, 8);
        assert_eq!(s.queues.len(), 3);
        assert!(s.queues.iter().all(|q| q.count == 2));
        // The add writes straight into the store's queue.
        assert!(s.slots.is_empty());
    }

    #[test]
    fn outermost_concat_splits_its_axis() {
        let mut attrs = Map::new();
        attrs.insert("axis".to_string(), AttrValue::Int(0));
        let g = lower_op(
            "ascend.concat",
            &attrs,
            &[t(DType::F16, &["s0"]), t(DType::F16, &["s1"])],
            &[t(DType::F16, &["s0+s1"])],
            None,
            "k",
        )
        .unwrap();
        let s = Schedule::build(&g, &chip()).unwrap();
        // Nothing else to tile: the one case splits the concat axis.
        assert_eq!(s.cases.len(), 1);
        assert_eq!(s.cases[0].split, Some(0));
        let loads: Vec<usize> = (0..g.nodes.len())
            .filter(|&n| s.nodes[n].kind == NodeKind::Load)
            .collect();
        assert_eq!(s.nodes[loads[0]].part_start, Expr::constant(0));
        assert_eq!(s.nodes[loads[1]].part_start, Expr::symbol("s0"));
    }

    #[test]
    fn long_concat_rows_get_a_blocked_case() {
        let mut attrs = Map::new();
        attrs.insert("axis".to_string(), AttrValue::Int(0));
        let concat = |row: &str| {
            lower_op(
                "ascend.concat",
                &attrs,
                &[t(DType::F32, &["2", row]), t(DType::F32, &["3", row])],
                &[t(DType::F32, &["5", row])],
                None,
                "k",
            )
            .unwrap()
        };
        // A symbolic row: the whole-row case, then its twin cutting rows into blocks.
        let s = Schedule::build(&concat("s1"), &chip()).unwrap();
        assert_eq!(s.cases.len(), 2);
        assert_eq!(s.cases[0].inner_block, None);
        let blocked = &s.cases[1];
        assert_eq!((blocked.key, blocked.split), (1, Some(0)));
        assert_eq!(blocked.in_tile, vec![0, 1]);
        let Some((axis, block)) = blocked.inner_block.clone() else {
            panic!("no row block");
        };
        assert_eq!(axis, 1);
        // A power of two whose one-row tile fits UB, and twice that does not (or the
        // cap): the longest block the tile allows.
        let b = block.as_const().unwrap();
        assert!(b.count_ones() == 1 && (1024..=16384).contains(&b), "{b}");
        let ops = Schedule::operands_of(&concat("s1"));
        let at = |extent: i64| {
            let mut case = blocked.clone();
            case.inner_block = Some((1, Expr::constant(extent)));
            let env = HashMap::from([(case.tile_var.clone().unwrap(), 1)]);
            s.ub_expr(&case, &ops).eval_map(&env).unwrap()
        };
        assert!(at(b) <= chip().ub_usable as i64);
        assert!(b == 16384 || at(2 * b) > chip().ub_usable as i64);
        // A static row that one block holds needs no twin; a longer one gets it.
        assert_eq!(
            Schedule::build(&concat("5000"), &chip())
                .unwrap()
                .cases
                .len(),
            1
        );
        let s = Schedule::build(&concat("100000"), &chip()).unwrap();
        assert_eq!(s.cases.len(), 2);
        assert!(s.cases[1].inner_block.is_some());
    }

    #[test]
    fn concat_axes_stay_whole_and_apart() {
        let mut attrs = Map::new();
        attrs.insert("axis".to_string(), AttrValue::Int(1));
        let g = lower_op(
            "ascend.concat",
            &attrs,
            &[
                t(DType::F32, &["s0", "3", "8"]),
                t(DType::F32, &["s0", "5", "8"]),
            ],
            &[t(DType::F32, &["s0", "8", "8"])],
            None,
            "k",
        )
        .unwrap();
        let s = Schedule::build(&g, &chip()).unwrap();
        // The concat axis merges with nothing; the axis before it is split (whole
        // slabs in a tile), or the concat axis itself (rows of each part in a tile).
        assert_eq!(s.axes.len(), 3);
        assert_eq!(s.cases.len(), 2);
        assert_eq!(s.cases[0].split, Some(0));
        assert_eq!(s.cases[1].split, Some(1));
        assert_eq!(s.cases[0].in_tile, vec![0, 1, 2]);
        let concat = g.nodes.iter().position(|n| n.op == "concat").unwrap();
        assert_eq!(s.nodes[concat].kind, NodeKind::Concat { axis: 1 });
        // Each input's load covers its part of the axis; the concat's value is a slot.
        let ext = s.tile_extents(&s.cases[0], &Expr::symbol("t"));
        let loads: Vec<usize> = (0..g.nodes.len())
            .filter(|&n| s.nodes[n].kind == NodeKind::Load)
            .collect();
        assert_eq!(
            s.node_box(&s.cases[0], loads[0], &ext)[1],
            Expr::constant(3)
        );
        assert_eq!(
            s.node_box(&s.cases[0], loads[1], &ext)[1],
            Expr::constant(5)
        );
        assert_eq!(s.node_box(&s.cases[0], concat, &ext)[1], Expr::constant(8));
        // Splitting the concat axis: the second part starts after the first's 3 rows,
        // and every part's UB box is a tile (the first in-tile axis: axis 0 is looped).
        assert_eq!(s.nodes[loads[0]].part_start, Expr::constant(0));
        assert_eq!(s.nodes[loads[1]].part_start, Expr::constant(3));
        let split_ext = s.tile_extents(&s.cases[1], &Expr::symbol("t"));
        assert_eq!(
            s.node_box(&s.cases[1], loads[1], &split_ext)[0],
            Expr::symbol("t")
        );
        assert!(matches!(
            s.nodes[concat].value,
            Place::Slot { .. } | Place::Queue { .. }
        ));
        // A shrunken UB that cannot hold one tile of whole slabs refuses the kernel.
        let tiny = chip().with_overrides(1024, 4).unwrap();
        let err = Schedule::build(&g, &tiny).unwrap_err();
        assert!(err.contains("whole concat slabs"), "{err}");
    }

    #[test]
    fn transposed_loads_keep_their_axes() {
        let mut attrs = Map::new();
        attrs.insert(
            "perm".to_string(),
            AttrValue::Array(vec![
                AttrValue::Int(1),
                AttrValue::Int(0),
                AttrValue::Int(2),
            ]),
        );
        let g = lower_op(
            "ascend.transpose",
            &attrs,
            &[t(DType::F16, &["s0", "6", "20"])],
            &[t(DType::F16, &["6", "s0", "20"])],
            None,
            "k",
        )
        .unwrap();
        let s = Schedule::build(&g, &chip()).unwrap();
        // The permuted GM strides keep the three axes apart; rows stay contiguous.
        assert_eq!(s.axes.len(), 3);
        let data = g.nodes.iter().position(|n| n.op == "data").unwrap();
        assert_eq!(
            s.nodes[data].gm_strides,
            vec![Expr::constant(20), Expr::constant(120), Expr::constant(1)]
        );
    }

    #[test]
    fn innermost_transposes_tile_both_axes() {
        let mut attrs = Map::new();
        attrs.insert(
            "perm".to_string(),
            AttrValue::Array(vec![
                AttrValue::Int(0),
                AttrValue::Int(2),
                AttrValue::Int(1),
            ]),
        );
        let g = lower_op(
            "ascend.transpose",
            &attrs,
            &[t(DType::F32, &["s0", "s1", "s2"])],
            &[t(DType::F32, &["s0", "s2", "s1"])],
            None,
            "k",
        )
        .unwrap();
        let s = Schedule::build(&g, &chip()).unwrap();
        let load = g.nodes.iter().position(|n| n.op == "load").unwrap();
        assert!(s.nodes[load].transpose);
        // The Transpose writes a VECCALC slot from the raw queue tensor.
        assert!(matches!(s.nodes[load].value, Place::Slot { .. }));
        assert!(s.extras.scratch);
        // One case: z1 split by t, z2 in blocks of 64, the batch axis looped.
        assert_eq!(s.cases.len(), 1);
        let case = &s.cases[0];
        assert_eq!(case.split, Some(1));
        assert_eq!(case.looped, vec![0]);
        assert_eq!(case.tile_align, 8);
        assert_eq!(case.inner_block, Some((2, Expr::constant(TRANSPOSE_BLOCK))));
        assert_eq!(
            s.outer_expr(case),
            Expr::symbol("s0") * Expr::symbol("s1").ceil_div(&Expr::constant(64))
        );
        assert!(s.hoisted(case).is_empty());
        // Both layouts padded: t rows x 64.
        let t = Expr::symbol("z1t_size");
        assert_eq!(
            s.elems(case, load),
            t.align(&Expr::constant(8)) * Expr::constant(64)
        );
    }

    #[test]
    fn broadcast_keeps_axes_apart() {
        let g = lower_op(
            "ascend.add",
            &Map::new(),
            &[t(DType::F32, &["s0", "16"]), t(DType::F32, &["1", "16"])],
            &[t(DType::F32, &["s0", "16"])],
            None,
            "k",
        )
        .unwrap();
        let s = Schedule::build(&g, &chip()).unwrap();
        assert_eq!(s.axes.len(), 2);
        assert_eq!(s.cases.len(), 2);
        assert_eq!(s.cases[0].in_tile, vec![0, 1]);
        assert_eq!(s.cases[1].looped, vec![0]);
        // The add reads the row through repeat strides: the broadcast takes no slot.
        let bcast = g.nodes.iter().position(|n| n.op == "broadcast").unwrap();
        assert!(s.absorbed_broadcast(bcast));
        assert_eq!(s.nodes[bcast].value, Place::None);
        assert!(
            s.slots.is_empty(),
            "an absorbed broadcast needs no VECCALC slot"
        );
        // int32 has no strided binary form here: the broadcast is materialized.
        let g = lower_op(
            "ascend.add",
            &Map::new(),
            &[t(DType::I32, &["s0", "16"]), t(DType::I32, &["1", "16"])],
            &[t(DType::I32, &["s0", "16"])],
            None,
            "k",
        )
        .unwrap();
        let s = Schedule::build(&g, &chip()).unwrap();
        let bcast = g.nodes.iter().position(|n| n.op == "broadcast").unwrap();
        assert!(!s.absorbed_broadcast(bcast));
        assert_eq!(s.slots.len(), 1, "the broadcast gets one VECCALC slot");
    }

    #[test]
    fn reductions_stay_in_the_tile() {
        let mut attrs = Map::new();
        attrs.insert("axes".into(), AttrValue::Array(vec![AttrValue::Int(1)]));
        let g = lower_op(
            "ascend.reduce_sum",
            &attrs,
            &[t(DType::F32, &["s0", "s1"])],
            &[t(DType::F32, &["s0", "1"])],
            None,
            "k",
        )
        .unwrap();
        let s = Schedule::build(&g, &chip()).unwrap();
        assert_eq!(s.y, vec![0]);
        assert_eq!(s.r, vec![1]);
        // All-load (split rows), split reduction (chunks of a row, in passes) and its
        // cross-core twin.
        assert_eq!(s.cases.len(), 3);
        assert!(!s.cases[0].reduce_split && s.cases[1].reduce_split);
        assert!(!s.cases[1].cross_core && s.cases[2].cross_core);
        let plan = s.split_plan(&s.cases[1]).unwrap();
        assert_eq!(plan.passes, 1);
        assert!(s.extras.work && s.extras.part);
        let recs = s.records(&Schedule::operands_of(&g));
        assert!(recs.lines[0].contains("y = [0], r = [1]"));
    }
}
