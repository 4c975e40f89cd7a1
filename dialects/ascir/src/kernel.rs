//! The impl-form kernel model: what `--schedule` decides for one fused kernel (normalized
//! axes, tiling cases, node placements in queues and VECCALC slots, extra buffers,
//! split-reduction plans) and what the tiling solver, the impl-form interpreter and the
//! Ascend C translation read from it (tile boxes, UB layout, buffer sizes, the cost
//! model, the `tiling.*` records). The algorithm that builds it is the schedule pass
//! (`passes/src/schedule/build.rs`).
//!
//! Booleans live in UB as half 0.0/1.0 (`Compare` + `Select`), as u8 in GM.
use crate::graph::{ArangeTerm, AscGraph, AscNode};
use autofuse_ir::graph::DType;
use autofuse_symbolic::Expr;
use std::collections::BTreeMap;

/// Byte offset of `item` in a buffer that packs `items` back to back, each `bytes(i)`
/// long (the hoist buffer's loads, the table buffer's tables, a workspace record's
/// partials); with `None`, the bytes of them all.
fn packed_offset(items: &[usize], item: Option<usize>, bytes: impl Fn(usize) -> Expr) -> Expr {
    items
        .iter()
        .take_while(|&&i| Some(i) != item)
        .fold(c(0), |acc, &i| acc + bytes(i))
}

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
    /// Rows of a table (operand 0, a data node; in GM, or copied whole into UB in a case
    /// listing the node in `Case::ub_tables`) picked by an index tile (operand 1):
    /// element `p` of the tile is the table element at the table view's offset of `p`
    /// plus `index(p) * index_stride`, negative indices counting from `bound`.
    Gather {
        bound: Expr,
        index_stride: Expr,
    },
    /// The part of its operand's tile from index `start` along normalized axis `axis`
    /// (a concat axis, whole in every tile), copied in UB.
    ExtractSlice {
        axis: usize,
        start: Expr,
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
    /// operand of a concat and what computes it). Such an axis is whole in the tile, or
    /// it is the split axis: then a tile holds the rows of the part that fall in it.
    pub partial: Vec<Option<Expr>>,
    /// Nodes with a `partial` axis: where their part starts along it in the result of
    /// the kernel's outermost concat (parts of nested concats add up). A tile that
    /// splits the concat axis at origin `o` with extent `e` holds the part's rows
    /// `[max(o, start), min(o + e, start + part))`; zero elsewhere.
    pub part_start: Expr,
    /// GM strides per normalized axis (data, store, output); zeros elsewhere.
    pub gm_strides: Vec<Expr>,
    /// Loads: the element offset of the view's origin in its GM tensor (a slice starts
    /// there); zero elsewhere.
    pub gm_offset: Expr,
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
    /// Gather nodes whose table this case copies whole into the `table` buffer once per
    /// block (GE's gather with the table in UB): their rows are then UB -> UB copies
    /// instead of one GM DMA each. A twin case keeps the tables in GM; the host tiling
    /// function picks by tiling key (the UB case is infeasible when a table does not fit).
    pub ub_tables: Vec<usize>,
    /// A split-reduction case whose reduced axis is split across cores too (GE's RCore
    /// template, [`Schedule::cross_core_ok`]): every row group's chunks are shared by
    /// `parts` blocks (chosen at run time, the `rcore_parts` tiling field); each block
    /// reduces its share into a partial and writes it to the workspace (phase 1), and
    /// after a `SyncAll` one block per row group combines the partials and computes
    /// and stores what follows the reduction (phase 2).
    pub cross_core: bool,
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
    pub inputs: Vec<autofuse_ir::graph::TensorType>,
    pub outputs: Vec<autofuse_ir::graph::TensorType>,
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

/// Whether node `n` is a select of integer data (int32 or int64): `Select` exists only
/// for half/float on 2201, so it is emitted bitwise, `(x & m) | (y & ~m)` with the
/// condition widened to an all-ones/all-zeros mask `m` of the element width (`And`,
/// `Not`, `Or` on the int16 view of the data), which is exact for every bit pattern.
pub fn int_select(nodes: &[NodeInfo], n: usize) -> bool {
    nodes.get(n).is_some_and(|info| {
        matches!(&info.kind, NodeKind::Elementwise { op } if op == "select" || op == "where")
            && matches!(info.dtype, DType::I32 | DType::I64)
    })
}

/// Whether `value` is an integer a 32-bit scalar holds (an integer select's scalar
/// branch is a `Duplicate` of int32, widened to int64 by a Cast).
pub fn int32_value(value: f64) -> bool {
    value.fract() == 0.0 && value >= f64::from(i32::MIN) && value <= f64::from(i32::MAX)
}

/// [`Schedule::absorbed_scalar`] over the node list a schedule is being built from.
pub fn absorbed_scalar(nodes: &[NodeInfo], operands: &[Vec<usize>], n: usize) -> bool {
    let Some(info) = nodes.get(n) else {
        return false;
    };
    if !matches!(info.kind, NodeKind::Scalar { .. })
        || !matches!(
            info.dtype,
            DType::F32 | DType::F16 | DType::I32 | DType::I64
        )
    {
        return false;
    }
    // A data branch of an integer select: the select materializes it (either branch or
    // both may be scalars).
    let int_branch = |user: usize, list: &[usize]| {
        int_select(nodes, user)
            && nodes[user].dtype == info.dtype
            && matches!(info.kind, NodeKind::Scalar { value } if int32_value(value))
            && list.first() != Some(&n)
    };
    let mut read = false;
    for (user, list) in operands.iter().enumerate() {
        let Some(position) = list.iter().position(|&o| o == n) else {
            continue;
        };
        read = true;
        if int_branch(user, list) {
            continue;
        }
        let Some(NodeKind::Elementwise { op }) = nodes.get(user).map(|u| &u.kind) else {
            return false;
        };
        // The false branch of a float select: Select's tensor-scalar mode.
        if let [_, taken, otherwise] = list.as_slice() {
            let tensor_taken = nodes
                .get(*taken)
                .is_some_and(|t| !matches!(t.kind, NodeKind::Scalar { .. }));
            if matches!(op.as_str(), "select" | "where")
                && *otherwise == n
                && position == 2
                && tensor_taken
                && matches!(info.dtype, DType::F32 | DType::F16)
                && nodes[user].dtype == info.dtype
            {
                continue;
            }
            return false;
        }
        let [a, b] = list.as_slice() else {
            return false;
        };
        let other = if position == 0 { *b } else { *a };
        let other_is_scalar = nodes
            .get(other)
            .is_none_or(|o| matches!(o.kind, NodeKind::Scalar { .. }));
        let form = match op.as_str() {
            "add" | "mul" | "maximum" | "minimum" => true,
            "sub" => position == 1,
            // x / c is x * (1 / c) exactly when c is a power of two.
            "div" => {
                position == 1
                    && info.dtype != DType::I32
                    && matches!(info.kind, NodeKind::Scalar { value } if exact_reciprocal(value))
            }
            _ => false,
        };
        if !form || other_is_scalar || nodes[user].dtype != info.dtype {
            return false;
        }
    }
    read
}

/// Instructions `af::TreeCombineRows` issues for `n` rows: ceil(log2 n) halvings (one
/// for a single row's copy), counted up to 2^12 rows; the odd levels' extra folds are
/// left out.
pub fn tree_combine_ops(n: &Expr) -> Expr {
    // ceil(log2 n) = the number of j >= 0 with n > 2^j; ceil(n / 2^j) >= 2 exactly then.
    (0..12).fold(c(0), |acc, j| {
        acc + Expr::min(&c(1), &(n.ceil_div(&c(1 << j)) - c(1)))
    }) + Expr::max(&c(0), &(c(2) - n.clone()))
}

/// Most output rows `af::TreeCombineGroups` combines at once for rows of `pitch`
/// elements of `dtype` (`af::TreeGroupRows` before the work buffer's bound, which the
/// schedule sizes for it): f16/f32 rows of at most one repeat, as many as keep the
/// k-major partials' row stride within an 8-bit repeat stride; `None` where the grouped
/// form does not apply (the row-by-row tree then).
pub fn tree_group_cap(dtype: DType, pitch: &Expr) -> Option<i64> {
    let row_bytes = pitch.as_const()? * ub_size(dtype);
    (matches!(dtype, DType::F32 | DType::F16) && row_bytes > 0 && row_bytes <= 256)
        .then(|| 255 * 32 / row_bytes)
        .filter(|&g| g >= 2)
}

/// [`Schedule::absorbed_broadcast`] over the node list a schedule is being built from.
pub fn absorbed_broadcast(nodes: &[NodeInfo], operands: &[Vec<usize>], n: usize) -> bool {
    let Some(info) = nodes.get(n) else {
        return false;
    };
    if info.kind != NodeKind::Broadcast
        || !matches!(info.dtype, DType::F32 | DType::F16)
        || info.partial.iter().any(Option::is_some)
    {
        return false;
    }
    let Some(source) = operands
        .get(n)
        .and_then(|o| o.first())
        .and_then(|&o| nodes.get(o))
    else {
        return false;
    };
    let Some(last) = info.full.len().checked_sub(1) else {
        return false;
    };
    if source.full.len() != info.full.len() || !info.full[last] {
        return false;
    }
    // A row copied to every row, or each row's first element over its row.
    let one_row = source.full[last] && (0..last).all(|k| !source.full[k]);
    let splat = !source.full[last] && (0..last).all(|k| source.full[k] == info.full[k]);
    if !(one_row || splat) || source.dtype != info.dtype {
        return false;
    }
    let mut read = false;
    for (user, list) in operands.iter().enumerate() {
        let Some(position) = list.iter().position(|&o| o == n) else {
            continue;
        };
        read = true;
        let Some(reader) = nodes.get(user) else {
            return false;
        };
        let NodeKind::Elementwise { op } = &reader.kind else {
            return false;
        };
        let [a, b] = list.as_slice() else {
            return false;
        };
        let other = if position == 0 { *b } else { *a };
        let Some(full_operand) = nodes.get(other) else {
            return false;
        };
        let binary = matches!(
            op.as_str(),
            "add" | "sub" | "mul" | "div" | "maximum" | "minimum"
        );
        if !binary
            || a == b
            || matches!(
                full_operand.kind,
                NodeKind::Broadcast | NodeKind::Scalar { .. }
            )
            || reader.dtype != info.dtype
            || full_operand.dtype != info.dtype
            || reader.full != info.full
            || full_operand.full != info.full
            || reader.partial.iter().any(Option::is_some)
            || full_operand.partial.iter().any(Option::is_some)
        {
            return false;
        }
    }
    read
}

/// Whether 1 / `value` is exact in every float type (a power of two in their range).
pub fn exact_reciprocal(value: f64) -> bool {
    let m = value.abs();
    m.is_finite() && m > 0.0 && m.log2().fract() == 0.0 && (-14.0..=14.0).contains(&m.log2())
}

pub const REDUCE_OPS: &[&str] = &["sum", "mean", "max", "min", "prod", "any", "all"];

fn c(v: i64) -> Expr {
    Expr::constant(v)
}

/// Unary ops the generator emits (op -> needs scratch).
pub fn unary_supported(op: &str) -> bool {
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
            | "bitwise_not"
    )
}

