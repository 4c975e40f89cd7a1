//! The algorithm of `--schedule`: from an AscGraph in GE's hint form to the impl-form
//! kernel model (`autofuse_ascir::kernel::Schedule`) the tiling solver, the impl-form
//! interpreter and the Ascend C translation read.
//!
//! Steps (GE `optimize::Optimizer`, ge_autofuse.md §6):
//! 0. **Loop order**: a pointwise kernel whose data view is contiguous along an axis
//!    other than the one just outside the innermost (a transpose moving the innermost
//!    axis anywhere) gets that axis moved there (`transposed_loop_order`), so its loads
//!    are 2-D blocks of the two innermost loops.
//! 1. **Normalize axes**: drop axes of static size 1 and axes no node iterates on (but a
//!    unit innermost axis along which a data view is contiguous stays: rows of one
//!    element); merge adjacent axes that every node sees the same way (both extents full
//!    and contiguous in every GM view, or both broadcast/reduced). Each result is a
//!    [`NormAxis`].
//! 2. **TilingGroup**: per node, axes it reduces go to R, the rest to Y (X, transposes,
//!    is empty: no op of the hint form transposes); the kernel's group is the union.
//! 3. **Tiling cases**: one per Y axis `u` (the UB-split axis, GE's `ub_tiling_id_y`).
//!    A tile is a box: looped axes (Y axes before `u`) have extent 1, `u` has the tile
//!    size `t` (`<u>t_size`, the `zT`/`zt` split), every later axis and every R axis is
//!    whole (R axes stay in UB: GE's all-load reduce template). The tiles of all looped
//!    axes and `zT` are merged and block-split over cores (`<M>TB`/`<M>Tb`).
//!    A kernel without Y axes has one case without split: one tile, one block. Then one
//!    split-reduction case per R axis, for rows longer than UB: the tile is a chunk of
//!    the reduced axis, blocks take row groups, and each row group runs passes over the
//!    chunks ([`SplitPlan`]): reductions accumulate chunk by chunk, what depends on them
//!    is recomputed in later passes.
//! 4. **Layout**: a value in UB is the row-major box of its extents (1 where its view is
//!    broadcast or reduced) with the innermost extent padded to `align` elements, where
//!    `align = 32 B / smallest element size` of the kernel: every row starts 32-byte
//!    aligned for every dtype, so casts keep the layout. Buffers are rounded to 256 B so
//!    `Compare` (count*sizeof(T) % 256 == 0 on 2201) may run over whole buffers.
//! 5. **Buffers**: each load gets a VECIN queue and each store a VECOUT queue, double
//!    buffered (queues beyond the chip's per-position budget share one queue block);
//!    values computed and consumed by the vector unit get VECCALC TBuf slots, reused by
//!    lifetime (an elementwise op may write over an operand that dies at it); one work
//!    buffer for reductions, one mask buffer for compares and selects, one scratch buffer
//!    for ops that need a temporary.
//!
//! Booleans live in UB as half 0.0/1.0 (`Compare` + `Select`), as u8 in GM.
//!
//! Preconditions: a verified AscGraph in hint form (every view names all axes in order,
//! repeats are 1 or the axis size). Postconditions: `Schedule::check` holds (buffer
//! counts within the chip's limits); every R axis is inside the tile of every case.
//! Kernels the schedule cannot express are refused with a reason (the caller leaves them
//! in hint form).

use autofuse_ascir::chip::ChipProfile;
use autofuse_ascir::graph::{AscGraph, AscNode, View};
use autofuse_ascir::kernel::*;
use autofuse_ir::graph::DType;
use autofuse_symbolic::Expr;

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

