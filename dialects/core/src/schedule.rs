//! The schedule of one fused kernel: from an AscGraph in GE's hint form to the impl-form
//! decisions the tiling solver, the impl-form interpreter and the Ascend C generator use.
//!
//! Steps (GE `optimize::Optimizer`, ge_autofuse.md §6):
//! 1. **Normalize axes**: drop axes of static size 1 and axes no node iterates on; merge
//!    adjacent axes that every node sees the same way (both extents full and contiguous in
//!    every GM view, or both broadcast/reduced). Each result is a [`NormAxis`].
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

use crate::ascir::{ArangeTerm, AscGraph, AscNode};
use crate::chip::ChipProfile;
use crate::graph::DType;
use autofuse_symbolic::Expr;
use std::collections::BTreeMap;

/// One axis of the normalized loop nest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NormAxis {
    /// The hint axis id when not merged, else a new id.
    pub id: i64,
    pub name: String,
    pub size: Expr,
    /// Hint axis ids merged into this axis, outer to inner.
    pub from: Vec<i64>,
}

/// What a node does, as the code generator sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Data {
        input: usize,
    },
    Load,
    Broadcast,
    Reduce {
        op: String,
        reduced: Vec<usize>,
    },
    Elementwise {
        op: String,
    },
    Cast,
    Scalar {
        value: f64,
    },
    /// start + delta * (element offset under the node's view): an inlined range. Its
    /// `gm_strides` are the offset strides.
    Arange {
        start: ArangeTerm,
        delta: ArangeTerm,
    },
    // Binary concat along normalized axis `axis` (whole in every tile: GE's n_group).
    Concat {
        axis: usize,
    },
    Store,
    Output {
        index: usize,
    },
}

/// Where a value lives in UB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// GM (data, output) or nothing.
    None,
    /// Member `member` of queue `queue`.
    Queue { queue: usize, member: usize },
    /// VECCALC slot.
    Slot { slot: usize },
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeInfo {
    pub kind: NodeKind,
    /// Per normalized axis: the view is full (repeat = axis size) there, or covers a
    /// part of it (`partial`).
    pub full: Vec<bool>,
    /// Per normalized axis: the extent of a view that covers only part of the axis (an
    /// operand of a concat and what computes it); such axes are never split.
    pub partial: Vec<Option<Expr>>,
    /// GM strides per normalized axis (data, store, output); zeros elsewhere.
    pub gm_strides: Vec<Expr>,
    /// The node's element type (bool is u8 in GM, half in UB).
    pub dtype: DType,
    /// Where its value is computed / lives during Compute.
    pub value: Place,
    /// Loads: the queue member DMA writes (the raw GM element type); bool loads then
    /// convert into `value`.
    pub raw: Place,
    /// Stores: true when the producer writes straight into the store's VECOUT member.
    pub direct: bool,
    /// Loads (and their data): the GM view swaps the two innermost axes (a transpose
    /// that moves the innermost axis). The DMA writes the source block (innermost axes
    /// swapped) into `raw`; the Ascend C `Transpose` writes the tile layout into `value`.
    pub transpose: bool,
    /// The MLIR location of the source op, for comments.
    pub loc: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    VecIn,
    VecOut,
}

impl Position {
    pub fn name(self) -> &'static str {
        match self {
            Position::VecIn => "VECIN",
            Position::VecOut => "VECOUT",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Queue {
    pub position: Position,
    /// Buffer count (2 = double buffering).
    pub count: u64,
    /// Nodes whose tensors share this queue's block, at increasing offsets.
    pub members: Vec<usize>,
}

/// One tiling case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub key: u32,
    /// Index (into `Schedule::axes`) of the UB-split axis; None: one tile.
    pub split: Option<usize>,
    /// Axes inside the tile, in memory order.
    pub in_tile: Vec<usize>,
    /// Axes iterated one index per tile, outer to inner.
    pub looped: Vec<usize>,
    /// The tile size variable (`z0t_size`), when split.
    pub tile_var: Option<String>,
    /// Tile sizes are multiples of this (the layout alignment when `u` is innermost).
    pub tile_align: i64,
    /// Name of the merged block axis (`z0T`), its per-core size variable (`z0Tb_size`).
    pub block_name: String,
    pub block_var: String,
    /// The split axis is reduced: tiles are chunks of a reduction row, processed in
    /// passes per row group (see [`SplitPlan`]); blocks take whole row groups.
    pub reduce_split: bool,
    /// Transpose kernels: the innermost axis and its fixed tile extent. The split axis
    /// is then the second-to-last axis, and the innermost axis is tiled too (GE's
    /// x_group): tiles loop over `ceil(size / extent)` blocks of it (counted in
    /// `outer_expr`), each tile is a 2-D block `[t, extent]`.
    pub inner_block: Option<(usize, Expr)>,
}

/// Extra (non-slot) VECCALC buffers.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Extras {
    /// Reductions over the innermost axis: work tensor of ReduceSum/Max/Min.
    pub work: bool,
    /// Compare/Select bit masks.
    pub mask: bool,
    /// Temporaries (row partials, constants, API scratch).
    pub scratch: bool,
    /// Partial reduction of one chunk (split-reduction cases).
    pub part: bool,
}

#[derive(Clone, Debug)]
pub struct Schedule {
    pub kernel: String,
    pub axes: Vec<NormAxis>,
    /// Indices into `axes`.
    pub y: Vec<usize>,
    pub r: Vec<usize>,
    pub cases: Vec<Case>,
    pub nodes: Vec<NodeInfo>,
    pub queues: Vec<Queue>,
    /// Members of each VECCALC slot.
    pub slots: Vec<Vec<usize>>,
    pub extras: Extras,
    /// Elements per row alignment unit (32 B / smallest element size).
    pub align: i64,
    /// Symbols the kernel reads (`ascir.sizes`).
    pub symbols: Vec<String>,
    pub inputs: Vec<crate::graph::TensorType>,
    pub outputs: Vec<crate::graph::TensorType>,
    pub source_ops: Vec<String>,
    /// First free axis id after the hint axes (ids of merged and split axes start here).
    pub next_axis_id: i64,
    /// Operands of every node (the graph's).
    pub operands: Vec<Vec<usize>>,
    /// Values that must outlive a chunk in some split-reduction case (accumulators and
    /// what is computed from them): dedicated VECCALC slots, never written by a store's
    /// producer directly.
    pub persistent: Vec<bool>,
    /// GE's TilingGroup of every node over the hint axes (`tiling_group::node_group`,
    /// None for buffer nodes) and of the kernel (their merge, `tiling_group::graph_group`,
    /// order-sensitive when possible), in GE's `(x)(y)(r)` notation.
    pub node_groups: Vec<Option<String>>,
    pub hint_group: String,
}