pub fn binary_supported(op: &str) -> bool {
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
            | "bitwise_and"
    )
}

/// Element types af::ReduceRowsWhole reduces (WholeReduceSum/Max/Min: f16 and f32).
pub fn whole_tile_reduce_type(dtype: DType) -> bool {
    matches!(dtype, DType::F16 | DType::F32)
}

pub fn compare_supported(op: &str) -> bool {
    matches!(op, "eq" | "ne" | "lt" | "le" | "gt" | "ge")
}

/// Whether elementwise `op` on `dtype` may write its result over one of its operands.
/// Not compares (a half 0/1 result of another type than what they read, written by a
/// Duplicate and a Select after the Compare), int32 abs (`Muls` into the result, then
/// `Max` of the result and the operand) or integer selects (the condition staged in
/// scratch, the data operands read afterwards). Every other lowering is one call per
/// element position or reads its operands before its first write, which the vector APIs
/// allow in place (ascendc_api.md: "full in-place is OK").
pub fn writes_in_place(op: &str, dtype: DType) -> bool {
    let int = matches!(dtype, DType::I32 | DType::I64);
    !(compare_supported(op) || (op == "abs" && int) || (matches!(op, "select" | "where") && int))
}

/// Ascend C APIs an elementwise op uses, for dtype gating.
pub fn apis_of(op: &str) -> &'static [&'static str] {
    match op {
        "abs" => &["Abs"],
        "neg" => &["Muls"],
        "exp" => &["Exp"],
        "log" => &["Ln"],
        "sqrt" => &["Sqrt"],
        "rsqrt" => &["Sqrt", "Div", "Duplicate"],
        "reciprocal" => &["Div", "Duplicate"],
        "relu" => &["Relu"],
        // On the int16 view of the value, whatever its integer type.
        "bitwise_and" => &["And"],
        "bitwise_not" => &["Not"],
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
    // Every pair converts directly or through f32 (see `cast_direct`); int64 directly
    // to and from int32 and f32 (the schedule keeps 64-bit values out of every vector
    // op but these casts), and from int64 through f32 to the other types (exact for
    // bool: a nonzero int64 stays a nonzero float); int8/uint8/int16 only directly, to
    // and from the float type that holds them exactly (f16, resp. f32).
    (ok(from) && ok(to))
        || (cast_direct(from, to) && from != to)
        || (from == I64 && ok(to) && cast_direct(F32, to))
}

/// Whether an op needs the scratch buffer, and how many value-sized areas of it.
pub fn scratch_factor(kind: &NodeKind, dtype: DType, operand_dtype: Option<DType>) -> i64 {
    match kind {
        NodeKind::Elementwise { op } => match op.as_str() {
            "rsqrt" | "reciprocal" => 1,
            // The vendor's Sigmoid works in the element type in chunks of
            // sharedTmpBuffer / sizeof(T) elements (a ones vector), Tanh of float in
            // chunks of bytes / sizeof(float) (CANN 8.1.RC1 activation/sigmoid,
            // math/tanh): one value of the element type holds a whole tile's chunk.
            "sigmoid" => 1,
            "tanh" if dtype == DType::F32 => 1,
            "tanh" | "erf" | "sin" | "cos" => 2,
            // f16 rounds in f32: one f32 copy of the value, two f16-sized areas.
            "floor" | "ceil" | "round" if dtype == DType::F16 => 2,
            // int32 has only EQ/NE compares on 2201: a <= b is max(a, b) == b, with the
            // max in one int32 value of scratch.
            "lt" | "le" | "gt" | "ge" if operand_dtype == Some(DType::I32) => 1,
            // An integer select: the mask, its complement and a scalar branch, each
            // one value, and for int64 the int32 staging of a scalar branch (see
            // `int_select`; sized in `extra_bytes`).
            "select" | "where" if dtype == DType::I32 => 3,
            "select" | "where" if dtype == DType::I64 => 4,
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
                | (I64, I32)
                | (I32, I64)
                | (I8, F16)
                | (U8, F16)
                | (F16, I8)
                | (F16, U8)
                | (I16, F32)
                | (F32, I16)
                | (F16, I16)
                | (I16, F16)
                | (I64, F32)
                | (F32, I64)
        )
}

/// Most chunks a block of `per` consecutive tiles enters when a case walks `chunks`
/// chunks of `outer` tiles each chunk-major (`Schedule::chunk_major`): its tiles span
/// ceil((per - 1) / outer) + 1 chunks when they start at the worst place. The cost
/// model charges a block that many reloads of its chunk-resident loads.
pub fn chunk_reloads_per_block(per: i64, outer: i64, chunks: i64) -> i64 {
    if per <= 0 || outer <= 0 || chunks <= 0 {
        return 0;
    }
    ((per - 1 + outer - 1) / outer + 1).min(chunks)
}

/// Partials a cross-core case's phase 2 reads with one DMA (`part` holds that many
/// of the largest accumulator): a DMA head per partial would dominate phase 2.
pub const CROSS_CORE_BATCH: i64 = 8;

/// GM budget of a tiling, as the fraction `GM_BUDGET.0 / GM_BUDGET.1` of the kernel's
/// own minimum (its inputs and outputs, each moved once: `Schedule::min_gm_bytes`).
/// Blocks that each copy a loop-invariant operand (a small matmul's weight, layer
/// norm's gamma and beta) move its bytes once per block: the solver prefers the
/// candidates within this budget and among them the cheapest in cycles, and where none
/// is within it, the one moving the fewest bytes over it (`docs/tiling.md`).
pub const GM_BUDGET: (i64, i64) = (3, 2);

/// The cycles the GM budget may cost, as the fraction `GM_CYCLE_SLACK.0 /
/// GM_CYCLE_SLACK.1` of the fastest tiling's estimate: a tiling moving fewer GM bytes
/// (fewer blocks, each copying a loop-invariant operand once) is taken only when the
/// solver's cycle estimate stays within it. Fewer blocks of a decomposed small matmul
/// issue its vector instructions row by row, so its kernel time grows with the rows a
/// block takes; L2 serves the repeated copies, so bytes are not worth kernel time.
pub const GM_CYCLE_SLACK: (i64, i64) = (21, 20);

/// The most cycles a tiling may cost when the fastest costs `fastest`
/// ([`GM_CYCLE_SLACK`]).
pub fn gm_cycle_cap(fastest: i64) -> i64 {
    fastest.saturating_mul(GM_CYCLE_SLACK.0) / GM_CYCLE_SLACK.1
}

/// How far GM bytes `gm` exceed the budget of a kernel whose own minimum is
/// `min_bytes` ([`GM_BUDGET`]), in units of 1 / `GM_BUDGET.1` byte; 0 within it (and
/// when the minimum is unknown, 0).
pub fn gm_excess(gm: i64, min_bytes: i64) -> i64 {
    if min_bytes <= 0 {
        return 0;
    }
    gm.saturating_mul(GM_BUDGET.1)
        .saturating_sub(min_bytes.saturating_mul(GM_BUDGET.0))
        .max(0)
}

/// How a cross-core case shares the `chunks` chunks of each of `groups` row groups
/// among `cores` blocks: `(parts, chunks_per_part)` with `parts` blocks per row group
/// (at most `cores / groups`, at most `chunks`), each taking `chunks_per_part`
/// consecutive chunks (the last part fewer), and no part empty. None when fewer than
/// two blocks could share a row group (the case is then not worth a barrier).
pub fn cross_core_split(chunks: i64, groups: i64, cores: i64) -> Option<(i64, i64)> {
    if chunks < 2 || groups < 1 {
        return None;
    }
    let parts = (cores / groups).min(chunks);
    if parts < 2 {
        return None;
    }
    let per_part = (chunks + parts - 1) / parts;
    Some(((chunks + per_part - 1) / per_part, per_part))
}

/// Number of buffers a kernel may not exceed (TPipe limit).
pub fn buffer_count(queues: &[Queue], slots: usize, extras: &Extras) -> u64 {
    queues.iter().map(|q| q.count).sum::<u64>()
        + slots as u64
        + u64::from(extras.work)
        + u64::from(extras.mask)
        + u64::from(extras.scratch)
        + u64::from(extras.part)
}

impl Schedule {
    /// Whether scalar node `n` is only read by binary ops with a tensor-scalar API form
    /// (`Adds`, `Muls`, `Maxs`, `Mins`; a sub of the scalar is an `Adds` of its
    /// negation, a division by a power of two a `Muls` by its exact reciprocal): it then
    /// needs no buffer and no `Duplicate`, its readers take the value.
    pub fn absorbed_scalar(&self, n: usize) -> bool {
        absorbed_scalar(&self.nodes, &self.operands, n)
    }

    /// Whether broadcast node `n` (a row over every row, or each row's first element over
    /// its row, of f16/f32) is only read by binary vector ops against a tile of its own
    /// extent: it then needs no buffer and no copy; its readers read its source through
    /// repeat strides (`af::BinaryBroadcastBox`: block stride 0 on Brcb blocks of the
    /// row scalars, or repeat stride 0 on the row), one call per row or per 256-byte
    /// column chunk.
    pub fn absorbed_broadcast(&self, n: usize) -> bool {
        absorbed_broadcast(&self.nodes, &self.operands, n)
    }

    /// The absorbed broadcast among the operands of node `n`, if any.
    pub fn absorbed_broadcast_operand(&self, n: usize) -> Option<usize> {
        self.operands
            .get(n)?
            .iter()
            .copied()
            .find(|&o| self.absorbed_broadcast(o))
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
                // A tile splitting a concat axis holds at most a tile of a part.
                Some(_) if Some(k) == case.split => e.clone(),
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
        let hoisted = self.in_hoist(case);
        let members = &self.queues[q].members;
        if !hoisted.is_empty() && members.iter().all(|n| hoisted.contains(n)) {
            return c(32);
        }
        members
            .iter()
            .filter(|n| !hoisted.contains(n))
            .fold(c(0), |acc, &n| acc + self.member_bytes(case, n))
    }

    /// Byte offset of member `m` in its queue block (hoisted members take no room).
    pub fn queue_offset(&self, case: &Case, q: usize, m: usize) -> Expr {
        let hoisted = self.in_hoist(case);
        self.queues[q].members[..m]
            .iter()
            .filter(|n| !hoisted.contains(n))
            .fold(c(0), |acc, &n| acc + self.member_bytes(case, n))
    }

    /// Bytes of load or store `n`'s queue member: its raw tensor, or for a direct store
    /// the largest value computed in its staging tensor (a transposed tile pads both
    /// innermost extents).
    fn member_bytes(&self, case: &Case, n: usize) -> Expr {
        let raw = self.raw_bytes(case, n);
        let info = &self.nodes[n];
        if info.kind != NodeKind::Store || !info.direct {
            return raw;
        }
        (0..self.nodes.len())
            .filter(|&m| m != n && self.nodes[m].transpose && self.nodes[m].value == info.value)
            .fold(raw, |acc, m| Expr::max(&acc, &self.value_bytes(case, m)))
    }

    /// Loads of `case` whose view does not vary along the tile loop: not along a looped
    /// axis nor along the split axis, so every tile of a block would load the same box.
    /// They are loaded once per block, before the tile loop, into the `hoist` buffer
    /// (VECCALC, single: it replaces a double-buffered queue member, so hoisting needs
    /// at most the 64 bytes of an emptied queue more than loading per tile). Only
    /// all-load cases with a split hoist (split-reduction cases reload per pass; a case
    /// without split has one tile; transpose cases and transposed loads do not).
    pub fn hoisted(&self, case: &Case) -> Vec<usize> {
        self.loop_invariant_loads(case, false)
    }

    /// Loads of `case` that vary along the split axis but along no looped axis (a cos/sin
    /// table broadcast over batch and heads while the sequence is split): every tile of
    /// one chunk loads the same box. Such a case walks its tiles chunk-major
    /// (`chunk_major`), so a block's tiles of one chunk follow each other; these loads
    /// stay in the `hoist` buffer and are reloaded only when the chunk changes, instead
    /// of once per tile (a block of `per` tiles reloads them at most
    /// `chunk_reloads_per_block` times).
    pub fn chunk_resident(&self, case: &Case) -> Vec<usize> {
        if case.looped.is_empty() {
            return Vec::new();
        }
        self.loop_invariant_loads(case, true)
    }

    /// Whether `case` walks its tiles chunk-major: tile id = chunk x outer + looped
    /// position (the looped axes vary fastest), so tiles sharing a chunk are adjacent.
    /// Otherwise the chunk varies fastest (adjacent tiles are adjacent in GM).
    pub fn chunk_major(&self, case: &Case) -> bool {
        !self.chunk_resident(case).is_empty()
    }

    /// Loads of a case whose tiles walk chunk-fastest (not `chunk_major`) that vary
    /// along a looped axis but not along the split axis (a [batch, 1, 1, key] attention
    /// mask while the heads are split): the consecutive tiles of one looped position
    /// load the same box. They stay in the `hoist` buffer and are reloaded only when the
    /// looped position changes (a block of `per` tiles over `chunks` chunks reloads them
    /// at most `chunk_reloads_per_block(per, chunks, outer)` times).
    pub fn outer_resident(&self, case: &Case) -> Vec<usize> {
        if case.looped.is_empty() || self.chunk_major(case) {
            return Vec::new();
        }
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
                    && case.looped.iter().any(|&k| info.full[k])
            })
            .collect()
    }

    /// The loads `case` keeps resident across some tiles and reloads when the tile walk
    /// moves on (`chunk_resident` or `outer_resident`; at most one is non-empty).
    pub fn resident(&self, case: &Case) -> Vec<usize> {
        let mut all = self.chunk_resident(case);
        all.extend(self.outer_resident(case));
        all
    }

    /// A dead input tile Sigmoid node `n` of `case` may use as its temporary instead of
    /// the `scratch` buffer: a load read straight from its VECIN queue tensor in every
    /// tile (not hoisted or resident, not transposed, not bool) with `n`'s box and UB
    /// type, whose last reader comes before `n` and whose tensor holds no other value
    /// (the schedule computes values over dead load tensors). The vendor's Sigmoid writes its
    /// temporary (a ones vector) only after reading its source, and the queue tensor is
    /// freed after the tile's compute. None in kernels with split-reduction cases (their
    /// passes compute in several stages).
    pub fn sigmoid_tmp(&self, case: &Case, n: usize) -> Option<usize> {
        let info = &self.nodes[n];
        if !matches!(&info.kind, NodeKind::Elementwise { op } if op == "sigmoid")
            || self.cases.iter().any(|c| c.reduce_split)
        {
            return None;
        }
        let in_hoist = self.in_hoist(case);
        (0..n).rev().find(|&l| {
            let load = &self.nodes[l];
            load.kind == NodeKind::Load
                && !load.transpose
                && load.dtype != DType::Bool
                && matches!(load.raw, Place::Queue { .. })
                && load.value == load.raw
                && !in_hoist.contains(&l)
                && load.full == info.full
                && load.partial == info.partial
                && ub_dtype(load.dtype) == ub_dtype(info.dtype)
                && self.last_reader(l) < n
                // No value computed over the tensor since.
                && !(0..self.nodes.len()).any(|m| m != l && self.nodes[m].value == load.raw)
        })
    }

    /// The last node reading value `x` (a reader of an absorbed broadcast of `x` reads
    /// `x`); `x` itself when nothing reads it.
    fn last_reader(&self, x: usize) -> usize {
        let mut last = x;
        for (m, ops) in self.operands.iter().enumerate() {
            if ops.contains(&x) {
                let at = if self.absorbed_broadcast(m) {
                    self.last_reader(m)
                } else {
                    m
                };
                last = last.max(at);
            }
        }
        last
    }

    /// Every load kept in the `hoist` buffer of `case`: the hoisted ones, then the
    /// resident ones (their order is their place in the buffer).
    pub fn in_hoist(&self, case: &Case) -> Vec<usize> {
        let mut all = self.hoisted(case);
        all.extend(self.resident(case));
        all
    }

    /// The loads of an all-load case with a split that vary along no looped axis and
    /// (`along_split`) do or do not vary along the split axis.
    fn loop_invariant_loads(&self, case: &Case, along_split: bool) -> Vec<usize> {
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
                    && info.full[u] == along_split
                    && case.looped.iter().all(|&k| !info.full[k])
            })
            .collect()
    }

    /// Whether some case keeps a load in the `hoist` buffer.
    pub fn hoists(&self) -> bool {
        self.cases
            .iter()
            .any(|case| !self.in_hoist(case).is_empty())
    }

    /// Byte offset of hoisted or chunk-resident load `n` in the `hoist` buffer of `case`.
    pub fn hoist_offset(&self, case: &Case, n: usize) -> Expr {
        packed_offset(&self.in_hoist(case), Some(n), |h| self.raw_bytes(case, h))
    }

    /// Bytes of the `hoist` buffer in `case` (256 when the case keeps nothing there).
    pub fn hoist_bytes(&self, case: &Case) -> Expr {
        let kept = self.in_hoist(case);
        if kept.is_empty() {
            return c(256);
        }
        packed_offset(&kept, None, |h| self.raw_bytes(case, h))
    }

    /// Work done once per block before the tile loop (the hoisted loads).
    pub fn once_cost(&self, case: &Case) -> CostExprs {
        let mut once = self.stage_cost(case, &self.hoisted(case));
        // The tables kept in UB: one DMA of the whole table each.
        for input in self.table_inputs(case) {
            once.mte2_bytes =
                once.mte2_bytes + self.table_elems(input) * gm_size(self.inputs[input].dtype);
            once.load_ops = once.load_ops + 1;
            once.dma_rows = once.dma_rows + 1;
        }
        once
    }

    /// GM traffic of the tables `case` keeps in UB against picking their rows from GM
    /// (`None` when it keeps none): every table whole, and the bytes its gathers pick in
    /// one full tile, which the GM case reads row by row. The tiling solver keeps the
    /// tables in UB only where a block picks at least their bytes (`TableTraffic`), so a
    /// small table copied to every block never moves more than its picks would.
    pub fn table_traffic(&self, case: &Case) -> Option<TableTraffic> {
        if case.ub_tables.is_empty() {
            return None;
        }
        let ext = self.tile_extents(case, &Self::tile_expr(case));
        let pick_bytes = case.ub_tables.iter().fold(c(0), |acc, &g| {
            let picked = self
                .node_box(case, g, &ext)
                .iter()
                .fold(c(1), |acc, e| acc * e.clone());
            acc + picked * gm_size(self.nodes[g].dtype)
        });
        let table_bytes = self.table_inputs(case).iter().fold(c(0), |acc, &i| {
            acc + self.table_elems(i) * gm_size(self.inputs[i].dtype)
        });
        Some(TableTraffic {
            table_bytes,
            pick_bytes,
        })
    }

    /// The kernel input a gather node reads its table from.
    pub fn gather_table_input(&self, gather: usize) -> Option<usize> {
        let table = *self.operands.get(gather)?.first()?;
        match self.nodes.get(table)?.kind {
            NodeKind::Data { input } => Some(input),
            _ => None,
        }
    }

    /// The distinct kernel inputs `case` keeps whole in the `table` buffer, in the order
    /// of their place there.
    pub fn table_inputs(&self, case: &Case) -> Vec<usize> {
        let mut inputs: Vec<usize> = case
            .ub_tables
            .iter()
            .filter_map(|&g| self.gather_table_input(g))
            .collect();
        inputs.sort_unstable();
        inputs.dedup();
        inputs
    }

    /// The kernel's own GM minimum: every input and output whole, each once (an upper
    /// bound of the distinct bytes it moves: a gather picks rows of its table, a slice
    /// reads part of its input). The solver's GM budget is a fraction of it
    /// (`GM_BUDGET`).
    pub fn min_gm_bytes(&self) -> Expr {
        self.inputs
            .iter()
            .chain(&self.outputs)
            .fold(c(0), |acc, ty| {
                let elems = ty.dims.iter().fold(c(1), |acc, d| {
                    acc * d.expr().cloned().unwrap_or_else(|| c(0))
                });
                acc + elems * gm_size(ty.dtype)
            })
    }

    /// Elements of kernel input `input` (a table copied whole).
    pub fn table_elems(&self, input: usize) -> Expr {
        self.inputs[input].dims.iter().fold(c(1), |acc, d| {
            acc * d.expr().cloned().unwrap_or_else(|| c(0))
        })
    }

    /// Bytes one table takes in the `table` buffer: its elements plus one alignment unit
    /// (a row copy reads whole 32-byte blocks, so the last row may read past the table's
    /// end), 32-byte aligned so the next table starts aligned.
    fn table_slot_bytes(&self, input: usize) -> Expr {
        let size = ub_size(self.inputs[input].dtype);
        ((self.table_elems(input) + self.align) * size).align(&c(32))
    }

    /// Byte offset of kernel input `input`'s table in the `table` buffer of `case`.
    pub fn table_offset(&self, case: &Case, input: usize) -> Expr {
        packed_offset(&self.table_inputs(case), Some(input), |i| {
            self.table_slot_bytes(i)
        })
    }

    /// Bytes of the `table` buffer of `case` (256 when it keeps no table in UB).
    pub fn table_bytes(&self, case: &Case) -> Expr {
        let inputs = self.table_inputs(case);
        if inputs.is_empty() {
            return c(256);
        }
        packed_offset(&inputs, None, |i| self.table_slot_bytes(i)).align(&c(256))
    }

    /// Whether some case keeps a gather table in UB.
    pub fn keeps_tables(&self) -> bool {
        self.cases.iter().any(|case| !case.ub_tables.is_empty())
    }

    /// The gathers of `case` that may keep the rows they picked in a row cache: those
    /// picking rows by loaded ids and reading their table from GM one row per DMA (the
    /// table's innermost axis is the tile's innermost axis, contiguous, and the indices
    /// do not vary along it), whose element takes the same bytes in GM and UB. A token
    /// id that repeats within a block then costs one UB copy instead of a second DMA of
    /// the row. Only all-load cases: a split-reduction case picks rows again per pass.
    pub fn row_caches(&self, case: &Case) -> Vec<RowCacheSpec> {
        let Some(&last) = case.in_tile.last() else {
            return Vec::new();
        };
        if self.split_plan(case).is_some() {
            return Vec::new();
        }
        let ext = self.tile_extents(case, &Self::tile_expr(case));
        (0..self.nodes.len())
            .filter(|n| !case.ub_tables.contains(n))
            .filter_map(|n| {
                let NodeKind::Gather { .. } = self.nodes[n].kind else {
                    return None;
                };
                let (table, index) = match self.operands.get(n)?.as_slice() {
                    [table, index, ..] => (*table, *index),
                    _ => return None,
                };
                let input = self.gather_table_input(n)?;
                let dtype = self.nodes[n].dtype;
                let table_info = &self.nodes[table];
                let index_box = self.node_box(case, index, &ext);
                let row_form = self.loaded_ids(index)
                    && table_info.full[last]
                    && table_info.gm_strides[last] == c(1)
                    && index_box.last() == Some(&c(1))
                    && ub_size(dtype) == gm_size(dtype);
                if !row_form {
                    return None;
                }
                let (rows, pitch) = self.layout(&self.node_box(case, n, &ext));
                Some(RowCacheSpec {
                    node: n,
                    row_bytes: pitch * ub_size(dtype),
                    rows_per_tile: rows,
                    table_elems: self.table_elems(input),
                })
            })
            .collect()
    }

    /// Whether some case gives a gather a row cache (the kernel has a `rowcache` buffer).
    pub fn has_row_caches(&self) -> bool {
        self.cases
            .iter()
            .any(|case| !self.row_caches(case).is_empty())
    }

    /// Whether the ids node `n` holds come from a load (through casts): ids computed in
    /// the kernel (positions from an arange) do not repeat within a block the way token
    /// ids do, and a row cache would only cost its copies.
    fn loaded_ids(&self, mut n: usize) -> bool {
        loop {
            match self.nodes[n].kind {
                NodeKind::Load => return true,
                NodeKind::Cast => match self.operands.get(n).and_then(|o| o.first()) {
                    Some(&src) => n = src,
                    None => return false,
                },
                _ => return false,
            }
        }
    }

    /// Work done each time a block's tile loop reloads its resident loads (entering a new
    /// chunk, or a new looped position: `resident`).
    pub fn chunk_cost(&self, case: &Case) -> CostExprs {
        self.stage_cost(case, &self.resident(case))
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
                    // af::TreeCombineRows: ceil(n / 2) rows of the source, n the rows
                    // of one output row (the tree form needs them consecutive).
                    if let (Some(src), Some(n_rows)) =
                        (graph_operand[n], self.tree_combine_rows(case, n))
                    {
                        let ext = self.tile_extents(case, &Self::tile_expr(case));
                        let (_, pitch) = self.layout(&self.node_box(case, src, &ext));
                        let (out_rows, _) = self.layout(&self.node_box(case, n, &ext));
                        // af::TreeCombineGroups: the partials of a group of output rows.
                        let group = match tree_group_cap(self.nodes[src].dtype, &pitch) {
                            Some(cap) => Expr::min(&out_rows, &c(cap)),
                            None => c(1),
                        };
                        let elems = n_rows.ceil_div(&c(2)) * pitch * group;
                        work = Expr::max(
                            &work,
                            &Self::buffer_bytes(&elems, ub_size(self.nodes[src].dtype)),
                        );
                    }
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
                if matches!(info.kind, NodeKind::Reduce { ref op, .. } if op == "prod") {
                    // af::ProdRow: the first step of its multiply tree writes the lower
                    // half of a row (a padded row at most) into work.
                    work = Expr::max(&work, &Self::buffer_bytes(&l.align(&c(per_blk)), d));
                }
                if whole_tile_reduce_type(self.nodes[src].dtype)
                    && l.as_const().is_none_or(|len| len > lanes)
                {
                    // af::ReduceRowsWhole folds a row longer than one repeat into one
                    // accumulator repeat (256 bytes) per row.
                    let (rows, _) = self.layout(&bx);
                    work = Expr::max(&work, &(rows * 256));
                }
                if reduced.len() > 1 {
                    // Row partials: one padded row per source row.
                    let (rows, _) = self.layout(&bx);
                    scratch = Expr::max(&scratch, &Self::buffer_bytes(&(rows * self.align), d));
                }
            }
        }
        (work, scratch)
    }

    /// The source rows of one output row of reduction `n` in `case` when
    /// `af::ReduceBox` combines them as a tree (`af::TreeCombineRows`): only axes other
    /// than the innermost reduced, and within the tile none kept inside a reduced one
    /// (so each output row's source rows are consecutive); `None` otherwise.
    fn tree_combine_rows(&self, case: &Case, n: usize) -> Option<Expr> {
        let NodeKind::Reduce { reduced, .. } = &self.nodes[n].kind else {
            return None;
        };
        let last = self.axes.len() - 1;
        if reduced.is_empty() || reduced.contains(&last) {
            return None;
        }
        let src = *self.operands.get(n)?.first()?;
        let ext = self.tile_extents(case, &Self::tile_expr(case));
        let bx = self.node_box(case, src, &ext);
        let mut rows = c(1);
        let mut inside = false;
        for (pos, &k) in case.in_tile.iter().enumerate() {
            if k == last {
                continue;
            }
            let e = bx.get(pos)?.clone();
            if reduced.contains(&k) {
                inside = true;
                rows = rows * e;
            } else if inside && e.as_const() != Some(1) {
                return None;
            }
        }
        Some(rows)
    }

    /// Whether a broadcast or reduction of `dtype` has a whole-tile form: broadcasts of
    /// 16- and 32-bit types (Copy, Brcb), reductions of f16/f32 whose only reduced axis
    /// is the innermost (WholeReduce); reductions over other axes combine row by row.
    fn whole_tile_form(&self, kind: &NodeKind, dtype: DType) -> bool {
        match kind {
            NodeKind::Broadcast => matches!(ub_size(dtype), 2 | 4),
            NodeKind::Reduce { op, reduced } => {
                whole_tile_reduce_type(dtype)
                    && op != "prod"
                    && reduced.as_slice() == [self.axes.len() - 1]
            }
            _ => false,
        }
    }

    /// Whether broadcast node `n` splats the first element of each source row over its
    /// row in a dtype `af::SplatRows` handles (its `blocks` live in the scratch buffer).
    pub fn splats_rows(&self, case: &Case, n: usize, operands: &[Vec<usize>]) -> bool {
        let Some(&src) = operands.get(n).and_then(|o| o.first()) else {
            return false;
        };
        let ext = self.tile_extents(case, &Self::tile_expr(case));
        let (sbx, dbx) = (self.node_box(case, src, &ext), self.node_box(case, n, &ext));
        matches!(ub_size(self.nodes[n].dtype), 2 | 4)
            && sbx.last().and_then(Expr::as_const) == Some(1)
            && dbx.last().and_then(Expr::as_const) != Some(1)
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
                    if f > 0 && self.sigmoid_tmp(case, n).is_none() {
                        // A compare reads whole 256 B groups of its int32 scratch; an
                        // integer select's areas each start on a 32-byte block.
                        let counted = if compare_supported(op) {
                            elems.align(&c(64))
                        } else if int_select(&self.nodes, n) {
                            elems.align(&c(32 / ub_size(info.dtype)))
                        } else {
                            elems
                        };
                        // Sigmoid's temporary is of the element type; the others
                        // stage in at least 32-bit words.
                        let word = if op == "sigmoid" {
                            ub_size(info.dtype)
                        } else {
                            ub_size(info.dtype).max(4)
                        };
                        scratch = Expr::max(&scratch, &Self::buffer_bytes(&(counted * f), word));
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
                NodeKind::Broadcast if self.splats_rows(case, n, operands) => {
                    // af::SplatRows: one 32-byte block per source element.
                    let ext = self.tile_extents(case, &Self::tile_expr(case));
                    let (rows, _) = self.layout(&self.node_box(case, n, &ext));
                    scratch = Expr::max(&scratch, &(rows * self.align * 32));
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
        // A cross-core case's phase 2 reads CROSS_CORE_BATCH partials per DMA into it.
        let batch = if case.cross_core { CROSS_CORE_BATCH } else { 1 };
        let part = match (case.reduce_split, self.split_plan(case)) {
            (true, Some(plan)) => (0..self.nodes.len())
                .filter(|&n| {
                    plan.persistent[n] && matches!(self.nodes[n].kind, NodeKind::Reduce { .. })
                })
                .fold(c(256), |acc, n| {
                    let elems = self.elems(case, n) * batch;
                    Expr::max(
                        &acc,
                        &Self::buffer_bytes(&elems, ub_size(self.nodes[n].dtype)),
                    )
                }),
            _ => c(256),
        };
        for (name, used, bytes) in [
            ("work", self.extras.work, work),
            ("mask", self.extras.mask, mask),
            ("scratch", self.extras.scratch, scratch),
            ("part", self.extras.part, part),
            ("hoist", self.hoists(), self.hoist_bytes(case)),
            ("table", self.keeps_tables(), self.table_bytes(case)),
            // The smallest row cache; the host gives it what UB the others leave.
            (
                ROW_CACHE_BUFFER,
                self.has_row_caches(),
                c(ROW_CACHE_MIN_BYTES),
            ),
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

    /// UB bytes of `case`'s smallest tile (`tile_align` elements of the split axis),
    /// when no symbol of the kernel changes them.
    pub fn smallest_tile_ub(&self, case: &Case) -> Option<i64> {
        let mut env = std::collections::HashMap::new();
        if let Some(var) = &case.tile_var {
            env.insert(var.clone(), case.tile_align.max(1));
        }
        self.ub_expr(case, &self.operands).eval_map(&env).ok()
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
            // Hoisted loads run once per block (`once_cost`), chunk-resident ones once
            // per chunk a block enters (`chunk_cost`), not per tile.
            let hoisted = self.in_hoist(case);
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

    /// DataCopyPad calls of `af::LoadBox` / `af::StoreBox` moving node `n`'s box `bx`
    /// (tile order), as `af::MakeRowDims` merges its row dims: dims of extent 1 dropped,
    /// neighbours whose GM rows are evenly spaced merged; the innermost merged dim is
    /// one call's rows (when its rows do not overlap), each row of the others its own
    /// call. A head split over several heads, loaded per head, costs a DMA head each.
    /// The GM strides are those of the load's kernel input (a store's own).
    fn dma_calls(&self, case: &Case, n: usize, bx: &[Expr]) -> Expr {
        let strided = match self.nodes[n].kind {
            NodeKind::Load => self.operands[n].first().copied().unwrap_or(n),
            _ => n,
        };
        let Some(info) = self.nodes.get(strided) else {
            return c(1);
        };
        let row_axes = case.in_tile.len().saturating_sub(1);
        let mut dims: Vec<(Expr, Expr)> = Vec::new();
        for (pos, &k) in case.in_tile.iter().enumerate().take(row_axes) {
            let Some(e) = bx.get(pos).cloned() else {
                continue;
            };
            if e.as_const() == Some(1) {
                continue;
            }
            let g = if info.full[k] {
                info.gm_strides.get(k).cloned().unwrap_or_else(|| c(0))
            } else {
                c(0)
            };
            if let Some(last) = dims.last_mut() {
                if last.1 == g.clone() * e.clone() {
                    last.0 = last.0.clone() * e;
                    last.1 = g;
                    continue;
                }
            }
            dims.push((e, g));
        }
        // The innermost merged dim is one call's block count unless its rows overlap
        // (a stride 0 repeats a row: every row its own call).
        if dims.last().is_some_and(|(_, g)| g.as_const() != Some(0)) {
            dims.pop();
        }
        dims.into_iter().fold(c(1), |acc, (e, _)| acc * e)
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
                    cost.load_ops = cost.load_ops
                        + if info.transpose {
                            c(1)
                        } else {
                            self.dma_calls(case, n, &bx)
                        };
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
                    cost.store_ops = cost.store_ops + self.dma_calls(case, n, &bx);
                    cost.dma_rows = cost.dma_rows + rows;
                }
                NodeKind::Gather { .. } if case.ub_tables.contains(&n) => {
                    // One UB -> UB DataCopy per row from the table in UB.
                    cost.vec_bytes = cost.vec_bytes + rows.clone() * pitch * ub_size(info.dtype);
                    cost.vec_ops = cost.vec_ops + rows;
                }
                NodeKind::Gather { .. } => {
                    // One DataCopyPad per row, the rows picked by the scalar unit.
                    cost.mte2_bytes = cost.mte2_bytes + real * gm_size(info.dtype);
                    cost.load_ops = cost.load_ops + rows.clone();
                    cost.dma_rows = cost.dma_rows + rows;
                }
                NodeKind::Scalar { .. } if self.absorbed_scalar(n) => {}
                NodeKind::Broadcast if self.absorbed_broadcast(n) => {}
                NodeKind::Elementwise { .. } if self.absorbed_broadcast_operand(n).is_some() => {
                    // af::BinaryBroadcastBox: one call per row, per 256-byte column
                    // chunk or per eight rows, and the Brcb of a splat's scalars.
                    let chunks = (pitch.clone() * ub_size(info.dtype)).ceil_div(&c(256));
                    let blocks = (pitch.clone() * ub_size(info.dtype)).ceil_div(&c(32));
                    let by_blocks = rows.ceil_div(&c(8)) * blocks.ceil_div(&c(255));
                    cost.vec_bytes = cost.vec_bytes + rows.clone() * pitch * ub_size(info.dtype);
                    cost.vec_ops =
                        cost.vec_ops + Expr::min(&rows, &Expr::min(&chunks, &by_blocks)) + 1;
                }
                NodeKind::Elementwise { .. } | NodeKind::Cast | NodeKind::Scalar { .. } => {
                    cost.vec_bytes = cost.vec_bytes + rows * pitch * ub_size(info.dtype);
                    cost.vec_ops = cost.vec_ops + 1;
                }
                NodeKind::Broadcast | NodeKind::Reduce { .. }
                    if self.whole_tile_form(&info.kind, info.dtype) =>
                {
                    // Whole-tile forms (af::CopyRowToRows, af::SplatRows,
                    // af::ReduceRowsWhole): calls per 256-byte chunk of a row, or per
                    // eight rows (af::CopyBlocksToRows), when that is fewer than one
                    // per row.
                    let chunks = (pitch.clone() * ub_size(info.dtype)).ceil_div(&c(256));
                    let blocks = (pitch.clone() * ub_size(info.dtype)).ceil_div(&c(32));
                    let by_blocks = rows.ceil_div(&c(8)) * blocks.ceil_div(&c(255));
                    cost.vec_bytes = cost.vec_bytes + rows.clone() * pitch * ub_size(info.dtype);
                    cost.vec_ops =
                        cost.vec_ops + Expr::min(&rows, &(Expr::min(&chunks, &by_blocks) + 2));
                }
                NodeKind::Reduce { .. } if self.tree_combine_rows(case, n).is_some() => {
                    // af::TreeCombineRows per output row: one instruction per halving
                    // of its source rows (ceil(log2 n)), over half the bytes, then a
                    // quarter, ...: about the source's bytes.
                    // af::TreeCombineGroups where it applies: one instruction per
                    // output row for the first halving, one per group for the others.
                    let n_rows = self.tree_combine_rows(case, n).unwrap_or_else(|| c(1));
                    let (src_rows, src_pitch) = self.operands[n]
                        .first()
                        .map(|&a| self.layout(&self.node_box(case, a, &ext)))
                        .unwrap_or_else(|| (rows.clone(), pitch.clone()));
                    let levels = tree_combine_ops(&n_rows);
                    let per_row = rows.clone() * levels.clone();
                    let ops = match tree_group_cap(info.dtype, &src_pitch) {
                        Some(cap) => Expr::min(
                            &per_row,
                            &(rows.clone()
                                + rows.ceil_div(&c(cap)) * Expr::max(&c(1), &(levels - c(1)))),
                        ),
                        None => per_row,
                    };
                    cost.vec_bytes = cost.vec_bytes + src_rows * src_pitch * ub_size(info.dtype);
                    cost.vec_ops = cost.vec_ops + ops;
                }
                NodeKind::Reduce { ref reduced, .. }
                    if reduced.iter().any(|&k| k + 1 != self.axes.len()) =>
                {
                    // af::ReduceBox over an axis other than the innermost: one Combine
                    // (or the first row's DataCopy) per source row into its output row,
                    // after one reduction per source row when the innermost axis is
                    // reduced too. A decomposed matmul's ReduceSum over k costs k
                    // instructions per output row, not one.
                    let (src_rows, src_pitch) = self.operands[n]
                        .first()
                        .map(|&a| self.layout(&self.node_box(case, a, &ext)))
                        .unwrap_or_else(|| (rows.clone(), pitch.clone()));
                    let inner = if reduced.iter().any(|&k| k + 1 == self.axes.len()) {
                        src_rows.clone()
                    } else {
                        c(0)
                    };
                    cost.vec_bytes =
                        cost.vec_bytes + src_rows.clone() * src_pitch * ub_size(info.dtype);
                    cost.vec_ops = cost.vec_ops + src_rows + inner;
                }
                NodeKind::Broadcast
                | NodeKind::Reduce { .. }
                | NodeKind::Concat { .. }
                | NodeKind::ExtractSlice { .. }
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

    /// Whether split-reduction `case` can also split its reduced axis across cores
    /// (a `Case::cross_core` twin): one pass over the chunks (every accumulator reduces
    /// values that need no other accumulator), nothing stored per chunk (every store
    /// comes after the reduction), at least one accumulator, and no gather table kept
    /// in UB. Softmax or layer norm over the outer axis (two or three passes) keep the
    /// one-core-per-row-group form.
    pub fn cross_core_ok(&self, case: &Case) -> bool {
        let Some(plan) = case.reduce_split.then(|| self.split_plan(case)).flatten() else {
            return false;
        };
        plan.passes == 1
            && plan.chunk_stores.iter().all(Vec::is_empty)
            && plan.chunk_accs.first().is_some_and(|a| !a.is_empty())
            && case.ub_tables.is_empty()
    }

    /// The accumulators of a cross-core case, in node order: each block writes one
    /// partial of each per unit (row group share) to the workspace.
    pub fn cross_core_accs(&self, case: &Case) -> Vec<usize> {
        self.split_plan(case)
            .and_then(|plan| plan.chunk_accs.first().cloned())
            .unwrap_or_default()
    }

    /// Bytes accumulator `n`'s partial takes in a unit's workspace record: its UB value
    /// (rows x padded row, in its UB type) rounded to a 32-byte block, so that one
    /// `DataCopy` moves it each way.
    pub fn partial_slot_bytes(&self, case: &Case, n: usize) -> Expr {
        (self.elems(case, n) * ub_size(self.nodes[n].dtype)).align(&c(32))
    }

    /// Byte offset of accumulator `n`'s partial in one unit's workspace record.
    pub fn partial_offset(&self, case: &Case, n: usize) -> Expr {
        packed_offset(&self.cross_core_accs(case), Some(n), |a| {
            self.partial_slot_bytes(case, a)
        })
    }

    /// Bytes of one unit's workspace record (every accumulator's partial). The
    /// workspace holds one record per unit: `row groups x parts` of them.
    pub fn partial_bytes(&self, case: &Case) -> Expr {
        packed_offset(&self.cross_core_accs(case), None, |a| {
            self.partial_slot_bytes(case, a)
        })
    }

    /// The cost model of a cross-core case, in pieces the solver scales by the run-time
    /// split (`parts` blocks per row group, `ceil(chunks / parts)` chunks each): one
    /// chunk of phase 1, the partials one unit writes, one partial combined in phase 2
    /// (its bytes and one vector call per accumulator), the DMAs of one batch of
    /// `CROSS_CORE_BATCH` partials, and phase 2's work after the
    /// combine (means scaled, finals computed, stores written) per row group.
    pub fn cross_core_cost(&self, case: &Case) -> Option<CrossCoreCost> {
        if !case.cross_core {
            return None;
        }
        let plan = self.split_plan(case)?;
        let mut chunk_nodes = plan.chunk_nodes.first()?.clone();
        chunk_nodes.extend(plan.chunk_accs.first()?);
        let chunk = self.stage_cost(case, &chunk_nodes);
        let accs = self.cross_core_accs(case);
        let count = c(accs.len() as i64);
        let bytes = self.partial_bytes(case);
        let mut partial = self.stage_cost(case, &[]);
        partial.mte3_bytes = bytes.clone();
        partial.store_ops = count.clone();
        partial.dma_rows = count.clone();
        let mut combine = self.stage_cost(case, &[]);
        combine.mte2_bytes = bytes.clone();
        combine.dma_rows = count.clone();
        combine.vec_bytes = bytes;
        combine.vec_ops = count.clone();
        let mut batch = self.stage_cost(case, &[]);
        batch.load_ops = count;
        let mut fin_nodes = plan.final_nodes.first()?.clone();
        fin_nodes.extend(plan.final_stores.first()?);
        let mut fin = self.stage_cost(case, &fin_nodes);
        for &m in plan.final_means.first()? {
            fin.vec_bytes = fin.vec_bytes + self.partial_slot_bytes(case, m);
            fin.vec_ops = fin.vec_ops + 1;
        }
        Some(CrossCoreCost {
            chunk,
            partial,
            combine,
            batch,
            fin,
        })
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
                Some(plan) if case.cross_core => format!(
                    ", reduce_split = true, passes = {}, cross_core = true",
                    plan.passes
                ),
                Some(plan) => format!(", reduce_split = true, passes = {}", plan.passes),
                None => String::new(),
            };
            let tables = if case.ub_tables.is_empty() {
                String::new()
            } else {
                let nodes: Vec<String> = case.ub_tables.iter().map(|n| n.to_string()).collect();
                format!(", gather_tables_in_ub = [{}]", nodes.join(", "))
            };
            lines.push(format!(
                "\"tiling.case\"() {{kernel = @{k}, key = {}, ub_split = [{ub_split}], block_split = [{block_split}], vectorized_axis = [{vectorized}], looped_axis = [{looped}], tile_align = {}{split_reduction}{tables}}} : () -> ()",
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

/// A gather's row cache (`Schedule::row_caches`): the host gives it what UB the case's
/// buffers leave, up to one slot per row a block picks (`row_cache_rows`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowCacheSpec {
    /// The gather node.
    pub node: usize,
    /// Bytes of one picked row in UB (its padded length).
    pub row_bytes: Expr,
    /// Rows the gather picks in a full tile.
    pub rows_per_tile: Expr,
    /// Elements of the table (the cache keys are element offsets in it, as int32).
    pub table_elems: Expr,
}

/// The buffer holding the row caches of a case's gathers.
pub const ROW_CACHE_BUFFER: &str = "rowcache";

/// Bytes of the `rowcache` buffer of a case without a row cache (`InitBuffer` needs a
/// positive size). The UB model counts these; a row cache may take them too.
pub const ROW_CACHE_MIN_BYTES: i64 = 32;

/// Bytes a row cache slot takes besides its row: two hash entries of an int32 key and
/// an int32 block position each.
pub const ROW_CACHE_SLOT_EXTRA_BYTES: i64 = 16;

/// Slots of each row cache of a case, given `left` free UB bytes and, per cache, its
/// row bytes, the rows a block picks and the table's elements (all evaluated). The
/// caches share `left` equally; a cache gets a multiple of 4 slots (its two hash arrays
/// of 2 int32 per slot stay 32-byte aligned), at most the rows its block picks (rounded
/// up to 4), and none when fewer than 4 fit, its block picks fewer than 2 rows or its
/// keys would not fit int32. Returns the slots and the bytes of the `rowcache` buffer (at
/// least `ROW_CACHE_MIN_BYTES`, which the case's UB already counts, so `left` includes
/// them). The host tiling function (`af_host::RowCacheRows`) computes the same.
pub fn row_cache_rows(left: i64, caches: &[(i64, i64, i64)]) -> (Vec<i64>, i64) {
    if caches.is_empty() {
        return (Vec::new(), ROW_CACHE_MIN_BYTES);
    }
    let share = left.max(0) / caches.len() as i64;
    let mut bytes = 0;
    let rows = caches
        .iter()
        .map(|&(row_bytes, block_rows, table_elems)| {
            let slot = row_bytes + ROW_CACHE_SLOT_EXTRA_BYTES;
            let mut rows = share / slot.max(1);
            rows = (rows - rows % 4).min((block_rows.max(0) + 3) / 4 * 4);
            if rows < 4 || block_rows < 2 || row_bytes <= 0 || table_elems >= i64::from(i32::MAX) {
                rows = 0;
            }
            bytes += rows * slot;
            rows
        })
        .collect();
    (rows, bytes.max(ROW_CACHE_MIN_BYTES))
}

/// The GM bytes of a case that keeps gather tables in UB ([`Schedule::table_traffic`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableTraffic {
    /// The tables, each read whole once per block.
    pub table_bytes: Expr,
    /// What the case's gathers pick in one full tile (the GM case's row reads).
    pub pick_bytes: Expr,
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

/// The cost model of a cross-core case ([`Schedule::cross_core_cost`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrossCoreCost {
    /// One chunk of phase 1 (loads, computes, the partial reduction combined).
    pub chunk: CostExprs,
    /// The partials one unit writes to the workspace.
    pub partial: CostExprs,
    /// One partial read back and combined in phase 2 (bytes, DMA rows, vector calls).
    pub combine: CostExprs,
    /// The DMA instructions of one batch of `CROSS_CORE_BATCH` partials.
    pub batch: CostExprs,
    /// Phase 2 after the combine, per row group.
    pub fin: CostExprs,
}

/// Records the schedule pass writes.
#[derive(Clone, Debug, Default)]
pub struct ScheduleRecords {
    /// `#ascir.axis<...>` texts to append to `ascir.axes`.
    pub axes: Vec<String>,
    /// Generic-form `tiling.*` ops.
    pub lines: Vec<String>,
}

pub fn attr_text<'a>(node: &'a AscNode, name: &str) -> Option<&'a str> {
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

    /// Row cache slots, by hand: 272-byte rows (256 + 16 of hash) in 65536 free bytes
    /// fit 240, capped at the 88 rows a block of 4 tiles of 22 picks; two caches share
    /// the bytes; too little room, a block of one row or keys beyond int32 get none.
    #[test]
    fn row_cache_slots_share_the_free_ub() {
        assert_eq!(
            row_cache_rows(65536, &[(256, 88, 19200)]),
            (vec![88], 88 * 272)
        );
        // 86 rows round up to 88 slots; 85 free slots round down to 84.
        assert_eq!(row_cache_rows(65536, &[(256, 86, 19200)]).0, vec![88]);
        assert_eq!(row_cache_rows(85 * 272, &[(256, 1000, 19200)]).0, vec![84]);
        // Two caches: 32768 bytes each, 120 slots of 272 and 240 slots of 136.
        assert_eq!(
            row_cache_rows(65536, &[(256, 1000, 19200), (120, 1000, 640)]),
            (vec![120, 240], 120 * 272 + 240 * 136)
        );
        assert_eq!(row_cache_rows(3 * 272, &[(256, 88, 19200)]), (vec![0], 32));
        assert_eq!(row_cache_rows(65536, &[(256, 1, 19200)]), (vec![0], 32));
        assert_eq!(row_cache_rows(65536, &[(256, 88, 1 << 31)]), (vec![0], 32));
        assert_eq!(row_cache_rows(-5, &[(256, 88, 19200)]), (vec![0], 32));
        assert_eq!(row_cache_rows(65536, &[]), (vec![], 32));
    }

    /// The cross-core split: parts per row group bounded by the cores and the chunks,
    /// every part non-empty and all chunks covered, None when fewer than two blocks
    /// could share a row group.
    #[test]
    fn cross_core_split_shares_chunks() {
        // 96 chunks of one row group on 48 cores: 48 parts of 2 chunks.
        assert_eq!(cross_core_split(96, 1, 48), Some((48, 2)));
        // 70 chunks: 2 chunks a part need only 35 parts.
        assert_eq!(cross_core_split(70, 1, 48), Some((35, 2)));
        // 5 row groups of 100 chunks: 9 parts each (45 blocks), 12 chunks a part.
        assert_eq!(cross_core_split(100, 5, 48), Some((9, 12)));
        // Fewer chunks than cores: one chunk per part.
        assert_eq!(cross_core_split(3, 1, 48), Some((3, 1)));
        // Nothing to share.
        assert_eq!(cross_core_split(1, 1, 48), None);
        assert_eq!(cross_core_split(100, 30, 48), None);
        assert_eq!(cross_core_split(100, 0, 48), None);
        for chunks in 2..200 {
            for groups in 1..30 {
                let Some((parts, per)) = cross_core_split(chunks, groups, 48) else {
                    assert!(48 / groups < 2, "{chunks} {groups}");
                    continue;
                };
                assert!(parts >= 2 && parts * groups <= 48, "{chunks} {groups}");
                // Every part has a chunk, and together they cover the row group.
                assert!((parts - 1) * per < chunks && parts * per >= chunks);
            }
        }
    }
}