fn build_in_order(graph: &AscGraph, chip: &ChipProfile) -> Result<Schedule, String> {
    let hint_ids = graph.sched_axis();
    if hint_ids.is_empty() && graph.nodes.iter().any(|n| !n.view.axis.is_empty()) {
        return refuse("views name axes the kernel does not have");
    }
    // Per node: full/broadcast per hint axis; GM strides.
    let mut full_hint: Vec<Vec<bool>> = Vec::new();
    // Concat axes (hint positions): views may cover part of them.
    let concat_axes: Vec<usize> = (0..graph.nodes.len())
        .filter(|&n| graph.nodes[n].op == "concat")
        .map(|n| {
            graph
                .concat_axis(n)
                .ok_or_else(|| format!("concat node {n} has malformed views"))
        })
        .collect::<Result<_, _>>()?;
    let mut partial_hint: Vec<Vec<Option<Expr>>> = Vec::new();
    // Per node and axis: the node's value is read (transitively) as a part of a concat
    // along that axis; only such a view may cover a part of a concat axis. Elsewhere a
    // repeat of 1 there is a reduced or broadcast axis: below the concats, and in the
    // operand of a broadcast that expands the axis (an edge pad's repeated border row
    // is a part; the one row it repeats is not).
    let hint_rank = hint_ids.len();
    let mut feeds_concat = vec![vec![false; hint_rank]; graph.nodes.len()];
    for n in (0..graph.nodes.len()).rev() {
        let node = &graph.nodes[n];
        let mut passed = feeds_concat[n].clone();
        if node.op == "concat" {
            for &k in &concat_axes {
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
    for (i, node) in graph.nodes.iter().enumerate() {
        if node.view.axis != hint_ids {
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
                && (!concat_axes.contains(&k) || !feeds_concat[i].get(k).copied().unwrap_or(false))
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
        full_hint.push(f);
        partial_hint.push(part);
    }
    // Nodes whose view strides are offsets into a tensor (an arange's are offsets into
    // the range it computes), not the dense strides of a UB tile.
    let is_gm = |n: &AscNode| matches!(n.op.as_str(), "data" | "store" | "output" | "arange");

    // 1. Keep axes: not static 1, iterated by some node.
    let mut kept: Vec<usize> = (0..hint_ids.len())
        .filter(|&k| {
            concat_axes.contains(&k)
                || (graph.axes[k].size.as_const() != Some(1) && full_hint.iter().any(|f| f[k]))
        })
        .collect();
    // A GM view strided along the innermost kept axis but contiguous along a later unit
    // axis (`x[..., 3:4]`) reads rows of one element: the unit axis stays innermost so
    // DataCopyPad moves those rows (32-byte blocks per element, but no kernel of its own).
    if let (Some(&inner), Some(unit)) = (kept.last(), hint_ids.len().checked_sub(1)) {
        let one_element_rows = unit > inner
            && graph.axes[unit].size.as_const() == Some(1)
            && graph.nodes.iter().enumerate().any(|(n, node)| {
                node.op == "data"
                    && full_hint[n][inner]
                    && node.view.strides[inner] != c(1)
                    && node.view.strides[unit] == c(1)
            });
        if one_element_rows {
            kept.push(unit);
        }
    }
    // Merge runs of adjacent kept axes.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &k in &kept {
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
                node.view.strides[a] == node.view.strides[k].clone() * graph.axes[k].size.clone()
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
    let scalar_kernel = axes.is_empty();
    if scalar_kernel {
        // Everything has extent 1: one axis of size 1 keeps the tile rank >= 1.
        axes.push(NormAxis {
            id: next_id,
            name: "zs".into(),
            size: c(1),
            from: Vec::new(),
        });
        next_id += 1;
    }

    // Node infos over normalized axes.
    let mut nodes = Vec::new();
    for (n, node) in graph.nodes.iter().enumerate() {
        let mut full = Vec::new();
        let mut partial = Vec::new();
        let mut strides = Vec::new();
        if scalar_kernel {
            full.push(false);
            partial.push(None);
            strides.push(c(0));
        }
        for g in &groups {
            let inner = *g.last().unwrap_or(&0);
            full.push(full_hint[n][g[0]]);
            partial.push(partial_hint[n][g[0]].clone());
            strides.push(if is_gm(node) && full_hint[n][g[0]] {
                node.view.strides[inner].clone()
            } else {
                c(0)
            });
        }
        let mut kind = node_kind(graph, n)?;
        if let NodeKind::ExtractSlice { axis, .. } = &mut kind {
            // Hint position -> normalized axis (it is a concat axis: never merged).
            *axis = groups
                .iter()
                .position(|g| g.contains(axis))
                .ok_or_else(|| format!("extract_slice node {n} takes a dropped axis"))?
                + usize::from(scalar_kernel);
        }
        if let NodeKind::Concat { axis } = &mut kind {
            // Hint position -> normalized axis (concat axes are never merged).
            *axis = groups
                .iter()
                .position(|g| g.contains(axis))
                .ok_or_else(|| format!("concat node {n} concatenates a dropped axis"))?
                + usize::from(scalar_kernel);
        }
        let gm_offset = match node.op.as_str() {
            "load" => node.gm_offset().map_err(|e| format!("load {n}: {e}"))?,
            _ => c(0),
        };
        nodes.push(NodeInfo {
            kind,
            full,
            partial,
            gm_strides: strides,
            gm_offset,
            part_start: c(0),
            dtype: node.dtype,
            value: Place::None,
            raw: Place::None,
            direct: false,
            transpose: false,
            loc: node.loc.clone(),
        });
    }
    // Reduced axes and structural checks.
    let rank = axes.len();
    // The first concat axis: it and every later axis stay whole in every tile (GE's
    // n_group); kernels with a concat do not reduce a part of a concat axis. A part may
    // be a broadcast (an edge pad's repeated border): it broadcasts within its part.
    let n_from = nodes
        .iter()
        .filter_map(|x| match x.kind {
            NodeKind::Concat { axis } => Some(axis),
            _ => None,
        })
        .min();
    if n_from.is_some()
        && nodes.iter().any(|x| {
            matches!(x.kind, NodeKind::Reduce { .. }) && x.partial.iter().any(Option::is_some)
        })
    {
        return refuse("a kernel with a concat may not reduce a part of the concat axis");
    }
    let mut r_set = vec![false; rank];
    let partials: Vec<Vec<Option<Expr>>> = nodes.iter().map(|x| x.partial.clone()).collect();
    for n in 0..nodes.len() {
        let node = &graph.nodes[n];
        let operand_full: Vec<Vec<bool>> = node
            .operands
            .iter()
            .map(|&o| nodes.get(o).map(|x| x.full.clone()).unwrap_or_default())
            .collect();
        let me = nodes[n].full.clone();
        match &mut nodes[n].kind {
            NodeKind::Reduce { reduced, .. } => {
                let Some(input) = operand_full.first() else {
                    return refuse(format!("reduction node {n} has no operand"));
                };
                for k in 0..rank {
                    if me[k] && !input[k] {
                        return refuse(format!("reduction node {n} expands an axis"));
                    }
                    if input[k] && !me[k] {
                        reduced.push(k);
                        r_set[k] = true;
                    }
                }
            }
            NodeKind::Broadcast => {
                let Some(input) = operand_full.first() else {
                    return refuse(format!("broadcast node {n} has no operand"));
                };
                if (0..rank).any(|k| input[k] && !me[k]) {
                    return refuse(format!("broadcast node {n} shrinks an axis"));
                }
            }
            NodeKind::Concat { axis } => {
                let axis = *axis;
                let [l, r] = node.operands.as_slice() else {
                    return refuse(format!("concat node {n} is not binary"));
                };
                let (pl, pr) = (&partials[*l], &partials[*r]);
                let mine = &partials[n];
                let fits = operand_full.iter().all(|f| *f == me)
                    && (0..rank).all(|k| k == axis || (pl[k] == mine[k] && pr[k] == mine[k]));
                if !fits {
                    return refuse(format!(
                        "concat node {n}: operands differ outside the concat axis"
                    ));
                }
            }
            NodeKind::Elementwise { .. } | NodeKind::Cast | NodeKind::Store
                if node
                    .operands
                    .iter()
                    .any(|&o| partials.get(o).is_some_and(|x| *x != partials[n])) =>
            {
                return refuse(format!(
                    "node {n} ('{}') has an operand covering another part of a concat axis",
                    node.op
                ));
            }
            NodeKind::Elementwise { .. } | NodeKind::Cast | NodeKind::Store => {
                if let Some(bad) = operand_full.iter().position(|f| *f != me) {
                    return refuse(format!(
                        "node {n} ('{}') has operand #{bad} with a different extent \
                             (broadcasts must be explicit nodes)",
                        node.op
                    ));
                }
            }
            NodeKind::Load
                if operand_full.first() != Some(&me)
                    || node
                        .operands
                        .first()
                        .is_some_and(|&o| partials.get(o) != partials.get(n)) =>
            {
                return refuse(format!("load {n} changes the extent of its data"));
            }
            _ => {}
        }
        // Contiguous innermost GM rows: DataCopyPad moves whole rows. A data node
        // whose two innermost axes are swapped (stride 1 on the second-to-last) is a
        // transposed load: rows of the source block, transposed in UB. A data node
        // read only as gather tables is never loaded through its view: af::GatherRows
        // copies a row per DMA where the view's innermost stride is 1 and element by
        // element otherwise (any strides), and a table kept in UB is copied whole.
        let gather_table = matches!(nodes[n].kind, NodeKind::Data { .. }) && {
            let mut readers = graph
                .nodes
                .iter()
                .filter(|u| u.operands.contains(&n))
                .peekable();
            readers.peek().is_some()
                && readers.all(|u| {
                    u.op == "gather"
                        && u.operands.first() == Some(&n)
                        && !u.operands[1..].contains(&n)
                })
        };
        if gather_table {
            continue;
        }
        let swapped = rank >= 2
            && matches!(nodes[n].kind, NodeKind::Data { .. })
            && nodes[n].full[rank - 1]
            && nodes[n].full[rank - 2]
            && nodes[n].gm_strides[rank - 2] == c(1)
            && nodes[n].partial[rank - 1].is_none()
            && nodes[n].partial[rank - 2].is_none();
        if swapped {
            nodes[n].transpose = true;
        } else if matches!(nodes[n].kind, NodeKind::Data { .. } | NodeKind::Store)
            && nodes[n].full[rank - 1]
            && nodes[n].gm_strides[rank - 1] != c(1)
            && nodes[n].partial[rank - 1].as_ref().and_then(Expr::as_const) != Some(1)
        {
            return refuse(format!(
                "GM view of node {n} is not contiguous along the innermost axis (stride '{}')",
                nodes[n].gm_strides[rank - 1]
            ));
        }
    }
    let y: Vec<usize> = (0..rank).filter(|&k| !r_set[k]).collect();
    let r: Vec<usize> = (0..rank).filter(|&k| r_set[k]).collect();
    // Loads of swapped data transpose in UB (2-D blocks of the two innermost axes).
    for n in 0..nodes.len() {
        let data = graph.nodes[n].operands.first().copied();
        if nodes[n].kind == NodeKind::Load
            && data.is_some_and(|d| nodes.get(d).is_some_and(|x| x.transpose))
        {
            nodes[n].transpose = true;
        }
    }
    let transposes = nodes
        .iter()
        .any(|x| x.transpose && x.kind == NodeKind::Load);
    if transposes {
        if n_from.is_some() || !r.is_empty() {
            return refuse(
                "a kernel whose loads transpose the innermost axis computes pointwise only",
            );
        }
        if nodes.iter().any(|x| x.kind == NodeKind::Broadcast) {
            return refuse("a kernel whose loads transpose the innermost axis may not broadcast");
        }
        if let Some(bad) = nodes.iter().find(|x| {
            x.transpose
                && x.kind == NodeKind::Load
                && !matches!(x.dtype, DType::F32 | DType::F16 | DType::BF16)
        }) {
            return refuse(format!(
                "a load of {} that transposes the innermost axis is not supported (Transpose \
                     is used on f32, f16 and bf16)",
                bad.dtype
            ));
        }
    }

    // Element sizes: the alignment unit covers every UB and raw GM type.
    let mut min_size = 4i64;
    let mut max_size = 1i64;
    for node in &nodes {
        let s = ub_size(node.dtype).min(gm_size(node.dtype));
        min_size = min_size.min(s);
        max_size = max_size.max(ub_size(node.dtype));
    }
    if max_size > 4 {
        // The vector unit has no 64-bit arithmetic. A kernel holds 64-bit values only
        // where they move between GM and a 32-bit value: a gather's i64 index tile (the
        // scalar unit reads it), a load converted by one Cast (int64 -> int32 or float)
        // or copied to GM as it is, and a Cast to int64 that only a store reads.
        let wide = |n: usize| ub_size(graph.nodes[n].dtype) > 4;
        let users = |n: usize| -> Vec<usize> {
            (0..graph.nodes.len())
                .filter(|&u| graph.nodes[u].operands.contains(&n))
                .collect()
        };
        // A select of 64-bit data is bitwise (`int_select`): it reads its data
        // branches (loads, scalars) and its result is stored.
        let wide_select = |n: usize| {
            let node = &graph.nodes[n];
            matches!(node.op.as_str(), "select" | "where") && wide(n)
        };
        let select_branch =
            |n: usize, u: usize| wide_select(u) && graph.nodes[u].operands.first() != Some(&n);
        let narrowing_read = |load: usize, u: usize| {
            let user = &graph.nodes[u];
            (user.op == "gather" && user.operands.get(1) == Some(&load))
                || select_branch(load, u)
                || user.op == "store"
                || (user.op == "cast"
                    && !wide(u)
                    && cast_supported(graph.nodes[load].dtype, user.dtype))
        };
        let load_ok = |l: usize| {
            let readers = users(l);
            graph.nodes[l].op == "load"
                && !readers.is_empty()
                && readers.iter().all(|&u| narrowing_read(l, u))
        };
        let allowed = |n: usize| {
            let node = &graph.nodes[n];
            let producer_ok = |p: usize| {
                let from = &graph.nodes[p];
                from.op == "cast"
                    && from.operands.first().is_some_and(|&o| !wide(o))
                    && cast_direct(graph.nodes[from.operands[0]].dtype, from.dtype)
                    && users(p).iter().all(|&u| graph.nodes[u].op == "store")
            };
            match node.op.as_str() {
                "data" => {
                    let readers = users(n);
                    !readers.is_empty()
                        && readers.iter().all(|&l| match graph.nodes[l].op.as_str() {
                            "load" => load_ok(l),
                            "gather" => graph.nodes[l].operands.first() == Some(&n),
                            _ => false,
                        })
                }
                "load" => load_ok(n),
                "cast" => producer_ok(n),
                "select" | "where" => node.operands.iter().skip(1).all(|&o| {
                    let branch = &graph.nodes[o];
                    (branch.op == "load" && load_ok(o)) || branch.op == "scalar"
                }),
                "scalar" => {
                    let readers = users(n);
                    !readers.is_empty() && readers.iter().all(|&u| select_branch(n, u))
                }
                "store" => node
                    .operands
                    .first()
                    .is_some_and(|&p| producer_ok(p) || (wide(p) && load_ok(p)) || wide_select(p)),
                "output" => node
                    .operands
                    .first()
                    .is_some_and(|&st| graph.nodes[st].op == "store"),
                _ => false,
            }
        };
        let wide_elsewhere = (0..graph.nodes.len()).any(|n| wide(n) && !allowed(n));
        if wide_elsewhere {
            return refuse("64-bit element types are not scheduled");
        }
    }
    let align = 32 / min_size.max(1);

    // 3. Cases.
    let mut cases = Vec::new();
    let case_for = |split: Option<usize>, key: u32| -> Case {
        let mut in_tile = Vec::new();
        let mut looped = Vec::new();
        for (k, &reduced) in r_set.iter().enumerate() {
            match split {
                Some(u) if k < u && !reduced => looped.push(k),
                _ => in_tile.push(k),
            }
        }
        let (tile_var, tile_align, block_name) = match split {
            Some(u) => {
                let name = &axes[u].name;
                let last = in_tile.last() == Some(&u);
                let merged: String = looped
                    .iter()
                    .map(|&k| axes[k].name.as_str())
                    .chain(std::iter::once(name.as_str()))
                    .collect();
                (
                    Some(format!("{name}t_size")),
                    if last { align } else { 1 },
                    format!("{merged}T"),
                )
            }
            None => (None, 1, "zT".to_string()),
        };
        Case {
            key,
            split,
            in_tile,
            looped,
            tile_var,
            tile_align,
            block_var: format!("{block_name}b_size"),
            block_name,
            reduce_split: split.is_some_and(|u| r_set[u]),
            inner_block: None,
            ub_tables: Vec::new(),
            cross_core: false,
        }
    };
    // Axes after the first concat axis are never split (GE's n_group). The concat axis
    // itself may be: a tile then holds the rows of each part that fall in it, which
    // serves concats along the outermost axis and slabs too large for one tile.
    let split_concat = n_from.is_some_and(|axis| {
        r_set.get(axis) == Some(&false) && assign_part_starts(graph, &mut nodes, axis)
    });
    let splittable: Vec<usize> = y
        .iter()
        .copied()
        .filter(|&u| n_from.is_none_or(|first| u < first || (u == first && split_concat)))
        .collect();
    if transposes {
        // One case (GE's x_group): the second-to-last axis is split by `t`, the
        // innermost axis in blocks of TRANSPOSE_BLOCK elements (or whole when
        // statically smaller); every outer axis is looped.
        let mut case = case_for(Some(rank - 2), 0);
        let inner = &axes[rank - 1].size;
        let block = match inner.as_const() {
            Some(v) if v < TRANSPOSE_BLOCK => inner.clone(),
            _ => c(TRANSPOSE_BLOCK),
        };
        case.tile_align = align;
        case.inner_block = Some((rank - 1, block));
        case.block_name = format!(
            "{}{}T",
            case.block_name.trim_end_matches('T'),
            axes[rank - 1].name
        );
        case.block_var = format!("{}b_size", case.block_name);
        cases.push(case);
    } else if splittable.is_empty() {
        cases.push(case_for(None, 0));
    } else {
        for (key, &u) in splittable.iter().enumerate() {
            cases.push(case_for(Some(u), key as u32));
        }
    }
    // GE's GM-concat template, for concat rows (the axes after the concat axis) that may
    // outgrow UB: a twin of the split-concat case whose tiles also cut the innermost
    // axis into blocks (`inner_block`, sized by `fit_concat_row_block`), so no tile
    // holds a whole row; every other axis is looped. Each part's rows of a block move
    // GM -> UB -> their place in the result; rows of one part never meet a whole row of
    // another in UB. Skipped where a static row is known to fit as it is.
    if let Some(k) =
        n_from.filter(|&k| split_concat && !transposes && k + 1 < rank && r_set.iter().all(|&x| !x))
    {
        let row = axes[k + 1..].iter().try_fold(1i64, |acc, a| {
            a.size.as_const().map(|v| acc.saturating_mul(v))
        });
        if row.is_none_or(|elems| elems > CONCAT_ROW_BLOCK_MIN) {
            let key = cases.len() as u32;
            let mut case = case_for(Some(k), key);
            let last = rank - 1;
            case.in_tile = vec![k, last];
            case.looped = (0..rank).filter(|&a| a != k && a != last).collect();
            case.tile_align = 1;
            case.inner_block = Some((last, c(CONCAT_ROW_BLOCK_MIN)));
            let looped_names: String = case.looped.iter().map(|&a| axes[a].name.as_str()).collect();
            case.block_name = format!("{looped_names}{}{}T", axes[k].name, axes[last].name);
            case.block_var = format!("{}b_size", case.block_name);
            cases.push(case);
        }
    }
    // Split-reduction cases, for rows too long to stay in UB (not with a concat,
    // whose axis and every later one stay whole in the tile).
    for &u in r.iter().filter(|_| n_from.is_none()) {
        let key = cases.len() as u32;
        cases.push(case_for(Some(u), key));
    }

    let mut schedule = Schedule {
        kernel: graph.name.clone(),
        axes,
        y,
        r,
        cases,
        nodes,
        queues: Vec::new(),
        slots: Vec::new(),
        extras: Extras::default(),
        align,
        symbols: graph.sizes.clone(),
        inputs: graph.inputs.clone(),
        outputs: graph.outputs.clone(),
        source_ops: graph.source_ops.clone(),
        next_axis_id: next_id,
        operands: graph.nodes.iter().map(|n| n.operands.clone()).collect(),
        persistent: Vec::new(),
        node_groups: (0..graph.nodes.len())
            .map(|n| autofuse_ascir::tiling_group::node_group(graph, n).map(|g| g.to_string()))
            .collect(),
        hint_group: autofuse_ascir::tiling_group::graph_group(
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
        .unwrap_or_else(|conflict| format!("conflict: {conflict}")),
    };
    schedule.persistent = vec![false; schedule.nodes.len()];
    for case in schedule.cases.clone().iter().filter(|c| c.reduce_split) {
        if let Some(plan) = schedule.split_plan(case) {
            for (p, &x) in schedule.persistent.iter_mut().zip(&plan.persistent) {
                *p |= x;
            }
        }
    }
    schedule.check_ops(graph, chip)?;
    schedule.allocate(graph, chip)?;
    if n_from.is_some() {
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

/// GE's RCore template: beside every split-reduction case whose pass structure allows
/// it (`Schedule::cross_core_ok`: one pass, every store after the reduction), a twin
/// with a new key that splits the reduced axis across cores too (`Case::cross_core`).
/// The twin pays off when the row groups are fewer than the cores (a column sum, a
/// reduction over every axis); the tiling solver weighs it against the one-core-per-
/// row-group case at run time, and refuses it when fewer than two blocks could share
/// a row group. Not added when the row groups are known to fill half the cores.
fn add_cross_core_cases(schedule: &mut Schedule, chip: &ChipProfile) {
    let cores = chip.vector_cores.min(i64::MAX as u64) as i64;
    if cores < 2 {
        return;
    }
    let twins: Vec<Case> = schedule
        .cases
        .iter()
        .filter(|case| schedule.cross_core_ok(case))
        .filter(|case| {
            schedule
                .outer_expr(case)
                .as_const()
                .is_none_or(|groups| groups * 2 <= cores)
        })
        .cloned()
        .collect();
    for mut twin in twins {
        twin.key = schedule.cases.len() as u32;
        twin.cross_core = true;
        schedule.cases.push(twin);
    }
}

/// The steps of `build` after the axes and cases are known.
trait Steps {
    fn fit_transpose_block(&mut self, chip: &ChipProfile) -> Result<(), String>;
    fn add_table_in_ub_cases(&mut self, chip: &ChipProfile);
    fn fit_concat_row_block(&mut self, chip: &ChipProfile);
    fn check_concat_slabs_fit(&self, chip: &ChipProfile) -> Result<(), String>;
    fn check_ops(&self, graph: &AscGraph, chip: &ChipProfile) -> Result<(), String>;
    fn allocate(&mut self, graph: &AscGraph, chip: &ChipProfile) -> Result<(), String>;
}

impl Steps for Schedule {
    /// GE's two gather templates: beside every case that reads gather tables from GM
    /// (one DMA per picked row), a twin with a new key that copies the tables whole into
    /// UB once per block and picks rows there (one UB -> UB copy per row). Tables of a
    /// known size qualify while together they take at most half of UB; a table of
    /// symbolic size always does, since the host tiling function refuses the twin at run
    /// time when its smallest tile does not fit and keeps the GM case. Split-reduction
    /// cases keep their tables in GM (they reload per pass).
    fn add_table_in_ub_cases(&mut self, chip: &ChipProfile) {
        let mut gathers: Vec<(usize, Option<i64>)> = (0..self.nodes.len())
            .filter(|&n| matches!(self.nodes[n].kind, NodeKind::Gather { .. }))
            .filter_map(|g| {
                let input = self.gather_table_input(g)?;
                let table = &self.inputs[input];
                if table.dims.iter().any(|d| d.expr().is_none()) {
                    return None;
                }
                let bytes = self
                    .table_elems(input)
                    .as_const()
                    .map(|e| (e + self.align) * ub_size(table.dtype));
                Some((g, bytes))
            })
            .collect();
        gathers.sort_by_key(|&(_, bytes)| bytes.unwrap_or(0));
        let budget = (chip.ub_usable / 2) as i64;
        let mut used = 0i64;
        let mut chosen = Vec::new();
        for (g, bytes) in gathers {
            match bytes {
                Some(b) if used + b > budget => {}
                Some(b) => {
                    used += b;
                    chosen.push(g);
                }
                None => chosen.push(g),
            }
        }
        let buffers =
            buffer_count(&self.queues, self.slots.len(), &self.extras) + u64::from(self.hoists());
        if chosen.is_empty() || buffers + 1 > chip.max_buffers {
            return;
        }
        chosen.sort_unstable();
        let twins: Vec<Case> = self
            .cases
            .iter()
            .filter(|case| !case.reduce_split)
            .cloned()
            .collect();
        for mut twin in twins {
            twin.key = self.cases.len() as u32;
            twin.ub_tables = chosen.clone();
            self.cases.push(twin);
        }
    }

    /// The innermost block of a transpose case: TRANSPOSE_BLOCK elements, or 32, 16, 8
    /// (multiples of the layout alignment) when the smallest tile would take more than
    /// half of the chip's UB (the `Transpose` temporary alone is `(c + 2) * 512` bytes).
    /// Refuses the kernel when not even the smallest block fits, rather than hand the
    /// tiling an infeasible kernel (only a shrunken `ub-bytes` does that).
    fn fit_transpose_block(&mut self, chip: &ChipProfile) -> Result<(), String> {
        let Some(case) = self.cases.first().cloned() else {
            return Ok(());
        };
        let Some((b, _)) = case.inner_block.clone() else {
            return Ok(());
        };
        let inner = self.axes[b].size.clone();
        let ub = chip.ub_usable as i64;
        let mut fitting: Option<(Case, i64)> = None;
        for block in [TRANSPOSE_BLOCK, 32, 16, 8] {
            if block % self.align != 0 {
                continue;
            }
            let extent = match inner.as_const() {
                Some(v) if v < block => inner.clone(),
                _ => c(block),
            };
            let mut trial = case.clone();
            trial.inner_block = Some((b, extent));
            let Some(bytes) = self.smallest_tile_ub(&trial) else {
                return Ok(());
            };
            if bytes <= ub && fitting.is_none() {
                fitting = Some((trial.clone(), bytes));
            }
            if bytes * 2 <= ub {
                fitting = Some((trial, bytes));
                break;
            }
        }
        match fitting {
            Some((trial, _)) => {
                self.cases[0] = trial;
                Ok(())
            }
            None => refuse(format!(
                "the smallest tile of this transposing kernel does not fit the {} bytes of UB of {}",
                ub, chip.name
            )),
        }
    }

    /// The row block of a concat case that cuts rows (`inner_block`): the largest power
    /// of two elements whose one-row tile fits UB (a static row shorter than that is its
    /// own block). The case serves rows longer than a tile holds, where a tile is one
    /// row block anyway; longer blocks mean fewer DMA heads per byte.
    fn fit_concat_row_block(&mut self, chip: &ChipProfile) {
        let ub = chip.ub_usable as i64;
        for i in 0..self.cases.len() {
            let Some((b, _)) = self.cases[i].inner_block.clone() else {
                continue;
            };
            if self.nodes.iter().any(|x| x.transpose) {
                continue;
            }
            let row = self.axes[b].size.as_const();
            // Down to one 32-byte block when UB is small (a `ub-bytes` override).
            let mut chosen = c(self.align);
            let mut block = CONCAT_ROW_BLOCK_MAX;
            while block >= self.align {
                let extent = match row {
                    Some(v) if v < block => c(v),
                    _ => c(block),
                };
                let mut trial = self.cases[i].clone();
                trial.inner_block = Some((b, extent.clone()));
                if self
                    .smallest_tile_ub(&trial)
                    .is_some_and(|bytes| bytes <= ub)
                {
                    chosen = extent;
                    break;
                }
                block /= 2;
            }
            self.cases[i].inner_block = Some((b, chosen));
        }
        // A static row that is one block is what the split-concat case already tiles.
        let whole_row_twins: Vec<usize> = (0..self.cases.len())
            .filter(|&i| {
                self.cases[i]
                    .inner_block
                    .as_ref()
                    .is_some_and(|(b, extent)| {
                        !self.nodes.iter().any(|x| x.transpose) && *extent == self.axes[*b].size
                    })
            })
            .collect();
        for i in whole_row_twins.into_iter().rev() {
            self.cases.remove(i);
        }
        for (key, case) in self.cases.iter_mut().enumerate() {
            case.key = key as u32;
        }
    }

    /// A concat kernel's tiles hold whole slabs (the concat axis and later axes), so its
    /// smallest tile has a fixed size when the slab is static: refuse the kernel when no
    /// case's smallest tile fits the chip's UB (only a shrunken `ub-bytes` does that to a
    /// kernel `--lower-to-ascir` built), rather than hand the tiling an infeasible kernel.
    fn check_concat_slabs_fit(&self, chip: &ChipProfile) -> Result<(), String> {
        let mut smallest: Option<i64> = None;
        for case in &self.cases {
            // Symbolic slabs are decided at run time by the tiling function.
            let Some(bytes) = self.smallest_tile_ub(case) else {
                return Ok(());
            };
            smallest = Some(smallest.map_or(bytes, |m: i64| m.min(bytes)));
        }
        match smallest {
            Some(bytes) if bytes > chip.ub_usable as i64 => refuse(format!(
                "the smallest tile of this concat kernel (whole concat slabs) needs {bytes} bytes \
                 of UB, {} has {}",
                chip.name, chip.ub_usable
            )),
            _ => Ok(()),
        }
    }

    /// Checks every node is emitted by the generator in its element types.
    fn check_ops(&self, graph: &AscGraph, chip: &ChipProfile) -> Result<(), String> {
        for (n, info) in self.nodes.iter().enumerate() {
            let node = &graph.nodes[n];
            let operand_dtype = node.operands.first().map(|&o| graph.nodes[o].dtype);
            match &info.kind {
                NodeKind::Elementwise { op } => {
                    let arith = match op.as_str() {
                        "select" | "where" => graph
                            .nodes
                            .get(node.operands.get(1).copied().unwrap_or(usize::MAX))
                            .map(|x| ub_dtype(x.dtype))
                            .unwrap_or(info.dtype),
                        _ => ub_dtype(operand_dtype.unwrap_or(info.dtype)),
                    };
                    if int_select(&self.nodes, n) {
                        // Emitted bitwise on the int16 view (see `int_select`). A
                        // scalar branch the select does not absorb is a tile of its own
                        // (a Duplicate), which exists for int32 only: an int64 scalar
                        // branch must be absorbed (an int32 value read only by selects).
                        for &o in node.operands.iter().skip(1) {
                            if let NodeKind::Scalar { value } = self.nodes[o].kind {
                                if info.dtype == DType::I64
                                    && !absorbed_scalar(&self.nodes, &self.operands, o)
                                {
                                    return refuse(format!(
                                        "a select of i64 with the scalar branch {value} (not \
                                         an int32 value read only by selects) is not supported"
                                    ));
                                }
                            }
                        }
                        for api in ["And", "Or", "Not"] {
                            if !chip.api_supports(api, DType::I16) {
                                return refuse(format!(
                                    "ascir.{op} on {} needs {api} on int16, which {} does not \
                                     support",
                                    info.dtype, chip.name
                                ));
                            }
                        }
                        continue;
                    }
                    let known = unary_supported(op)
                        || binary_supported(op)
                        || compare_supported(op)
                        || matches!(op.as_str(), "select" | "where");
                    if !known {
                        return refuse(format!("no Ascend C lowering for ascir.{op} yet"));
                    }
                    // Rounding is a float -> float Cast (f32, or f16 staged in f32).
                    if matches!(op.as_str(), "floor" | "ceil" | "round")
                        && !matches!(arith, DType::F32 | DType::F16)
                    {
                        return refuse(format!("ascir.{op} on {arith} is not supported"));
                    }
                    if compare_supported(op) {
                        let ok = matches!(arith, DType::F32 | DType::F16 | DType::I32);
                        if !ok {
                            return refuse(format!("ascir.{op} on {arith} is not supported"));
                        }
                        continue;
                    }
                    // int32 abs is emitted as max(-x, x).
                    let apis = if op == "abs" && arith == DType::I32 {
                        &["Muls", "Max"][..]
                    } else {
                        apis_of(op)
                    };
                    let bitwise = matches!(op.as_str(), "bitwise_and" | "bitwise_not");
                    if bitwise && !matches!(arith, DType::I16 | DType::I32) {
                        return refuse(format!("ascir.{op} on {arith} is not supported"));
                    }
                    for api in apis {
                        let d = if *api == "Compares" {
                            DType::F16
                        } else if bitwise {
                            DType::I16
                        } else {
                            arith
                        };
                        if !chip.api_supports(api, d) {
                            return refuse(format!(
                                "ascir.{op} needs {api} on {d}, which {} does not support",
                                chip.name
                            ));
                        }
                    }
                }
                NodeKind::Reduce { op, .. } => {
                    let d = ub_dtype(info.dtype);
                    let ok = match op.as_str() {
                        "sum" | "mean" => matches!(d, DType::F32 | DType::F16),
                        // Products are Mul calls (and af::ProdRow's scalar tail), which
                        // int32 has too (wrapping, as ONNX integer products do).
                        "prod" => matches!(d, DType::F32 | DType::F16 | DType::I32),
                        "max" | "min" | "any" | "all" => matches!(d, DType::F32 | DType::F16),
                        _ => false,
                    };
                    if !ok {
                        return refuse(format!(
                            "reduction ascir.{op} on {} is not supported",
                            info.dtype
                        ));
                    }
                }
                NodeKind::Cast => {
                    let from = operand_dtype.unwrap_or(info.dtype);
                    if !cast_supported(from, info.dtype) {
                        return refuse(format!("cast {from} -> {} is not supported", info.dtype));
                    }
                }
                NodeKind::Broadcast => {
                    // 1-byte values broadcast as int16 pairs (af::SplatOrCopyBytes).
                    let s = ub_size(info.dtype);
                    if s != 1 && s != 2 && s != 4 {
                        return refuse(format!("broadcast of {} is not supported", info.dtype));
                    }
                }
                NodeKind::Scalar { .. } if absorbed_scalar(&self.nodes, &self.operands, n) => {}
                NodeKind::Scalar { .. } => {
                    let s = ub_size(info.dtype);
                    if s != 2 && s != 4 {
                        return refuse(format!("scalar of {} is not supported", info.dtype));
                    }
                }
                NodeKind::Arange { .. }
                    if !crate::lower_to_ascir::lowering::arange_computable(info.dtype) =>
                {
                    return refuse(format!("arange of {} is not supported", info.dtype));
                }
                NodeKind::Concat { .. } => {
                    let s = ub_size(info.dtype);
                    if s != 2 && s != 4 {
                        return refuse(format!("concat of {} is not supported", info.dtype));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Queue, slot and extra-buffer assignment (lifetimes in node order).
    fn allocate(&mut self, graph: &AscGraph, chip: &ChipProfile) -> Result<(), String> {
        let count = self.nodes.len();
        // Last use of each value (stores count as a use at their own position).
        let mut last_use = vec![0usize; count];
        for (n, node) in graph.nodes.iter().enumerate() {
            for &o in &node.operands {
                if o < count {
                    last_use[o] = last_use[o].max(n);
                }
            }
        }
        // A reader of an absorbed broadcast reads the broadcast's source.
        for n in 0..count {
            if self.absorbed_broadcast(n) {
                if let Some(&src) = graph.nodes[n].operands.first() {
                    last_use[src] = last_use[src].max(last_use[n]);
                }
            }
        }
        // Queues.
        let loads: Vec<usize> = (0..count)
            .filter(|&n| self.nodes[n].kind == NodeKind::Load)
            .collect();
        let stores: Vec<usize> = (0..count)
            .filter(|&n| self.nodes[n].kind == NodeKind::Store)
            .collect();
        let max_q = chip.max_queues_per_position.max(1) as usize;
        let per_pos_buffers = chip.max_queue_buffers_per_position;
        for (position, members) in [(Position::VecIn, &loads), (Position::VecOut, &stores)] {
            if members.is_empty() {
                continue;
            }
            let queues = members.len().min(max_q);
            let first = self.queues.len();
            for _ in 0..queues {
                self.queues.push(Queue {
                    position,
                    count: 2,
                    members: Vec::new(),
                });
            }
            // Spread round-robin: each queue gets members in node order.
            for (i, &n) in members.iter().enumerate() {
                let q = first + i % queues;
                let member = self.queues[q].members.len();
                self.queues[q].members.push(n);
                let place = Place::Queue { queue: q, member };
                if position == Position::VecIn {
                    self.nodes[n].raw = place;
                } else {
                    self.nodes[n].value = place;
                }
            }
            if queues as u64 * 2 > per_pos_buffers {
                for q in &mut self.queues[first..] {
                    q.count = 1;
                }
            }
        }
        // Direct stores: a compute producer, not bool, stored once.
        let mut stored_once = vec![false; count];
        for &s in &stores {
            let Some(&p) = graph.nodes[s].operands.first() else {
                return refuse(format!("store {s} without operand"));
            };
            let producer = &self.nodes[p];
            let computes = matches!(
                producer.kind,
                NodeKind::Elementwise { .. }
                    | NodeKind::Cast
                    | NodeKind::Reduce { .. }
                    | NodeKind::Broadcast
                    | NodeKind::Scalar { .. }
                    | NodeKind::Arange { .. }
                    | NodeKind::Concat { .. }
                    | NodeKind::ExtractSlice { .. }
            );
            // Only a value used by nothing but its store may live in the store's queue
            // (a split-reduction pass may recompute it without the store).
            let only_use = (0..count)
                .filter(|&x| self.operands[x].contains(&p))
                .count()
                == 1;
            if computes
                && producer.dtype != DType::Bool
                && !stored_once[p]
                && only_use
                && !self.persistent[p]
            {
                stored_once[p] = true;
                self.nodes[s].direct = true;
                self.nodes[p].value = self.nodes[s].value;
            }
        }
        // Loads of non-bool values are used straight from their queue tensor (except
        // transposing loads: `Transpose` writes a VECCALC slot).
        for &l in &loads {
            if self.nodes[l].dtype != DType::Bool && !self.nodes[l].transpose {
                self.nodes[l].value = self.nodes[l].raw;
            }
        }
        // Staging tensors of direct stores free for values computed before their
        // producer: (producer, occupant and its last use). The VECOUT tensor is taken
        // (AllocTensor) when the tile's compute starts, so a chain of elementwise values
        // of the stored value's box and type can be computed in it up to the producer,
        // which then writes over the last of them in place: one VECCALC slot fewer (a
        // tile-sized buffer). Not in kernels with split-reduction cases (their passes
        // compute in several stages) nor across tiling groups.
        let mut staging: Vec<(usize, Option<(usize, usize)>)> =
            if self.cases.iter().any(|c| c.reduce_split) {
                Vec::new()
            } else {
                stores
                    .iter()
                    .filter(|&&st| self.nodes[st].direct)
                    .filter_map(|&st| graph.nodes[st].operands.first().map(|&p| (p, None)))
                    .collect()
            };
        // VECIN tensors a value may be computed over once the value it holds dies: loads
        // read straight from their queue in every tile of every case (not hoisted or
        // resident, not transposed, not bool). The queue frees the tensor after the
        // tile's (or chunk's) compute whatever it holds. In kernels with split-reduction
        // cases only loads and values that vary along the split reduced axis of every
        // such case and are no accumulator or final: those are loaded and computed per
        // chunk, in every pass that reads them, in node order.
        let in_hoist: Vec<usize> = self.cases.iter().flat_map(|c| self.in_hoist(c)).collect();
        let plans: Vec<SplitPlan> = self
            .cases
            .iter()
            .filter(|c| c.reduce_split)
            .filter_map(|c| self.split_plan(c))
            .collect();
        let every_plan = plans.len() == self.cases.iter().filter(|c| c.reduce_split).count();
        let per_chunk: Vec<bool> = (0..count)
            .map(|x| {
                every_plan
                    && !self.persistent[x]
                    && plans.iter().all(|p| p.varies.get(x) == Some(&true))
            })
            .collect();
        let load_tensors: Vec<Place> = loads
            .iter()
            .filter(|&&l| {
                let load = &self.nodes[l];
                !load.transpose
                    && load.dtype != DType::Bool
                    && load.value == load.raw
                    && matches!(load.raw, Place::Queue { .. })
                    && !in_hoist.contains(&l)
                    && per_chunk[l]
            })
            .map(|&l| self.nodes[l].raw)
            .collect();
        // Slots by lifetime.
        let mut slot_members: Vec<Vec<usize>> = Vec::new();
        let mut free: Vec<usize> = Vec::new();
        let mut live_until: Vec<(usize, usize)> = Vec::new(); // (slot, last use)
        for n in 0..count {
            // Release slots whose value died before this node.
            let mut i = 0;
            while i < live_until.len() {
                if live_until[i].1 < n {
                    free.push(live_until[i].0);
                    live_until.swap_remove(i);
                } else {
                    i += 1;
                }
            }
            let needs_slot = self.nodes[n].value == Place::None
                && !self.absorbed_scalar(n)
                && !self.absorbed_broadcast(n)
                && matches!(
                    self.nodes[n].kind,
                    NodeKind::Load
                        | NodeKind::Elementwise { .. }
                        | NodeKind::Cast
                        | NodeKind::Reduce { .. }
                        | NodeKind::Broadcast
                        | NodeKind::Scalar { .. }
                        | NodeKind::Arange { .. }
                        | NodeKind::Concat { .. }
                        | NodeKind::ExtractSlice { .. }
                        | NodeKind::Gather { .. }
                );
            if !needs_slot {
                continue;
            }
            if self.persistent[n] {
                // Lives across chunks and passes: a slot of its own.
                slot_members.push(vec![n]);
                self.nodes[n].value = Place::Slot {
                    slot: slot_members.len() - 1,
                };
                continue;
            }
            // In place over an operand that dies here (same extent and element type): its
            // slot, else the load tensor holding it.
            let mut chosen = None;
            let mut over_load = None;
            if let NodeKind::Elementwise { op } = &self.nodes[n].kind {
                if writes_in_place(op, self.nodes[n].dtype) {
                    let same_box = |o: usize| {
                        last_use[o] == n
                            && self.nodes[o].full == self.nodes[n].full
                            && self.nodes[o].partial == self.nodes[n].partial
                            && ub_dtype(self.nodes[o].dtype) == ub_dtype(self.nodes[n].dtype)
                    };
                    for &o in &graph.nodes[n].operands {
                        if !same_box(o) {
                            continue;
                        }
                        if let Place::Slot { slot } = self.nodes[o].value {
                            // Still in live_until: take it over.
                            if let Some(pos) = live_until.iter().position(|&(s, _)| s == slot) {
                                live_until.swap_remove(pos);
                                chosen = Some(slot);
                                break;
                            }
                        }
                    }
                    if chosen.is_none() {
                        over_load = graph.nodes[n].operands.iter().copied().find(|&o| {
                            same_box(o)
                                && per_chunk[n]
                                && load_tensors.contains(&self.nodes[o].value)
                                && tiling_group(self, o) == tiling_group(self, n)
                        });
                    }
                }
            }
            if let Some(o) = over_load {
                self.nodes[n].value = self.nodes[o].value;
                continue;
            }
            if chosen.is_none() {
                if let Some(place) = staging_place(self, n, &last_use, &mut staging) {
                    self.nodes[n].value = place;
                    continue;
                }
            }
            let slot = match chosen {
                Some(s) => s,
                None => {
                    // Prefer a free slot whose members have this node's extent and size.
                    let same = free.iter().position(|&s| {
                        slot_members[s].iter().all(|&m| {
                            self.nodes[m].full == self.nodes[n].full
                                && ub_size(self.nodes[m].dtype) == ub_size(self.nodes[n].dtype)
                        })
                    });
                    match same.or(if free.is_empty() { None } else { Some(0) }) {
                        Some(i) => free.swap_remove(i),
                        None => {
                            slot_members.push(Vec::new());
                            slot_members.len() - 1
                        }
                    }
                }
            };
            slot_members[slot].push(n);
            self.nodes[n].value = Place::Slot { slot };
            live_until.push((slot, last_use[n].max(n)));
        }
        self.slots = slot_members;
        // Extras.
        for (n, info) in self.nodes.iter().enumerate() {
            let operand_dtype = graph.nodes[n]
                .operands
                .first()
                .map(|&o| graph.nodes[o].dtype);
            match &info.kind {
                NodeKind::Reduce { reduced, .. } => {
                    let last = self.axes.len() - 1;
                    if reduced.contains(&last) {
                        self.extras.work = true;
                        if reduced.len() > 1 {
                            self.extras.scratch = true;
                        }
                    }
                    if matches!(info.kind, NodeKind::Reduce { ref op, .. } if op == "mean") {
                        // Muls by 1/N needs nothing extra.
                    }
                }
                NodeKind::Elementwise { op } => {
                    if compare_supported(op) || matches!(op.as_str(), "select" | "where") {
                        self.extras.mask = true;
                    }
                    if scratch_factor(&info.kind, info.dtype, operand_dtype) > 0 {
                        self.extras.scratch = true;
                    }
                }
                NodeKind::Cast => {
                    let from = operand_dtype.unwrap_or(info.dtype);
                    if info.dtype == DType::Bool || from == DType::Bool {
                        self.extras.mask = true;
                    }
                    if scratch_factor(&info.kind, info.dtype, operand_dtype) > 0 {
                        self.extras.scratch = true;
                    }
                }
                NodeKind::Load if info.transpose => self.extras.scratch = true,
                NodeKind::Store if !info.direct && info.dtype == DType::Bool => {}
                _ => {}
            }
        }
        self.extras.part = self.cases.iter().any(|c| c.reduce_split);
        let mut buffers =
            buffer_count(&self.queues, self.slots.len(), &self.extras) + u64::from(self.hoists());
        // An absorbed splat reads Brcb blocks of its row scalars from the scratch buffer.
        let absorbed_splat = (0..self.nodes.len()).any(|n| {
            self.absorbed_broadcast(n)
                && self.operands[n]
                    .first()
                    .is_some_and(|&src| self.nodes[src].full.last() == Some(&false))
        });
        if absorbed_splat && !self.extras.scratch {
            self.extras.scratch = true;
            buffers += 1;
        }
        if !self.extras.scratch && buffers < chip.max_buffers {
            // Row splats take a constant number of calls with a scratch buffer of
            // blocks (af::SplatRows); without a free buffer they go row by row.
            let operands: Vec<Vec<usize>> =
                graph.nodes.iter().map(|n| n.operands.clone()).collect();
            let splats = (0..self.nodes.len()).any(|n| {
                self.nodes[n].kind == NodeKind::Broadcast
                    && self
                        .cases
                        .iter()
                        .any(|case| self.splats_rows(case, n, &operands))
            });
            if splats {
                self.extras.scratch = true;
                buffers += 1;
            }
        }
        if buffers > chip.max_buffers {
            return refuse(format!(
                "{buffers} buffers exceed the TPipe limit of {}",
                chip.max_buffers
            ));
        }
        Ok(())
    }
}

/// Where each part of the concats along normalized `axis` starts in the result of the
/// outermost one (`NodeInfo::part_start`), for tiles that split the concat axis. False
/// when such a tile cannot be computed: a node covering a part is not a load, a
/// broadcast, an elementwise op, a cast, a fill or a concat (an extract_slice or a gather needs the
/// whole axis), or one value other than a fill is a part at two places (`concat(x, x)`
/// loads `x` once). A fill may be (a symmetric pad's two fills are one value after CSE):
/// it fills a whole tile, and each concat takes the rows its use needs.
fn assign_part_starts(graph: &AscGraph, nodes: &mut [NodeInfo], axis: usize) -> bool {
    let mut start: Vec<Option<Expr>> = vec![None; nodes.len()];
    // Consumers come after their operands: walk back from the outermost concat.
    for n in (0..nodes.len()).rev() {
        let info = &nodes[n];
        let is_concat = matches!(info.kind, NodeKind::Concat { .. });
        let Some(partial) = info.partial.get(axis) else {
            return false;
        };
        if partial.is_none() && !is_concat {
            continue;
        }
        let computable = !info.transpose
            && matches!(
                info.kind,
                NodeKind::Data { .. }
                    | NodeKind::Load
                    | NodeKind::Broadcast
                    | NodeKind::Elementwise { .. }
                    | NodeKind::Cast
                    | NodeKind::Scalar { .. }
                    | NodeKind::Concat { .. }
            );
        if !computable {
            return false;
        }
        let mine = match (&start[n], partial) {
            (Some(s), _) => s.clone(),
            (None, None) => c(0),
            // A part that no concat of this axis reads.
            (None, Some(_)) => return false,
        };
        let operands = &graph.nodes[n].operands;
        let mut parts = Vec::new();
        if is_concat {
            let mut at = mine;
            for &o in operands {
                let Some(Some(len)) = nodes.get(o).map(|x| x.partial[axis].clone()) else {
                    return false;
                };
                parts.push((o, at.clone()));
                at = at + len;
            }
        } else {
            for &o in operands {
                if nodes.get(o).is_some_and(|x| x.partial[axis].is_some()) {
                    parts.push((o, mine.clone()));
                }
            }
        }
        for (o, s) in parts {
            match &start[o] {
                Some(_) if matches!(nodes[o].kind, NodeKind::Scalar { .. }) => {}
                Some(prev) if *prev != s => return false,
                _ => start[o] = Some(s),
            }
        }
    }
    for (info, s) in nodes.iter_mut().zip(start) {
        if let Some(s) = s {
            info.part_start = s;
        }
    }
    true
}

fn node_kind(graph: &AscGraph, n: usize) -> Result<NodeKind, String> {
    let node = &graph.nodes[n];
    let op = node.op.as_str();
    Ok(match op {
        "data" => NodeKind::Data {
            input: node.index.unwrap_or(0),
        },
        "output" => NodeKind::Output {
            index: node.index.unwrap_or(0),
        },
        "load" => NodeKind::Load,
        "store" => {
            if node.gm_offset()? != c(0) {
                return refuse("stores with a non-zero offset are not scheduled");
            }
            NodeKind::Store
        }
        "broadcast" => NodeKind::Broadcast,
        "cast" => NodeKind::Cast,
        "arange" => {
            let (start, delta) = node.arange_terms()?;
            NodeKind::Arange { start, delta }
        }
        "scalar" | "fill" => {
            let value = attr_text(node, "value")
                .and_then(|v| v.trim_matches('"').parse::<f64>().ok())
                .ok_or_else(|| format!("{op} node {n} without a numeric value"))?;
            NodeKind::Scalar { value }
        }
        r if REDUCE_OPS.contains(&r) => NodeKind::Reduce {
            op: r.to_string(),
            reduced: Vec::new(),
        },
        "concat" => NodeKind::Concat {
            // The hint position; `build` turns it into the normalized axis.
            axis: graph
                .concat_axis(n)
                .ok_or_else(|| format!("concat node {n} has malformed views"))?,
        },
        "extract_slice" => {
            let axis = attr_text(node, "axis")
                .and_then(|v| v.split(':').next())
                .and_then(|v| v.trim().parse::<usize>().ok())
                .filter(|&a| a < node.view.repeats.len())
                .ok_or_else(|| format!("extract_slice node {n} without a valid 'axis'"))?;
            NodeKind::ExtractSlice {
                axis,
                start: node.gm_offset()?,
            }
        }
        "gather" => {
            let (bound, index_stride) = graph.gather_geometry(n)?;
            if !matches!(
                node.dtype,
                DType::F32 | DType::F16 | DType::BF16 | DType::I32
            ) {
                return refuse(format!("a gather of {} is not scheduled", node.dtype));
            }
            NodeKind::Gather {
                bound,
                index_stride,
            }
        }
        "workspace" | "transpose" | "split" => {
            return refuse(format!("ascir.{op} is not scheduled yet"))
        }
        other => NodeKind::Elementwise {
            op: other.to_string(),
        },
    })
}

/// The tiling group of node `n` (`None` outside grouped kernels).
fn tiling_group(s: &Schedule, n: usize) -> Option<&str> {
    s.node_groups.get(n).and_then(|g| g.as_deref())
}

/// The staging tensor of a direct store that value `n` may live in: `n` is an
/// elementwise value (no compare), a cast or the tile layout of a transposing load
/// computed before the store's producer `p`, with `p`'s box and UB type, dead before
/// `p` (or read last by `p` when `p` writes in place), and the tensor is free at `n`
/// (its occupant died before `n`, or is an operand that dies at `n` and `n` writes in
/// place).
fn staging_place(
    s: &Schedule,
    n: usize,
    last_use: &[usize],
    staging: &mut [(usize, Option<(usize, usize)>)],
) -> Option<Place> {
    let writes_over_operand = |x: usize| matches!(&s.nodes[x].kind, NodeKind::Elementwise { op } if writes_in_place(op, s.nodes[x].dtype));
    let info = &s.nodes[n];
    let in_place = writes_over_operand(n);
    // A transposing load's `Transpose` reads its raw queue tensor only.
    let transposed = info.kind == NodeKind::Load && info.transpose;
    if !(in_place || transposed || info.kind == NodeKind::Cast) || info.dtype == DType::Bool {
        return None;
    }
    for (p, occupant) in staging.iter_mut() {
        let p = *p;
        let target = &s.nodes[p];
        let fits = n < p
            && target.full == info.full
            && target.partial == info.partial
            && ub_dtype(target.dtype) == ub_dtype(info.dtype)
            && s.node_groups.get(n) == s.node_groups.get(p)
            && (last_use[n] < p || (last_use[n] == p && writes_over_operand(p)));
        // The occupant may be an operand that dies at `n` when `n` writes in place
        // (a cast never does: its narrow and wide elements do not line up).
        let free = match *occupant {
            None => true,
            Some((_, dies)) => dies < n || (dies == n && in_place),
        };
        if fits && free && matches!(target.value, Place::Queue { .. }) {
            *occupant = Some((n, last_use[n].max(n)));
            return Some(target.value);
        }
    }
    None
}

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