/// How a split-reduction case runs one row group: passes over the chunks of the split
/// (reduced) axis `u`. A node's level is the number of reductions over `u` that must
/// finish before it can be computed; reductions over `u` ("accumulators") are combined
/// chunk by chunk in the pass of their input's level; values that do not vary along `u`
/// and depend on finished accumulators ("finals") are computed once, between passes;
/// everything else is recomputed (and reloaded) in every pass that needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitPlan {
    pub passes: usize,
    pub level: Vec<usize>,
    /// Per node: full along `u`.
    pub varies: Vec<bool>,
    /// Accumulators (reductions over `u`) and finals.
    pub persistent: Vec<bool>,
    /// Per pass, chunk stage: nodes computed per chunk (node order; loads included,
    /// accumulators excluded), accumulators combined, stores written.
    pub chunk_nodes: Vec<Vec<usize>>,
    pub chunk_accs: Vec<Vec<usize>>,
    pub chunk_stores: Vec<Vec<usize>>,
    /// Per pass, the stage after its last chunk: means to scale, nodes computed once
    /// (finals and the loads/constants they need), stores written.
    pub final_means: Vec<Vec<usize>>,
    pub final_nodes: Vec<Vec<usize>>,
    pub final_stores: Vec<Vec<usize>>,
}

/// Tile extent of the innermost axis in kernels that transpose it in UB: the `cSize`
/// of the `Transpose` call (at most 4095), whose temporary takes `(c + 2) * 512` bytes
/// (33 KiB here); a multiple of every layout alignment, so result rows stay aligned.
pub const TRANSPOSE_BLOCK: i64 = 64;

/// Bytes of an element of `dtype` in UB (bool as half).
pub fn ub_size(dtype: DType) -> i64 {
    match dtype {
        DType::Bool => 2,
        other => other.bytes() as i64,
    }
}

/// Bytes of an element of `dtype` in GM.
pub fn gm_size(dtype: DType) -> i64 {
    dtype.bytes() as i64
}

/// The UB element type of a value (bool is half).
pub fn ub_dtype(dtype: DType) -> DType {
    match dtype {
        DType::Bool => DType::F16,
        other => other,
    }
}

pub const REDUCE_OPS: &[&str] = &["sum", "mean", "max", "min", "prod", "any", "all"];

fn c(v: i64) -> Expr {
    Expr::constant(v)
}

fn refuse<T>(message: impl Into<String>) -> Result<T, String> {
    Err(message.into())
}

/// Unary ops the generator emits (op -> needs scratch).
fn unary_supported(op: &str) -> bool {
    matches!(
        op,
        "abs"
            | "neg"
            | "exp"
            | "log"
            | "sqrt"
            | "rsqrt"
            | "reciprocal"
            | "relu"
            | "sigmoid"
            | "tanh"
            | "erf"
            | "sin"
            | "cos"
            | "square"
            | "logical_not"
            | "floor"
            | "ceil"
            | "round"
    )
}

fn binary_supported(op: &str) -> bool {
    matches!(
        op,
        "add"
            | "sub"
            | "mul"
            | "div"
            | "maximum"
            | "minimum"
            | "logical_and"
            | "logical_or"
            | "logical_xor"
            | "leaky_relu"
    )
}

fn compare_supported(op: &str) -> bool {
    matches!(op, "eq" | "ne" | "lt" | "le" | "gt" | "ge")
}

/// Ascend C APIs an elementwise op uses, for dtype gating.
fn apis_of(op: &str) -> &'static [&'static str] {
    match op {
        "abs" => &["Abs"],
        "neg" => &["Muls"],
        "exp" => &["Exp"],
        "log" => &["Ln"],
        "sqrt" => &["Sqrt"],
        "rsqrt" => &["Sqrt", "Div", "Duplicate"],
        "reciprocal" => &["Div", "Duplicate"],
        "relu" => &["Relu"],
        "sigmoid" => &["Sigmoid"],
        "tanh" => &["Tanh"],
        "erf" => &["Erf"],
        "sin" => &["Sin"],
        "cos" => &["Cos"],
        "square" | "mul" | "logical_and" => &["Mul"],
        "logical_not" => &["Muls", "Adds"],
        "add" => &["Add"],
        "sub" => &["Sub"],
        "div" => &["Div"],
        "maximum" | "logical_or" => &["Max"],
        "minimum" => &["Min"],
        "logical_xor" => &["Sub", "Abs"],
        "leaky_relu" => &["LeakyRelu"],
        "select" | "where" => &["Select", "Compares"],
        _ => &[],
    }
}

/// Whether a cast between UB types is emitted (directly or through f32).
pub fn cast_supported(from: DType, to: DType) -> bool {
    use DType::*;
    let ok = |d: DType| matches!(d, F32 | F16 | BF16 | I32 | Bool);
    // Every pair converts directly or through f32 (see `cast_direct`).
    ok(from) && ok(to)
}

/// Whether an op needs the scratch buffer, and how many value-sized areas of it.
fn scratch_factor(kind: &NodeKind, dtype: DType, operand_dtype: Option<DType>) -> i64 {
    match kind {
        NodeKind::Elementwise { op } => match op.as_str() {
            "rsqrt" | "reciprocal" => 1,
            "sigmoid" | "tanh" | "erf" | "sin" | "cos" => 2,
            // f16 rounds in f32: one f32 copy of the value, two f16-sized areas.
            "floor" | "ceil" | "round" if dtype == DType::F16 => 2,
            // int32 has only EQ/NE compares on 2201: a <= b is max(a, b) == b, with the
            // max in one int32 value of scratch.
            "lt" | "le" | "gt" | "ge" if operand_dtype == Some(DType::I32) => 1,
            _ => 0,
        },
        NodeKind::Cast => {
            let from = operand_dtype.unwrap_or(dtype);
            // Conversions that go through f32 (or through a bool mask source) stage there.
            if cast_direct(from, dtype) {
                0
            } else {
                // The f32 staging value needs up to 2x a half value.
                2
            }
        }
        _ => 0,
    }
}

/// Whether `from -> to` is one Ascend C Cast (or a copy / compare) on 2201.
pub fn cast_direct(from: DType, to: DType) -> bool {
    use DType::*;
    from == to
        || matches!(
            (from, to),
            (F16, F32)
                | (F32, F16)
                | (BF16, F32)
                | (F32, BF16)
                | (F32, I32)
                | (F16, I32)
                | (I32, F32)
                | (Bool, F16)
                | (Bool, F32)
                | (Bool, I32)
                | (F16, Bool)
                | (F32, Bool)
                | (I32, Bool)
        )
}

/// Number of buffers a kernel may not exceed (TPipe limit).
fn buffer_count(queues: &[Queue], slots: usize, extras: &Extras) -> u64 {
    queues.iter().map(|q| q.count).sum::<u64>()
        + slots as u64
        + u64::from(extras.work)
        + u64::from(extras.mask)
        + u64::from(extras.scratch)
        + u64::from(extras.part)
}

impl Schedule {
    /// Schedules `graph` for `chip`. Errors explain why the kernel stays in hint form.
    pub fn build(graph: &AscGraph, chip: &ChipProfile) -> Result<Schedule, String> {
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
        for (i, node) in graph.nodes.iter().enumerate() {
            if node.view.axis != hint_ids {
                return refuse(format!(
                    "node {i} ('{}') has a view over axes {:?}, not the loop nest {:?}",
                    node.op, node.view.axis, hint_ids
                ));
            }
            if node.view.repeats.len() != hint_ids.len()
                || node.view.strides.len() != hint_ids.len()
            {
                return refuse(format!("node {i} has a malformed view"));
            }
            let mut f = Vec::new();
            let mut part = Vec::new();
            for (k, rep) in node.view.repeats.iter().enumerate() {
                let size = &graph.axes[k].size;
                part.push(None);
                if rep == size && rep.as_const() != Some(1) {
                    f.push(true);
                } else if rep.as_const() == Some(1) && !concat_axes.contains(&k) {
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
        let kept: Vec<usize> = (0..hint_ids.len())
            .filter(|&k| {
                concat_axes.contains(&k)
                    || (graph.axes[k].size.as_const() != Some(1) && full_hint.iter().any(|f| f[k]))
            })
            .collect();
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
            if let NodeKind::Concat { axis } = &mut kind {
                // Hint position -> normalized axis (concat axes are never merged).
                *axis = groups
                    .iter()
                    .position(|g| g.contains(axis))
                    .ok_or_else(|| format!("concat node {n} concatenates a dropped axis"))?
                    + usize::from(scalar_kernel);
            }
            nodes.push(NodeInfo {
                kind,
                full,
                partial,
                gm_strides: strides,
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
        // n_group); kernels with a concat compute pointwise only.
        let n_from = nodes
            .iter()
            .filter_map(|x| match x.kind {
                NodeKind::Concat { axis } => Some(axis),
                _ => None,
            })
            .min();
        if n_from.is_some()
            && nodes
                .iter()
                .any(|x| matches!(x.kind, NodeKind::Broadcast | NodeKind::Reduce { .. }))
        {
            return refuse("a kernel with a concat may not broadcast or reduce");
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
                NodeKind::Reduce { reduced, op } => {
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
                    if op == "prod" && reduced.last() == Some(&(rank - 1)) && input[rank - 1] {
                        return refuse("prod over the innermost axis has no Ascend C reduction");
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
            // transposed load: rows of the source block, transposed in UB.
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
                return refuse(
                    "a kernel whose loads transpose the innermost axis may not broadcast",
                );
            }
            if let Some(bad) = nodes.iter().find(|x| {
                x.transpose
                    && x.kind == NodeKind::Load
                    && !matches!(x.dtype, DType::F32 | DType::F16)
            }) {
                return refuse(format!(
                    "a load of {} that transposes the innermost axis is not supported (Transpose \
                     is used on f32 and f16)",
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
            return refuse("64-bit element types are not scheduled");
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
            }
        };
        // Axes from the first concat axis on are never split (GE's n_group).
        let splittable: Vec<usize> = y
            .iter()
            .copied()
            .filter(|&u| n_from.is_none_or(|first| u < first))
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
        // Split-reduction cases, for rows too long to stay in UB.
        for &u in &r {
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
                .map(|n| crate::tiling_group::node_group(graph, n).map(|g| g.to_string()))
                .collect(),
            hint_group: crate::tiling_group::graph_group(
                graph,
                None,
                crate::tiling_group::Mode::Schedule,
            )
            .or_else(|_| {
                crate::tiling_group::graph_group(graph, None, crate::tiling_group::Mode::CanFuse)
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
            schedule.check_concat_slabs_fit(chip)?;
        }
        if transposes {
            schedule.fit_transpose_block(chip)?;
        }
        Ok(schedule)
    }

    /// The innermost block of a transpose case: TRANSPOSE_BLOCK elements, or 32, 16, 8
    /// (multiples of the layout alignment) when the smallest tile would take more than
    /// half of the chip's UB (the `Transpose` temporary alone is `(c + 2) * 512` bytes).
    /// Refuses the kernel when not even the smallest block fits, rather than hand the
    /// tiling an infeasible kernel (only a shrunken `ub-bytes` does that).
    fn fit_transpose_block(&mut self, chip: &ChipProfile) -> Result<(), String> {
        let operands = self.operands.clone();
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
            let mut env = std::collections::HashMap::new();
            if let Some(var) = &trial.tile_var {
                env.insert(var.clone(), trial.tile_align.max(1));
            }
            let Ok(bytes) = self.ub_expr(&trial, &operands).eval_map(&env) else {
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

    /// A concat kernel's tiles hold whole slabs (the concat axis and later axes), so its
    /// smallest tile has a fixed size when the slab is static: refuse the kernel when no
    /// case's smallest tile fits the chip's UB (only a shrunken `ub-bytes` does that to a
    /// kernel `--lower-to-ascir` built), rather than hand the tiling an infeasible kernel.
    fn check_concat_slabs_fit(&self, chip: &ChipProfile) -> Result<(), String> {
        let operands = self.operands.clone();
        let mut smallest: Option<i64> = None;
        for case in &self.cases {
            let mut env = std::collections::HashMap::new();
            if let Some(var) = &case.tile_var {
                env.insert(var.clone(), case.tile_align.max(1));
            }
            // Symbolic slabs are decided at run time by the tiling function.
            let Ok(bytes) = self.ub_expr(case, &operands).eval_map(&env) else {
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
                    for api in apis {
                        let d = if *api == "Compares" {
                            DType::F16
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
                        "sum" | "mean" | "prod" => matches!(d, DType::F32 | DType::F16),
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
                    let s = ub_size(info.dtype);
                    if s != 2 && s != 4 {
                        return refuse(format!("broadcast of {} is not supported", info.dtype));
                    }
                }
                NodeKind::Scalar { .. } => {
                    let s = ub_size(info.dtype);
                    if s != 2 && s != 4 {
                        return refuse(format!("scalar of {} is not supported", info.dtype));
                    }
                }
                NodeKind::Arange { .. } if !crate::lowering::arange_computable(info.dtype) => {
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
            // In place over an operand that dies here (same extent and element type).
            let mut chosen = None;
            if let NodeKind::Elementwise { op } = &self.nodes[n].kind {
                if !compare_supported(op) {
                    for &o in &graph.nodes[n].operands {
                        if last_use[o] != n
                            || self.nodes[o].full != self.nodes[n].full
                            || ub_dtype(self.nodes[o].dtype) != ub_dtype(self.nodes[n].dtype)
                        {
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
        let buffers =
            buffer_count(&self.queues, self.slots.len(), &self.extras) + u64::from(self.hoists());
        if buffers > chip.max_buffers {
            return refuse(format!(
                "{buffers} buffers exceed the TPipe limit of {}",
                chip.max_buffers
            ));
        }
        Ok(())
    }

    /// The case with `key`.
    pub fn case(&self, key: u32) -> Option<&Case> {
        self.cases.iter().find(|c| c.key == key)
    }

    /// The tile variable as an expression (1 when the case has no split).
    pub fn tile_expr(case: &Case) -> Expr {
        case.tile_var
            .as_deref()
            .map(Expr::symbol)
            .unwrap_or_else(|| c(1))
    }

    /// Tile extent of each in-tile axis for a full tile of size `t`.
    pub fn tile_extents(&self, case: &Case, t: &Expr) -> Vec<Expr> {
        case.in_tile
            .iter()
            .map(|&k| match &case.inner_block {
                _ if Some(k) == case.split => t.clone(),
                Some((b, block)) if *b == k => block.clone(),
                _ => self.axes[k].size.clone(),
            })
            .collect()
    }

    /// Box of node `n` in a tile with axis extents `ext` (in-tile order).
    pub fn node_box(&self, case: &Case, n: usize, ext: &[Expr]) -> Vec<Expr> {
        case.in_tile
            .iter()
            .zip(ext)
            .map(|(&k, e)| match &self.nodes[n].partial[k] {
                Some(part) => part.clone(),
                None if self.nodes[n].full[k] => e.clone(),
                None => c(1),
            })
            .collect()
    }

    /// Rows and padded row length of a box.
    pub fn layout(&self, bx: &[Expr]) -> (Expr, Expr) {
        let rows = bx[..bx.len().saturating_sub(1)]
            .iter()
            .fold(c(1), |acc, e| acc * e.clone());
        let last = bx.last().cloned().unwrap_or_else(|| c(1));
        (rows, last.align(&c(self.align)))
    }

    /// Elements (rows x padded row) of node `n`'s value in a full tile.
    pub fn elems(&self, case: &Case, n: usize) -> Expr {
        let ext = self.tile_extents(case, &Self::tile_expr(case));
        let bx = self.node_box(case, n, &ext);
        if self.nodes[n].transpose && bx.len() >= 2 {
            // Both layouts of a transposing load (source block and tile) are read or
            // written whole by `Transpose`: both innermost extents padded.
            let r = bx.len();
            let outer = bx[..r - 2].iter().fold(c(1), |acc, e| acc * e.clone());
            let a = c(self.align);
            return outer * bx[r - 2].align(&a) * bx[r - 1].align(&a);
        }
        let (rows, pitch) = self.layout(&bx);
        rows * pitch
    }

    /// Bytes of a buffer holding `elems` elements of `size` bytes (256-byte rounded).
    pub fn buffer_bytes(elems: &Expr, size: i64) -> Expr {
        (elems.clone() * size).align(&c(256))
    }

    /// Bytes of the value of node `n` in UB.
    pub fn value_bytes(&self, case: &Case, n: usize) -> Expr {
        Self::buffer_bytes(&self.elems(case, n), ub_size(self.nodes[n].dtype))
    }

    /// Bytes of the raw (GM-typed) tensor of a load or store.
    pub fn raw_bytes(&self, case: &Case, n: usize) -> Expr {
        Self::buffer_bytes(&self.elems(case, n), gm_size(self.nodes[n].dtype))
    }

    /// Byte size of one block of queue `q` in `case`. Loads hoisted out of the tile loop
    /// in `case` take no room in their queue; a queue left empty keeps 32 bytes
    /// (`InitBuffer` needs a positive size) and is never used.
    pub fn queue_bytes(&self, case: &Case, q: usize) -> Expr {
        let hoisted = self.hoisted(case);
        let members = &self.queues[q].members;
        if !hoisted.is_empty() && members.iter().all(|n| hoisted.contains(n)) {
            return c(32);
        }
        members
            .iter()
            .filter(|n| !hoisted.contains(n))
            .fold(c(0), |acc, &n| acc + self.raw_bytes(case, n))
    }

    /// Byte offset of member `m` in its queue block (hoisted members take no room).
    pub fn queue_offset(&self, case: &Case, q: usize, m: usize) -> Expr {
        let hoisted = self.hoisted(case);
        self.queues[q].members[..m]
            .iter()
            .filter(|n| !hoisted.contains(n))
            .fold(c(0), |acc, &n| acc + self.raw_bytes(case, n))
    }

    /// Loads of `case` whose view does not vary along the tile loop: not along a looped
    /// axis nor along the split axis, so every tile of a block would load the same box.
    /// They are loaded once per block, before the tile loop, into the `hoist` buffer
    /// (VECCALC, single: it replaces a double-buffered queue member, so hoisting needs
    /// at most the 64 bytes of an emptied queue more than loading per tile). Only
    /// all-load cases with a split hoist (split-reduction cases reload per pass; a case
    /// without split has one tile; transpose cases and transposed loads do not).
    pub fn hoisted(&self, case: &Case) -> Vec<usize> {
        let Some(u) = case
            .split
            .filter(|_| !case.reduce_split && case.inner_block.is_none())
        else {
            return Vec::new();
        };
        (0..self.nodes.len())
            .filter(|&n| {
                let info = &self.nodes[n];
                info.kind == NodeKind::Load
                    && !info.transpose
                    && !info.full[u]
                    && case.looped.iter().all(|&k| !info.full[k])
            })
            .collect()
    }

    /// Whether some case hoists a load (the kernel then has a `hoist` buffer).
    pub fn hoists(&self) -> bool {
        self.cases.iter().any(|case| !self.hoisted(case).is_empty())
    }

    /// Byte offset of hoisted load `n` in the `hoist` buffer of `case`.
    pub fn hoist_offset(&self, case: &Case, n: usize) -> Expr {
        self.hoisted(case)
            .iter()
            .take_while(|&&h| h != n)
            .fold(c(0), |acc, &h| acc + self.raw_bytes(case, h))
    }

    /// Bytes of the `hoist` buffer in `case` (256 when the case hoists nothing).
    pub fn hoist_bytes(&self, case: &Case) -> Expr {
        let hoisted = self.hoisted(case);
        if hoisted.is_empty() {
            return c(256);
        }
        hoisted
            .iter()
            .fold(c(0), |acc, &h| acc + self.raw_bytes(case, h))
    }

    /// Work done once per block before the tile loop (the hoisted loads).
    pub fn once_cost(&self, case: &Case) -> CostExprs {
        self.stage_cost(case, &self.hoisted(case))
    }

    /// Bytes of VECCALC slot `s`.
    pub fn slot_bytes(&self, case: &Case, s: usize) -> Expr {
        Expr::max_of(self.slots[s].iter().map(|&n| self.value_bytes(case, n)))
            .unwrap_or_else(|| c(32))
    }

    /// Innermost-axis extent of the operand of a reduction over the innermost axis.
    fn reduce_rows_bytes(&self, case: &Case, graph_operand: &[Option<usize>]) -> (Expr, Expr) {
        let mut work = c(0);
        let mut scratch = c(0);
        let last = self.axes.len() - 1;
        for (n, info) in self.nodes.iter().enumerate() {
            if let NodeKind::Reduce { reduced, .. } = &info.kind {
                if !reduced.contains(&last) {
                    continue;
                }
                let Some(src) = graph_operand[n] else {
                    continue;
                };
                let d = ub_size(self.nodes[src].dtype);
                let lanes = 256 / d;
                let per_blk = 32 / d;
                let ext = self.tile_extents(case, &Self::tile_expr(case));
                let bx = self.node_box(case, src, &ext);
                let l = bx.last().cloned().unwrap_or_else(|| c(1));
                // ReduceSum needs ceil(count/lanes) rounded to a block, ReduceMax twice that.
                let elems = l.ceil_div(&c(lanes)) * 2 + per_blk;
                work = Expr::max(&work, &Self::buffer_bytes(&elems, d));
                if reduced.len() > 1 {
                    // Row partials: one padded row per source row.
                    let (rows, _) = self.layout(&bx);
                    scratch = Expr::max(&scratch, &Self::buffer_bytes(&(rows * self.align), d));
                }
            }
        }
        (work, scratch)
    }

    /// Bytes of the work, mask and scratch buffers in `case` (0 when unused).
    pub fn extra_bytes(&self, case: &Case, operands: &[Vec<usize>]) -> (Expr, Expr, Expr) {
        let first: Vec<Option<usize>> = operands.iter().map(|o| o.first().copied()).collect();
        let (work, mut scratch) = self.reduce_rows_bytes(case, &first);
        let mut mask = c(0);
        for (n, info) in self.nodes.iter().enumerate() {
            let operand_dtype = first[n].map(|o| self.nodes[o].dtype);
            let elems = self.elems(case, n);
            match &info.kind {
                NodeKind::Elementwise { op } => {
                    if compare_supported(op) || matches!(op.as_str(), "select" | "where") {
                        // Bits for count rounded up to 256 B of the narrowest compared type.
                        mask = Expr::max(
                            &mask,
                            &(elems.align(&c(128)).floor_div(&c(8))).align(&c(256)),
                        );
                    }
                    let f = scratch_factor(&info.kind, info.dtype, operand_dtype);
                    if f > 0 {
                        // A compare reads whole 256 B groups of its int32 scratch.
                        let counted = if compare_supported(op) {
                            elems.align(&c(64))
                        } else {
                            elems
                        };
                        scratch = Expr::max(
                            &scratch,
                            &Self::buffer_bytes(&(counted * f), ub_size(info.dtype).max(4)),
                        );
                    }
                    if matches!(op.as_str(), "erf" | "sin" | "cos") {
                        // The vendor's Erf works in chunks of bytes / sizeof(T) / 8 (f16)
                        // or / 3 (f32) elements rounded down to 32 and refuses a chunk of
                        // 0: at least 512 bytes (CANN 8.1.RC1 math/erf; docs/ascendc.md).
                        // Sin and Cos split bytes / sizeof(float) by 4 (f16) or 3 (f32)
                        // steps the same way (math/sin, math/cos): 512 bytes as well.
                        scratch = Expr::max(&scratch, &c(512));
                    }
                }
                NodeKind::Cast => {
                    let from = operand_dtype.unwrap_or(info.dtype);
                    if info.dtype == DType::Bool || from == DType::Bool {
                        mask = Expr::max(
                            &mask,
                            &(elems.align(&c(128)).floor_div(&c(8))).align(&c(256)),
                        );
                    }
                    let f = scratch_factor(&info.kind, info.dtype, operand_dtype);
                    if f > 0 {
                        scratch = Expr::max(&scratch, &Self::buffer_bytes(&elems, 4));
                    }
                }
                NodeKind::Load if info.transpose => {
                    // Transpose's temporary: (c + 2) * h0 * w0 * sizeof(T) bytes with
                    // c = the padded innermost extent, h0 = 16, w0 = 32 / sizeof(T).
                    let ext = self.tile_extents(case, &Self::tile_expr(case));
                    let (_, pitch) = self.layout(&self.node_box(case, n, &ext));
                    scratch = Expr::max(&scratch, &((pitch + 2) * 512).align(&c(256)));
                }
                _ => {}
            }
        }
        let keep = |used: bool, e: Expr| if used { Expr::max(&e, &c(256)) } else { c(0) };
        (
            keep(self.extras.work, work),
            keep(self.extras.mask, mask),
            keep(self.extras.scratch, scratch),
        )
    }

    /// Every buffer of `case` as (name, position, count, bytes per block).
    pub fn buffers(&self, case: &Case, operands: &[Vec<usize>]) -> Vec<BufferSpec> {
        let mut out = Vec::new();
        for q in 0..self.queues.len() {
            out.push(BufferSpec {
                name: format!("q{q}"),
                position: self.queues[q].position.name(),
                count: self.queues[q].count,
                bytes: self.queue_bytes(case, q),
            });
        }
        for s in 0..self.slots.len() {
            out.push(BufferSpec {
                name: format!("b{s}"),
                position: "VECCALC",
                count: 1,
                bytes: self.slot_bytes(case, s),
            });
        }
        let (work, mask, scratch) = self.extra_bytes(case, operands);
        // The partial of one chunk: as large as the largest accumulator of the case.
        let part = match (case.reduce_split, self.split_plan(case)) {
            (true, Some(plan)) => (0..self.nodes.len())
                .filter(|&n| {
                    plan.persistent[n] && matches!(self.nodes[n].kind, NodeKind::Reduce { .. })
                })
                .fold(c(256), |acc, n| Expr::max(&acc, &self.value_bytes(case, n))),
            _ => c(256),
        };
        for (name, used, bytes) in [
            ("work", self.extras.work, work),
            ("mask", self.extras.mask, mask),
            ("scratch", self.extras.scratch, scratch),
            ("part", self.extras.part, part),
            ("hoist", self.hoists(), self.hoist_bytes(case)),
        ] {
            if used {
                out.push(BufferSpec {
                    name: name.to_string(),
                    position: "VECCALC",
                    count: 1,
                    bytes,
                });
            }
        }
        out
    }

    /// Total UB bytes of `case` as an expression of the symbols and the tile size.
    pub fn ub_expr(&self, case: &Case, operands: &[Vec<usize>]) -> Expr {
        self.buffers(case, operands)
            .iter()
            .fold(c(0), |acc, b| acc + b.bytes.clone() * b.count as i64)
    }

    /// Number of tiles of the looped axes (outer count).
    pub fn outer_expr(&self, case: &Case) -> Expr {
        let looped = case
            .looped
            .iter()
            .fold(c(1), |acc, &k| acc * self.axes[k].size.clone());
        match &case.inner_block {
            // The blocks of the innermost axis of a transpose case loop too.
            Some((b, block)) => looped * self.axes[*b].size.ceil_div(block),
            None => looped,
        }
    }

    /// Extent of the split axis (1 when the case has no split).
    pub fn split_size(&self, case: &Case) -> Expr {
        case.split
            .map(|u| self.axes[u].size.clone())
            .unwrap_or_else(|| c(1))
    }

    /// Per-tile work for the cost model: GM bytes read and written, vector bytes, DMA
    /// instructions and blocks, vector instructions. A split-reduction case's "tile" is a
    /// row group: every pass over every chunk.
    pub fn cost_exprs(&self, case: &Case) -> CostExprs {
        let Some(plan) = case.reduce_split.then(|| self.split_plan(case)).flatten() else {
            // Hoisted loads run once per block (`once_cost`), not per tile.
            let hoisted = self.hoisted(case);
            let per_tile: Vec<usize> = (0..self.nodes.len())
                .filter(|n| !hoisted.contains(n))
                .collect();
            return self.stage_cost(case, &per_tile);
        };
        let chunks = self.split_size(case).ceil_div(&Self::tile_expr(case));
        let mut total = self.stage_cost(case, &[]);
        for p in 0..plan.passes {
            let mut nodes = plan.chunk_nodes[p].clone();
            nodes.extend(&plan.chunk_accs[p]);
            nodes.extend(&plan.chunk_stores[p]);
            let stage = self.stage_cost(case, &nodes);
            let once = {
                let mut f = plan.final_nodes[p].clone();
                f.extend(&plan.final_stores[p]);
                self.stage_cost(case, &f)
            };
            total = CostExprs {
                mte2_bytes: total.mte2_bytes + stage.mte2_bytes * chunks.clone() + once.mte2_bytes,
                mte3_bytes: total.mte3_bytes + stage.mte3_bytes * chunks.clone() + once.mte3_bytes,
                vec_bytes: total.vec_bytes + stage.vec_bytes * chunks.clone() + once.vec_bytes,
                load_ops: total.load_ops + stage.load_ops * chunks.clone() + once.load_ops,
                store_ops: total.store_ops + stage.store_ops * chunks.clone() + once.store_ops,
                dma_rows: total.dma_rows + stage.dma_rows * chunks.clone() + once.dma_rows,
                vec_ops: total.vec_ops + stage.vec_ops * chunks.clone() + once.vec_ops,
            };
        }
        total
    }

    /// Work of one tile computing `nodes`.
    fn stage_cost(&self, case: &Case, nodes: &[usize]) -> CostExprs {
        let ext = self.tile_extents(case, &Self::tile_expr(case));
        let mut cost = CostExprs {
            mte2_bytes: c(0),
            mte3_bytes: c(0),
            vec_bytes: c(0),
            load_ops: c(0),
            store_ops: c(0),
            dma_rows: c(0),
            vec_ops: c(0),
        };
        for &n in nodes {
            let info = &self.nodes[n];
            let bx = self.node_box(case, n, &ext);
            let (rows, pitch) = self.layout(&bx);
            let real = bx.iter().fold(c(1), |acc, e| acc * e.clone());
            match info.kind {
                NodeKind::Load => {
                    cost.mte2_bytes = cost.mte2_bytes + real * gm_size(info.dtype);
                    cost.load_ops = cost.load_ops + 1;
                    if info.transpose {
                        // Source rows are the tile's columns; then one Transpose.
                        cost.dma_rows = cost.dma_rows + pitch.clone();
                        cost.vec_bytes = cost.vec_bytes + rows * pitch * ub_size(info.dtype);
                        cost.vec_ops = cost.vec_ops + 1;
                    } else {
                        cost.dma_rows = cost.dma_rows + rows;
                    }
                }
                NodeKind::Store => {
                    cost.mte3_bytes = cost.mte3_bytes + real * gm_size(info.dtype);
                    cost.store_ops = cost.store_ops + 1;
                    cost.dma_rows = cost.dma_rows + rows;
                }
                NodeKind::Elementwise { .. } | NodeKind::Cast | NodeKind::Scalar { .. } => {
                    cost.vec_bytes = cost.vec_bytes + rows * pitch * ub_size(info.dtype);
                    cost.vec_ops = cost.vec_ops + 1;
                }
                NodeKind::Broadcast
                | NodeKind::Reduce { .. }
                | NodeKind::Concat { .. }
                | NodeKind::Arange { .. } => {
                    // One instruction per row.
                    cost.vec_bytes = cost.vec_bytes + rows.clone() * pitch * ub_size(info.dtype);
                    cost.vec_ops = cost.vec_ops + rows;
                }
                _ => {}
            }
        }
        cost
    }

    /// The pass structure of a split-reduction case (None for other cases).
    pub fn split_plan(&self, case: &Case) -> Option<SplitPlan> {
        let u = case.split.filter(|_| case.reduce_split)?;
        let count = self.nodes.len();
        let is_acc = |n: usize| matches!(&self.nodes[n].kind, NodeKind::Reduce { reduced, .. } if reduced.contains(&u));
        let varies: Vec<bool> = self.nodes.iter().map(|x| x.full[u]).collect();
        let mut level = vec![0usize; count];
        for n in 0..count {
            let base = self.operands[n]
                .iter()
                .map(|&o| level[o])
                .max()
                .unwrap_or(0);
            level[n] = if is_acc(n) { base + 1 } else { base };
        }
        let computes = |n: usize| {
            !matches!(
                self.nodes[n].kind,
                NodeKind::Data { .. } | NodeKind::Output { .. } | NodeKind::Store
            )
        };
        let persistent: Vec<bool> = (0..count)
            .map(|n| is_acc(n) || (computes(n) && !varies[n] && level[n] >= 1))
            .collect();
        let mut passes = 1;
        for n in 0..count {
            if varies[n] && computes(n) {
                passes = passes.max(level[n] + 1);
            }
            if persistent[n] {
                passes = passes.max(level[n]);
            }
            if self.nodes[n].kind == NodeKind::Store {
                passes = passes.max(level[n].max(1));
            }
        }
        // Nodes (not persistent) that `roots` need, in node order.
        let closure = |roots: &[usize]| -> Vec<usize> {
            let mut need = vec![false; count];
            let mut stack: Vec<usize> = roots.to_vec();
            while let Some(n) = stack.pop() {
                for &o in &self.operands[n] {
                    if persistent[o]
                        || need[o]
                        || matches!(self.nodes[o].kind, NodeKind::Data { .. })
                    {
                        continue;
                    }
                    need[o] = true;
                    stack.push(o);
                }
            }
            (0..count).filter(|&n| need[n]).collect()
        };
        let mut plan = SplitPlan {
            passes,
            level: level.clone(),
            varies: varies.clone(),
            persistent: persistent.clone(),
            chunk_nodes: Vec::new(),
            chunk_accs: Vec::new(),
            chunk_stores: Vec::new(),
            final_means: Vec::new(),
            final_nodes: Vec::new(),
            final_stores: Vec::new(),
        };
        for p in 0..passes {
            let accs: Vec<usize> = (0..count)
                .filter(|&n| is_acc(n) && level[n] == p + 1)
                .collect();
            let stores: Vec<usize> = (0..count)
                .filter(|&n| self.nodes[n].kind == NodeKind::Store && varies[n] && level[n] == p)
                .collect();
            let mut roots = accs.clone();
            roots.extend(&stores);
            plan.chunk_nodes.push(closure(&roots));
            plan.chunk_accs.push(accs.clone());
            plan.chunk_stores.push(stores);
            // After the pass: scale means, compute finals, store non-varying values.
            let means: Vec<usize> = accs
                .iter()
                .copied()
                .filter(
                    |&n| matches!(&self.nodes[n].kind, NodeKind::Reduce { op, .. } if op == "mean"),
                )
                .collect();
            let finals: Vec<usize> = (0..count)
                .filter(|&n| persistent[n] && !is_acc(n) && level[n] == p + 1)
                .collect();
            let fstores: Vec<usize> = (0..count)
                .filter(|&n| {
                    self.nodes[n].kind == NodeKind::Store && !varies[n] && level[n].max(1) == p + 1
                })
                .collect();
            let mut roots = finals.clone();
            roots.extend(&fstores);
            let mut nodes = closure(&roots);
            nodes.extend(finals.iter().copied());
            nodes.sort_unstable();
            nodes.dedup();
            plan.final_means.push(means);
            plan.final_nodes.push(nodes);
            plan.final_stores.push(fstores);
        }
        Some(plan)
    }

    /// Operands per node, as the graph has them (needed by buffer sizing).
    pub fn operands_of(graph: &AscGraph) -> Vec<Vec<usize>> {
        graph.nodes.iter().map(|n| n.operands.clone()).collect()
    }

    /// The MLIR records of this schedule (`tiling.group`, `tiling.split`, `tiling.case`,
    /// `tiling.buffer`) and the extra axes to append to `ascir.axes`.
    pub fn records(&self, operands: &[Vec<usize>]) -> ScheduleRecords {
        let k = &self.kernel;
        let mut lines = Vec::new();
        let ids = |list: &[usize]| {
            list.iter()
                .map(|&i| self.axes[i].id.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut axes = Vec::new();
        for a in &self.axes {
            if a.from.len() != 1 {
                let from: Vec<String> = a.from.iter().map(i64::to_string).collect();
                axes.push(format!(
                    "#ascir.axis<{}, \"{}\", \"{}\", \"merged\", [{}]>",
                    a.id,
                    a.name,
                    a.size,
                    from.join(", ")
                ));
            }
        }
        lines.push(format!(
            "\"tiling.group\"() {{kernel = @{k}, x = [], y = [{}], r = [{}], hint_group = \"{}\"}} : () -> ()",
            ids(&self.y),
            ids(&self.r),
            self.hint_group.replace('"', "'")
        ));
        let mut next = self.next_axis_id;
        for case in &self.cases {
            let vectorized = ids(&case.in_tile);
            let mut ub_split = String::new();
            let mut block_split = String::new();
            if let (Some(u), Some(var)) = (case.split, &case.tile_var) {
                let axis = &self.axes[u];
                let (outer, inner) = (next, next + 1);
                next += 2;
                let t = Expr::symbol(var);
                axes.push(format!(
                    "#ascir.axis<{outer}, \"{}T\", \"{}\", \"tile_outer\", [{}]>",
                    axis.name,
                    axis.size.ceil_div(&t),
                    axis.id
                ));
                axes.push(format!(
                    "#ascir.axis<{inner}, \"{}t\", \"{var}\", \"tile_inner\", [{}]>",
                    axis.name, axis.id
                ));
                lines.push(format!(
                    "\"tiling.split\"() {{kernel = @{k}, axis = {}, outer = {outer}, inner = {inner}, kind = \"tile\", size_var = \"{var}\"}} : () -> ()",
                    axis.id
                ));
                // Transpose cases also tile the innermost axis, in fixed blocks.
                let mut inner_outer = None;
                if let Some((b, extent)) = &case.inner_block {
                    let baxis = &self.axes[*b];
                    let (bo, bi) = (next, next + 1);
                    next += 2;
                    axes.push(format!(
                        "#ascir.axis<{bo}, \"{}T\", \"{}\", \"tile_outer\", [{}]>",
                        baxis.name,
                        baxis.size.ceil_div(extent),
                        baxis.id
                    ));
                    axes.push(format!(
                        "#ascir.axis<{bi}, \"{}t\", \"{extent}\", \"tile_inner\", [{}]>",
                        baxis.name, baxis.id
                    ));
                    lines.push(format!(
                        "\"tiling.split\"() {{kernel = @{k}, axis = {}, outer = {bo}, inner = {bi}, kind = \"tile\", size_var = \"{extent}\"}} : () -> ()",
                        baxis.id
                    ));
                    inner_outer = Some(bo);
                }
                // Looped axes and the tile-outer axis merge into the block axis.
                let block = if case.looped.is_empty() && inner_outer.is_none() {
                    outer
                } else {
                    let id = next;
                    next += 1;
                    let from: Vec<String> = case
                        .looped
                        .iter()
                        .map(|&l| self.axes[l].id.to_string())
                        .chain(inner_outer.map(|bo| bo.to_string()))
                        .chain(std::iter::once(outer.to_string()))
                        .collect();
                    let size = self.outer_expr(case) * axis.size.ceil_div(&t);
                    axes.push(format!(
                        "#ascir.axis<{id}, \"{}\", \"{size}\", \"merged\", [{}]>",
                        case.block_name,
                        from.join(", ")
                    ));
                    id
                };
                let (bo, bi) = (next, next + 1);
                next += 2;
                let total = self.outer_expr(case) * axis.size.ceil_div(&t);
                let per = Expr::symbol(&case.block_var);
                axes.push(format!(
                    "#ascir.axis<{bo}, \"{}B\", \"{}\", \"block_outer\", [{block}]>",
                    case.block_name,
                    total.ceil_div(&per)
                ));
                axes.push(format!(
                    "#ascir.axis<{bi}, \"{}b\", \"{}\", \"block_inner\", [{block}]>",
                    case.block_name, case.block_var
                ));
                lines.push(format!(
                    "\"tiling.split\"() {{kernel = @{k}, axis = {block}, outer = {bo}, inner = {bi}, kind = \"block\", size_var = \"{}\"}} : () -> ()",
                    case.block_var
                ));
                ub_split = match &case.inner_block {
                    Some((b, _)) => format!("{}, {}", axis.id, self.axes[*b].id),
                    None => axis.id.to_string(),
                };
                block_split = block.to_string();
            }
            let looped = ids(&case.looped);
            let split_reduction = match self.split_plan(case) {
                Some(plan) => format!(", reduce_split = true, passes = {}", plan.passes),
                None => String::new(),
            };
            lines.push(format!(
                "\"tiling.case\"() {{kernel = @{k}, key = {}, ub_split = [{ub_split}], block_split = [{block_split}], vectorized_axis = [{vectorized}], looped_axis = [{looped}], tile_align = {}{split_reduction}}} : () -> ()",
                case.key, case.tile_align
            ));
        }
        for case in &self.cases {
            for (id, b) in self.buffers(case, operands).iter().enumerate() {
                lines.push(format!(
                    "\"tiling.buffer\"() {{kernel = @{k}, id = {id}, name = \"{}\", position = \"{}\", count = {}, bytes = \"{}\", case = {}}} : () -> ()",
                    b.name, b.position, b.count, b.bytes, case.key
                ));
            }
        }
        ScheduleRecords { axes, lines }
    }

    /// Impl-form attributes of node `n` (name, MLIR text).
    pub fn node_attrs(&self, n: usize) -> Vec<(String, String)> {
        let mut attrs = self.placement_attrs(n);
        if let Some(Some(group)) = self.node_groups.get(n) {
            attrs.push(("tiling_group".into(), format!("\"{group}\"")));
        }
        attrs
    }

    fn placement_attrs(&self, n: usize) -> Vec<(String, String)> {
        let info = &self.nodes[n];
        let place = match (&info.kind, info.value, info.raw) {
            (NodeKind::Data { .. } | NodeKind::Output { .. }, _, _) => {
                return vec![("mem".into(), "\"GM\"".into())]
            }
            (NodeKind::Load, _, Place::Queue { queue, member }) => Some((queue, member, true)),
            (_, Place::Queue { queue, member }, _) => Some((queue, member, true)),
            (_, Place::Slot { slot }, _) => Some((slot, 0, false)),
            _ => None,
        };
        let mut out = Vec::new();
        match place {
            Some((q, m, true)) => {
                out.push((
                    "mem".into(),
                    format!("\"{}\"", self.queues[q].position.name()),
                ));
                out.push(("que".into(), format!("{q} : i64")));
                out.push(("que_member".into(), format!("{m} : i64")));
                out.push(("buf_num".into(), format!("{} : i64", self.queues[q].count)));
            }
            Some((s, _, false)) => {
                out.push(("mem".into(), "\"VECCALC\"".into()));
                out.push(("buf".into(), format!("{s} : i64")));
            }
            None => {}
        }
        if let (NodeKind::Load, Place::Slot { slot }) = (&info.kind, info.value) {
            out.push(("buf".into(), format!("{slot} : i64")));
        }
        out
    }
}

/// One UB buffer of a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferSpec {
    pub name: String,
    pub position: &'static str,
    pub count: u64,
    pub bytes: Expr,
}

/// Per-tile work of a case (cost model inputs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostExprs {
    pub mte2_bytes: Expr,
    pub mte3_bytes: Expr,
    pub vec_bytes: Expr,
    pub load_ops: Expr,
    pub store_ops: Expr,
    /// DMA blocks (rows) moved in and out.
    pub dma_rows: Expr,
    pub vec_ops: Expr,
}

/// Records the schedule pass writes.
#[derive(Clone, Debug, Default)]
pub struct ScheduleRecords {
    /// `#ascir.axis<...>` texts to append to `ascir.axes`.
    pub axes: Vec<String>,
    /// Generic-form `tiling.*` ops.
    pub lines: Vec<String>,
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
        "load" => {
            let offset = attr_text(node, "offset");
            if offset.is_some_and(|o| o.trim_matches('"') != "0") {
                return refuse("loads with a non-zero offset are not scheduled");
            }
            NodeKind::Load
        }
        "store" => {
            let offset = attr_text(node, "offset");
            if offset.is_some_and(|o| o.trim_matches('"') != "0") {
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
        "workspace" | "transpose" | "split" | "gather" => {
            return refuse(format!("ascir.{op} is not scheduled yet"))
        }
        other => NodeKind::Elementwise {
            op: other.to_string(),
        },
    })
}

fn attr_text<'a>(node: &'a AscNode, name: &str) -> Option<&'a str> {
    node.attrs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A float attribute of a node (`alpha = 2.0e-01 : f32`).
pub fn float_attr(node: &AscNode, name: &str) -> Option<f64> {
    let text = attr_text(node, name)?;
    let number = text.split(':').next()?.trim();
    number.parse::<f64>().ok()
}

/// Groups of a multi-kernel module, by kernel name (for summaries).
pub type ScheduleMap = BTreeMap<String, Schedule>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::AttrValue;
    use crate::graph::TensorType;
    use crate::lowering::lower_op;
    use std::collections::BTreeMap as Map;

    fn t(dtype: DType, dims: &[&str]) -> TensorType {
        TensorType::with_dims(dtype, dims).unwrap()
    }

    fn chip() -> ChipProfile {
        ChipProfile::lookup("ascend910b").unwrap()
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
        // The concat axis merges with nothing; only the axis before it is split.
        assert_eq!(s.axes.len(), 3);
        assert_eq!(s.cases.len(), 1);
        assert_eq!(s.cases[0].split, Some(0));
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
        // All-load (split rows) and split reduction (chunks of a row, in passes).
        assert_eq!(s.cases.len(), 2);
        assert!(!s.cases[0].reduce_split && s.cases[1].reduce_split);
        let plan = s.split_plan(&s.cases[1]).unwrap();
        assert_eq!(plan.passes, 1);
        assert!(s.extras.work && s.extras.part);
        let recs = s.records(&Schedule::operands_of(&g));
        assert!(recs.lines[0].contains("y = [0], r = [1]"));
    }
}
