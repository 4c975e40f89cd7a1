//! Fusion of AscGraph kernels into larger kernels (GE's CanFuse, "second-level
//! fusion"), independent of MLIR.
//!
//! What it does:
//! - [`merge_kernels`] splices two hint-form AscGraphs into one loop nest. Loop axes are
//!   mapped through the tensors the two kernels share (the producer's stored tensor and
//!   the consumer's loaded one, or a common input): the GM view of each side names, for
//!   every axis with a repeat other than 1, the tensor dim it walks (by extent and
//!   row-major stride). Axes left over on both sides are paired by symbolic size
//!   (provably equal, or equal under hints with an `expect` guard). One side's loop nest
//!   must then contain the other's. The consumer's `load` of a tensor the producer
//!   computes is replaced by the producer's UB value (the GM round trip disappears),
//!   inputs read by both are shared (`data`/`load` deduplicated), and outputs nobody
//!   outside needs are dropped. Finally both sides' TilingGroups must merge
//!   ([`autofuse_ascir::tiling_group::merge`]).
//! - [`plan`] runs GE's greedy solver over one graph function: candidate pairs are
//!   kernels sharing a buffer (and, to explain them, siblings reading different results
//!   of one producer), scored by GM bytes saved, then proximity, then order, fused in
//!   that order for up to `max_rounds` rounds; every attempt is a [`Decision`] with a
//!   stable reason code ([`Rule`]) when refused.
//! - [`lift`] turns a kernel holding one original op back into that `ascend` op.
//!
//! Preconditions: kernels are in the hint form `--lower-to-ascir` produces (one loop
//! nest; every view repeat is its axis size or 1). Postconditions: a merged kernel is in
//! the same form, computes the same values as the two kernels one after the other (the
//! differential tests check this with the interpreters), and keeps every node's source
//! location.

use crate::lower_to_ascir::lowering::camel_name;
use crate::schedule::build::BuildSchedule;
use autofuse_ascir::chip::ChipProfile;
use autofuse_ascir::graph::{AscGraph, AscNode, Axis, AxisKind, View};
use autofuse_ascir::kernel::Schedule;
use autofuse_ascir::tiling_group::{self, Mode};
use autofuse_ir::attr::quote;
use autofuse_ir::graph::{Dim, TensorType, ValueId};
use autofuse_mlir::registry::{lookup_in, ops_of, Category, Dialect};
use autofuse_symbolic::{Expr, Relation, ShapeEnv, Tri};
use std::borrow::Cow;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::hash::{Hash, Hasher};

/// The rules a candidate pair must pass, one stable reason code each; and `Lifted`, the
/// code of a kernel lifting turned back into its op (not a refused pair: it explains the
/// GM edges of the lifted op, which no pair's refusal may cover).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    NoSharedBuffer,
    Cycle,
    SizeCap,
    InputCap,
    AxisMismatch,
    TilingGroupConflict,
    PeakMemory,
    TransposePattern,
    ConcatPattern,
    KindDisabled,
    Unschedulable,
    Lifted,
}

impl Rule {
    pub const ALL: [Rule; 12] = [
        Rule::NoSharedBuffer,
        Rule::Cycle,
        Rule::SizeCap,
        Rule::InputCap,
        Rule::AxisMismatch,
        Rule::TilingGroupConflict,
        Rule::PeakMemory,
        Rule::TransposePattern,
        Rule::ConcatPattern,
        Rule::KindDisabled,
        Rule::Unschedulable,
        Rule::Lifted,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Rule::NoSharedBuffer => "AF-NF001",
            Rule::Cycle => "AF-NF002",
            Rule::SizeCap => "AF-NF003",
            Rule::InputCap => "AF-NF004",
            Rule::AxisMismatch => "AF-NF005",
            Rule::TilingGroupConflict => "AF-NF006",
            Rule::PeakMemory => "AF-NF007",
            Rule::TransposePattern => "AF-NF008",
            Rule::ConcatPattern => "AF-NF009",
            Rule::KindDisabled => "AF-NF010",
            Rule::Unschedulable => "AF-NF011",
            Rule::Lifted => "AF-NF012",
        }
    }

    pub fn slug(self) -> &'static str {
        match self {
            Rule::NoSharedBuffer => "no-shared-buffer",
            Rule::Cycle => "cycle",
            Rule::SizeCap => "size-cap",
            Rule::InputCap => "input-cap",
            Rule::AxisMismatch => "axis-mismatch",
            Rule::TilingGroupConflict => "tiling-group-conflict",
            Rule::PeakMemory => "peak-memory",
            Rule::TransposePattern => "transpose-pattern",
            Rule::ConcatPattern => "concat-pattern",
            Rule::KindDisabled => "kind-disabled",
            Rule::Unschedulable => "unschedulable",
            Rule::Lifted => "lifted",
        }
    }

    /// What the rule demands, for documentation.
    pub fn meaning(self) -> &'static str {
        match self {
            Rule::NoSharedBuffer => {
                "the two kernels must share a GM tensor (one writes what the other reads, or \
                 both read it); fusing kernels that only have a producer in common saves nothing"
            }
            Rule::Cycle => {
                "no path may leave one kernel and re-enter the other through a third op: the \
                 fused kernel would depend on itself"
            }
            Rule::SizeCap => "the fused kernel may hold at most `max-fusion-size` original ops",
            Rule::InputCap => {
                "the fused kernel may read at most `max-inputs` GM tensors (one-element \
                 scalars such as epsilon do not count)"
            }
            Rule::AxisMismatch => {
                "the loop axes must map onto one loop nest by symbolic size through the shared \
                 tensors (a reshape that merges or splits dims maps once both sides' axes are \
                 refined to common factors; one whose extents share no chain of factors does not)"
            }
            Rule::TilingGroupConflict => {
                "the TilingGroups (x/y/r axis groups) of both kernels must merge, e.g. \
                 reductions over different axes cannot share a loop nest"
            }
            Rule::PeakMemory => {
                "siblings (horizontal fusion) more than `max-proximity` ops apart are not fused, \
                 so that fusion does not keep tensors alive longer"
            }
            Rule::TransposePattern => {
                "a kernel holding a transpose that moves the innermost axis (transposed in \
                 UB) fuses only vertically (producer to consumer) with a pointwise kernel: \
                 no reduction, no broadcast, no second such transpose, no value stored \
                 through a transposed view; a transpose that keeps the innermost axis is a \
                 strided load and fuses like one"
            }
            Rule::KindDisabled => {
                "a kernel holding an op of a kind named by the `disable` option (reduce, \
                 concat, transpose, gather, slice, pad) fuses with nothing"
            }
            Rule::Unschedulable => {
                "the fused kernel must be one the schedule pass can express for the `target` \
                 chip (the detail is the schedule's own reason, which it would otherwise give \
                 as remark AF-SC001 and leave the kernel to the interpreter); two kernels the \
                 schedule expresses alone stay two kernels rather than become one it cannot"
            }
            Rule::Lifted => {
                "a kernel left with fewer than 2 compute ops (GE's kMinComputeNodes; views do \
                 not count) goes back to its `ascend` op (option `lifting`): a view moves no \
                 data as an op, and one compute op gains no GM round trip from a loop nest of \
                 its own; its edges go through GM as the op's"
            }
            Rule::ConcatPattern => {
                "a kernel holding a concat fuses only vertically with pointwise producers and \
                 consumers and with concats along the same axis (an n-ary concat): no \
                 concats along two axes, no reduction, no transpose, no broadcast in a \
                 producer of a part of the concat axis (consumers may broadcast)"
            }
        }
    }
}

/// Why a pair of kernels is not fused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub rule: Rule,
    pub detail: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.rule.code(),
            self.rule.slug(),
            self.detail
        )
    }
}

fn refuse<T>(rule: Rule, detail: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal {
        rule,
        detail: detail.into(),
    })
}

/// A kernel call of a graph: its AscGraph and the graph values bound to its inputs
/// (by `data` index) and outputs (by `output` index).
#[derive(Clone, Debug)]
pub struct Kernel {
    pub graph: AscGraph,
    pub inputs: Vec<ValueId>,
    pub outputs: Vec<ValueId>,
}

impl Kernel {
    /// Number of original ops the kernel holds.
    pub fn op_count(&self) -> usize {
        self.graph.source_ops.len()
    }

    /// GM bytes the kernel moves: every distinct input read once, every output
    /// written once. `None` if a type has an unknown dim.
    pub fn gm_bytes(&self) -> Option<Expr> {
        kernel_gm_bytes(&self.graph, &self.inputs)
    }
}

/// GM bytes of a kernel `graph` whose inputs are bound to `inputs`: every distinct input
/// read once, every output written once. `None` if a type has an unknown dim.
fn kernel_gm_bytes(graph: &AscGraph, inputs: &[ValueId]) -> Option<Expr> {
    let mut total = Expr::constant(0);
    let mut seen = BTreeSet::new();
    for (value, ty) in inputs.iter().zip(&graph.inputs) {
        if seen.insert(*value) {
            total = total + tensor_bytes(ty)?;
        }
    }
    for ty in &graph.outputs {
        total = total + tensor_bytes(ty)?;
    }
    Some(total)
}

/// Original ops that only re-view data: GE does not count them as compute nodes.
pub const VIEW_OPS: &[&str] = &["Reshape", "Squeeze", "Unsqueeze", "BroadcastTo"];

/// GE's `kMinComputeNodes`: kernels with fewer compute ops are lifted.
pub const MIN_COMPUTE_OPS: usize = 2;

/// Original ops of a kernel that compute (everything but view ops).
pub fn compute_op_count(graph: &AscGraph) -> usize {
    graph
        .source_ops
        .iter()
        .filter(|op| !VIEW_OPS.contains(&op.as_str()))
        .count()
}

/// Bytes of a tensor in GM (`None` for an unknown dim).
pub fn tensor_bytes(ty: &TensorType) -> Option<Expr> {
    Some(ty.num_elements()? * Expr::constant(ty.dtype.bytes() as i64))
}

/// The kind prefix of a kernel name: `reduce` when it holds a reduction.
pub fn kernel_kind(graph: &AscGraph) -> &'static str {
    let reduces = graph
        .nodes
        .iter()
        .any(|n| lookup_in("ascir", &n.op).map(|s| s.category) == Some(Category::Reduce));
    if reduces {
        "reduce"
    } else {
        "pointwise"
    }
}

/// Longest kernel name, as GE's `max_op_name_len`.
pub const MAX_NAME_LEN: usize = 140;

/// `autofuse_<kind>_<number>_<Op>_<Op>...`, cut at an op boundary to at most
/// [`MAX_NAME_LEN`] characters (the number keeps names unique).
pub fn kernel_name(kind: &str, number: usize, ops: &[String]) -> String {
    let mut name = format!("autofuse_{kind}_{number}");
    for (i, op) in ops.iter().enumerate() {
        let rest = ops.len() - i;
        let more = format!("_and{rest}more");
        if name.len() + 1 + op.len() + if rest > 1 { more.len() } else { 0 } > MAX_NAME_LEN {
            name.push_str(&more);
            break;
        }
        name.push('_');
        name.push_str(op);
    }
    name
}

/// The number in `autofuse_<kind>_<number>_...`.
pub fn kernel_number(name: &str) -> Option<usize> {
    let rest = name.strip_prefix("autofuse_")?;
    let (_, rest) = rest.split_once('_')?;
    rest.split('_').next()?.parse().ok()
}

fn known_dims(ty: &TensorType) -> Result<Vec<Expr>, String> {
    ty.dims
        .iter()
        .map(|d| match d {
            Dim::Known(e) => Ok(e.clone()),
            Dim::Unknown => Err(format!("{ty} has a dim without a symbol")),
        })
        .collect()
}

fn row_major(dims: &[Expr]) -> Vec<Expr> {
    let mut strides = vec![Expr::constant(1); dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].clone() * dims[i + 1].clone();
    }
    strides
}

fn equal(env: &ShapeEnv, a: &Expr, b: &Expr) -> bool {
    a == b || env.static_check(a, Relation::Eq, b) == Tri::True
}

fn is_unit(e: &Expr) -> bool {
    e.as_const() == Some(1)
}

/// For every position of a GM `view` of a tensor of `dims`, the dim it walks: the one
/// whose extent and row-major stride the position has. Positions with repeat 1 walk no
/// dim. Fails when a position walks no dim (a view that merges or splits dims).
fn identify(view: &View, dims: &[Expr], env: &ShapeEnv) -> Result<Vec<Option<usize>>, String> {
    let strides = row_major(dims);
    let mut out = Vec::new();
    let mut used = BTreeSet::new();
    for (repeat, stride) in view.repeats.iter().zip(&view.strides) {
        if is_unit(repeat) {
            out.push(None);
            continue;
        }
        let dim = (0..dims.len()).find(|&j| {
            !used.contains(&j) && equal(env, &dims[j], repeat) && equal(env, &strides[j], stride)
        });
        match dim {
            Some(j) => {
                used.insert(j);
                out.push(Some(j));
            }
            None => {
                return Err(format!(
                    "a loop axis of extent {repeat} and stride {stride} walks no dim of the \
                     {}-d tensor [{}]",
                    dims.len(),
                    dims.iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        }
    }
    Ok(out)
}

fn axis_size(graph: &AscGraph, id: i64) -> Option<&Expr> {
    graph.axes.iter().find(|a| a.id == id).map(|a| &a.size)
}

fn nodes_with_index(graph: &AscGraph, op: &str, index: usize) -> Vec<usize> {
    graph
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.op == op && n.index == Some(index))
        .map(|(i, _)| i)
        .collect()
}

/// The `store` feeding output `index` and the UB value it stores.
fn stored_value(graph: &AscGraph, index: usize) -> Option<(usize, usize)> {
    let output = *nodes_with_index(graph, "output", index).first()?;
    let store = *graph.nodes[output].operands.first()?;
    let value = *graph.nodes.get(store)?.operands.first()?;
    Some((store, value))
}

/// Axis correspondences between the two kernels of a pair.
#[derive(Default)]
struct Pairing {
    a2b: BTreeMap<i64, i64>,
    b2a: BTreeMap<i64, i64>,
}

impl Pairing {
    fn pair(&mut self, x: i64, y: i64) -> Result<(), String> {
        match (self.a2b.get(&x), self.b2a.get(&y)) {
            (Some(&old), _) if old != y => Err(format!(
                "axis z{x} of the first kernel maps to both z{old} and z{y} of the second"
            )),
            (_, Some(&old)) if old != x => Err(format!(
                "axis z{y} of the second kernel maps to both z{old} and z{x} of the first"
            )),
            _ => {
                self.a2b.insert(x, y);
                self.b2a.insert(y, x);
                Ok(())
            }
        }
    }
}

/// Pairs the axes of two views of the same tensor through the dims they walk.
fn pair_views(
    pairing: &mut Pairing,
    va: &View,
    vb: &View,
    dims: &[Expr],
    env: &ShapeEnv,
    parts: &PartAxes,
) -> Result<(), String> {
    // Two axes that step through the tensor with the same extent and stride visit the
    // same elements: they are one loop. Every axis with a repeat other than 1 needs a
    // partner, or the two kernels walk the tensor differently.
    let mut used = vec![false; vb.axis.len()];
    let unmatched = |view: &View, position: usize, other: &View| -> String {
        // Say which view merges or splits dims (a reshape), if one does.
        for v in [other, view] {
            if let Err(e) = identify(v, dims, env) {
                return e;
            }
        }
        format!(
            "a loop axis of extent {} and stride {} has no counterpart in the other kernel",
            view.repeats[position], view.strides[position]
        )
    };
    for (pa, (ra, sa)) in va.repeats.iter().zip(&va.strides).enumerate() {
        if is_unit(ra) {
            continue;
        }
        let exact = (0..vb.axis.len()).find(|&pb| {
            !used[pb]
                && !is_unit(&vb.repeats[pb])
                && equal(env, ra, &vb.repeats[pb])
                && equal(env, sa, &vb.strides[pb])
        });
        // Slices of an input both kernels read walk a dim with its stride over a part of
        // it: they pair with a concat axis of the other side, which holds the parts.
        let partner = exact.or_else(|| {
            (0..vb.axis.len()).find(|&pb| {
                !used[pb]
                    && !is_unit(&vb.repeats[pb])
                    && equal(env, sa, &vb.strides[pb])
                    && (parts.a.contains(&va.axis[pa]) || parts.b.contains(&vb.axis[pb]))
            })
        });
        let Some(pb) = partner else {
            return Err(unmatched(va, pa, vb));
        };
        used[pb] = true;
        pairing.pair(va.axis[pa], vb.axis[pb])?;
    }
    if let Some(pb) = (0..vb.axis.len()).find(|&pb| !used[pb] && !is_unit(&vb.repeats[pb])) {
        return Err(unmatched(vb, pb, va));
    }
    Ok(())
}

/// Concat axis ids of both kernels of a pair: where views of a shared input may cover
/// different parts of a dim (empty when the views are of a tensor one side computes).
#[derive(Default)]
struct PartAxes {
    a: Vec<i64>,
    b: Vec<i64>,
}

fn concat_axis_ids(g: &AscGraph) -> Vec<i64> {
    (0..g.nodes.len())
        .filter_map(|n| Some(g.nodes[n].view.axis[g.concat_axis(n)?]))
        .collect()
}

/// The merged kernel and the size equalities that only hints decided (to be recorded
/// as `expect` guards by the caller).
#[derive(Clone, Debug)]
pub struct Merged {
    pub kernel: Kernel,
    pub hinted: Vec<(Expr, Expr)>,
}

/// Where a node of the second kernel went in the merged list.
#[derive(Clone, Copy)]
enum Placed {
    Node(usize),
    /// A `data` node of a tensor the first kernel computes: its loads become that
    /// UB value (a node of the merged list).
    Replaced(usize),
}

fn remap_view(view: &View, map: &HashMap<i64, Option<usize>>, n: usize) -> Result<View, String> {
    let mut repeats = vec![Expr::constant(1); n];
    let mut strides = vec![Expr::constant(0); n];
    for (p, axis) in view.axis.iter().enumerate() {
        let repeat = view.repeats.get(p).cloned().unwrap_or(Expr::constant(1));
        match map.get(axis) {
            Some(Some(m)) => {
                repeats[*m] = repeat;
                strides[*m] = view.strides.get(p).cloned().unwrap_or(Expr::constant(0));
            }
            _ if is_unit(&repeat) => {}
            _ => return Err(format!("axis z{axis} has no place in the merged loop nest")),
        }
    }
    Ok(View {
        axis: (0..n as i64).collect(),
        repeats,
        strides,
    })
}

/// Whether a node's view is a UB tile (dense over its repeats) rather than a GM view.
fn is_ub(op: &str) -> bool {
    // An arange's strides are offsets into the range it computes, not a tile layout.
    !matches!(op, "data" | "store" | "output" | "workspace" | "arange")
}

/// A copy of `node` with another view and operands (without cloning the old view, whose
/// symbolic expressions are the bulk of a node).
fn node_with(node: &AscNode, view: View, operands: Vec<usize>) -> AscNode {
    AscNode {
        op: node.op.clone(),
        operands,
        dtype: node.dtype,
        view,
        attrs: node.attrs.clone(),
        index: node.index,
        loc: node.loc.clone(),
    }
}

/// Merges kernel `b` into kernel `a` (`a` first in program order: `b` may read `a`'s
/// outputs, never the reverse). `keep(v)` says whether an output value must still be
/// written to GM (someone outside the pair reads it, or the graph returns it).
/// `number` is the kernel number of the result's name.
pub fn merge_kernels(
    a: &Kernel,
    b: &Kernel,
    keep: &dyn Fn(ValueId) -> bool,
    env: &ShapeEnv,
    number: usize,
) -> Result<Merged, Refusal> {
    let mut merged = merge_checked(&mut a.clone(), b, keep, env)?;
    let graph = &mut merged.kernel.graph;
    graph.name = kernel_name(kernel_kind(graph), number, &graph.source_ops);
    Ok(merged)
}

/// [`merge_kernels`] taking `a`'s nodes and leaving the result unnamed: on success the
/// nodes have moved into the result (what is left of `a` is to be dropped); a refusal
/// leaves `a` unchanged.
fn merge_checked(
    a: &mut Kernel,
    b: &Kernel,
    keep: &dyn Fn(ValueId) -> bool,
    env: &ShapeEnv,
) -> Result<Merged, Refusal> {
    // Kernels on both sides of a reshape that merges or splits dims: their axes refined
    // to the common factors of both views of the shared tensor (`reshape_axes`).
    if let Some((mut refined_a, refined_b)) =
        super::reshape_axes::refine_through_reshapes(a, b, env)
    {
        if let Ok(merged) = merge_walking_dims(&mut refined_a, &refined_b, keep, env) {
            return Ok(merged);
        }
    }
    merge_walking_dims(a, b, keep, env)
}

/// [`merge_checked`] for kernels whose axes already walk the shared tensors' dims alike.
fn merge_walking_dims(
    a: &mut Kernel,
    b: &Kernel,
    keep: &dyn Fn(ValueId) -> bool,
    env: &ShapeEnv,
) -> Result<Merged, Refusal> {
    let mut pairing = pair_through_shared_tensors(a, b, env)?;
    let hinted = pair_leftover_axes(a, b, env, &mut pairing)?;
    let base_is_a = first_nest_is_base(a, b, &pairing)?;
    let nest = MergedNest::new(a, b, &pairing, base_is_a);
    let spliced = NodeSplice::new(a, b, env, nest.axes.len()).splice(&nest, base_is_a)?;
    let a_len = a.graph.nodes.len();
    let a_nodes: Vec<usize> = (0..a_len).collect();
    let source_ops: Vec<String> = a
        .graph
        .source_ops
        .iter()
        .chain(&b.graph.source_ops)
        .cloned()
        .collect();
    let mut nodes = if spliced.a_in_place {
        std::mem::take(&mut a.graph.nodes)
    } else {
        spliced.a_copies
    };
    nodes.extend(spliced.b_copies);
    let mut graph = AscGraph {
        name: String::new(),
        axes: nest.axes,
        sizes: Vec::new(),
        inputs: Vec::new(),
        outputs: Vec::new(),
        nodes,
        source_ops,
    };
    if let Some(e) = tiling_group_conflict(&graph, &a_nodes, &spliced.b_nodes) {
        if spliced.a_in_place {
            // Give `a` its nodes back, unchanged.
            graph.nodes.truncate(a_len);
            a.graph.nodes = graph.nodes;
        }
        return refuse(Rule::TilingGroupConflict, e.to_string());
    }
    // Nothing below can refuse: `a`'s nodes may have moved into the result.
    let bound = &spliced.bound;
    let mut live = live_nodes(&graph, bound, keep);
    merge_equal_nodes(&mut graph, bound, &mut live);
    let (inputs, outputs) = compact_nodes(&mut graph, bound, &live);
    // Every bound value has a type (checked when the nodes were spliced).
    graph.inputs = inputs
        .iter()
        .filter_map(|v| spliced.input_types.get(v).cloned())
        .collect();
    graph.outputs = outputs
        .iter()
        .filter_map(|v| spliced.output_types.get(v).cloned())
        .collect();
    graph.sizes = size_symbols(&graph);
    extract_shared_slices(&mut graph);
    Ok(Merged {
        kernel: Kernel {
            graph,
            inputs,
            outputs,
        },
        hinted,
    })
}

/// A refusal by [`Rule::AxisMismatch`].
fn axis_mismatch(detail: String) -> Refusal {
    Refusal {
        rule: Rule::AxisMismatch,
        detail,
    }
}

/// Pairs the axes of the two kernels through the tensors they share: the tensor `a`
/// stores and `b` loads, or an input both load.
fn pair_through_shared_tensors(a: &Kernel, b: &Kernel, env: &ShapeEnv) -> Result<Pairing, Refusal> {
    let mut pairing = Pairing::default();
    for (j, v) in b.inputs.iter().enumerate() {
        let Some(ty) = b.graph.inputs.get(j) else {
            continue;
        };
        let dims = known_dims(ty).map_err(axis_mismatch)?;
        let mut parts = PartAxes::default();
        let a_views: Vec<View> = if let Some(k) = a.outputs.iter().position(|o| o == v) {
            let Some((store, _)) = stored_value(&a.graph, k) else {
                return refuse(Rule::AxisMismatch, format!("output #{k} is never stored"));
            };
            vec![a.graph.nodes[store].view.clone()]
        } else if let Some(i) = a.inputs.iter().position(|x| x == v) {
            parts = PartAxes {
                a: concat_axis_ids(&a.graph),
                b: concat_axis_ids(&b.graph),
            };
            nodes_with_index(&a.graph, "data", i)
                .into_iter()
                .map(|d| a.graph.nodes[d].view.clone())
                .collect()
        } else {
            continue;
        };
        for db in nodes_with_index(&b.graph, "data", j) {
            for va in &a_views {
                pair_views(
                    &mut pairing,
                    va,
                    &b.graph.nodes[db].view,
                    &dims,
                    env,
                    &parts,
                )
                .map_err(|e| axis_mismatch(format!("through the shared tensor {ty}: {e}")))?;
            }
        }
    }
    Ok(pairing)
}

/// Pairs the axes left over on both sides by size, in loop order: sizes provably
/// equal, or equal under the hints. The pairs only hints decided, as size equalities.
fn pair_leftover_axes(
    a: &Kernel,
    b: &Kernel,
    env: &ShapeEnv,
    pairing: &mut Pairing,
) -> Result<Vec<(Expr, Expr)>, Refusal> {
    let mut hinted = Vec::new();
    let unpaired = |g: &AscGraph, paired: &BTreeMap<i64, i64>| -> Vec<i64> {
        g.axes
            .iter()
            .filter(|x| !is_unit(&x.size) && !paired.contains_key(&x.id))
            .map(|x| x.id)
            .collect()
    };
    let a_left = unpaired(&a.graph, &pairing.a2b);
    let b_left = unpaired(&b.graph, &pairing.b2a);
    let mut start = 0;
    for x in a_left {
        let Some(sx) = axis_size(&a.graph, x).cloned() else {
            continue;
        };
        for (k, &y) in b_left.iter().enumerate().skip(start) {
            let Some(sy) = axis_size(&b.graph, y).cloned() else {
                continue;
            };
            let by_hint = match env.static_check(&sx, Relation::Eq, &sy) {
                Tri::True => false,
                Tri::False => continue,
                Tri::Unknown => match (env.hint_eval(&sx), env.hint_eval(&sy)) {
                    (Some(p), Some(q)) if p == q => true,
                    _ => continue,
                },
            };
            pairing.pair(x, y).map_err(axis_mismatch)?;
            if by_hint {
                hinted.push((sx.clone(), sy));
            }
            start = k + 1;
            break;
        }
    }
    Ok(hinted)
}

/// Whether `a`'s loop nest is the merged one (else `b`'s): one nest must contain the
/// other; when each contains the other, the nest of a concat or transpose kernel wins,
/// else the longer one.
fn first_nest_is_base(a: &Kernel, b: &Kernel, pairing: &Pairing) -> Result<bool, Refusal> {
    let all_paired = |g: &AscGraph, paired: &BTreeMap<i64, i64>| {
        g.axes
            .iter()
            .all(|x| is_unit(&x.size) || paired.contains_key(&x.id))
    };
    let a_inside = all_paired(&a.graph, &pairing.a2b);
    let b_inside = all_paired(&b.graph, &pairing.b2a);
    Ok(match (a_inside, b_inside) {
        // A chain of concats: the consumer's joins the producer's result with more.
        (true, true) if holds_concat(&a.graph) && holds_concat(&b.graph) => false,
        // A concat kernel's nest holds the whole concat axis; the other side walks a part.
        (true, true) if holds_concat(&a.graph) != holds_concat(&b.graph) => holds_concat(&a.graph),
        // A transpose kernel's nest is its result's: stores stay contiguous.
        (true, true) if holds_transpose(&a.graph) != holds_transpose(&b.graph) => {
            holds_transpose(&a.graph)
        }
        (true, true) => a.graph.axes.len() >= b.graph.axes.len(),
        (false, true) => true,
        (true, false) => false,
        (false, false) => {
            let nest = |g: &AscGraph| {
                g.axes
                    .iter()
                    .map(|x| format!("z{}:{}", x.id, x.size))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return refuse(
                Rule::AxisMismatch,
                format!(
                    "the loop nests ({}) and ({}) do not map onto one: each has an axis the other lacks",
                    nest(&a.graph),
                    nest(&b.graph)
                ),
            );
        }
    })
}

/// The merged loop nest (the base kernel's axes, renumbered) and where every axis of
/// each kernel goes in it (`None`: an axis of size 1 with no partner).
struct MergedNest {
    axes: Vec<Axis>,
    a_map: HashMap<i64, Option<usize>>,
    b_map: HashMap<i64, Option<usize>>,
}

impl MergedNest {
    /// The nest of `a` (`base_is_a`) or `b`, with the other's axes mapped through `pairing`.
    fn new(a: &Kernel, b: &Kernel, pairing: &Pairing, base_is_a: bool) -> MergedNest {
        let (base, other_pairs) = if base_is_a {
            (&a.graph, &pairing.b2a)
        } else {
            (&b.graph, &pairing.a2b)
        };
        let axes: Vec<Axis> = base
            .axes
            .iter()
            .enumerate()
            .map(|(i, x)| Axis {
                id: i as i64,
                name: format!("z{i}"),
                size: x.size.clone(),
                kind: AxisKind::Original,
                from: Vec::new(),
            })
            .collect();
        let base_pos: HashMap<i64, usize> = base
            .axes
            .iter()
            .enumerate()
            .map(|(i, x)| (x.id, i))
            .collect();
        let other = if base_is_a { &b.graph } else { &a.graph };
        let other_map: HashMap<i64, Option<usize>> = other
            .axes
            .iter()
            .map(|x| {
                (
                    x.id,
                    other_pairs
                        .get(&x.id)
                        .and_then(|id| base_pos.get(id).copied()),
                )
            })
            .collect();
        let base_map: HashMap<i64, Option<usize>> =
            base_pos.iter().map(|(&id, &p)| (id, Some(p))).collect();
        let (a_map, b_map) = if base_is_a {
            (base_map, other_map)
        } else {
            (other_map, base_map)
        };
        MergedNest { axes, a_map, b_map }
    }
}

/// Assembles the merged node list: `a`'s nodes, then `b`'s, reading `a`'s values
/// directly, all in the merged loop nest.
struct NodeSplice<'k> {
    a: &'k Kernel,
    b: &'k Kernel,
    env: &'k ShapeEnv,
    /// The number of axes of the merged loop nest.
    n: usize,
    /// The last dense UB tile made: most UB tiles of a kernel have one shape, so their
    /// dense strides are computed once.
    last_tile: Option<View>,
    /// The graph value bound to a data or output node; every one must have a value and
    /// a type (checked here, before anything is moved, so that later steps cannot fail).
    bound: Vec<Option<ValueId>>,
    input_types: HashMap<ValueId, TensorType>,
    output_types: HashMap<ValueId, TensorType>,
}

/// The node list [`NodeSplice`] assembled.
struct Spliced {
    /// When `a`'s loop nest is the merged one, axis for axis, and its tiles are already
    /// dense, remapping leaves its nodes unchanged: they move into the result instead
    /// of being copied.
    a_in_place: bool,
    /// `a`'s nodes remapped (empty when they move in place).
    a_copies: Vec<AscNode>,
    /// `b`'s nodes remapped, except data nodes of `a`'s results and the loads of them.
    b_copies: Vec<AscNode>,
    /// Positions of `b`'s nodes in the merged list.
    b_nodes: Vec<usize>,
    bound: Vec<Option<ValueId>>,
    input_types: HashMap<ValueId, TensorType>,
    output_types: HashMap<ValueId, TensorType>,
}

impl<'k> NodeSplice<'k> {
    /// A splice of `a` and `b` into a loop nest of `n` axes.
    fn new(a: &'k Kernel, b: &'k Kernel, env: &'k ShapeEnv, n: usize) -> NodeSplice<'k> {
        NodeSplice {
            a,
            b,
            env,
            n,
            last_tile: None,
            bound: Vec::with_capacity(a.graph.nodes.len() + b.graph.nodes.len()),
            input_types: HashMap::new(),
            output_types: HashMap::new(),
        }
    }

    /// The merged node list in `nest` (`base_is_a`: `a`'s nest is the merged one), with
    /// the values bound to its data and output nodes.
    fn splice(mut self, nest: &MergedNest, base_is_a: bool) -> Result<Spliced, Refusal> {
        let a = self.a;
        let nest_ids: Vec<i64> = (0..self.n as i64).collect();
        let a_in_place = base_is_a
            && a.graph
                .axes
                .iter()
                .map(|x| x.id)
                .eq(nest_ids.iter().copied())
            && a.graph.nodes.iter().all(|node| {
                node.view.axis == nest_ids && (!is_ub(&node.op) || self.is_dense(&node.view))
            });
        let a_copies: Vec<AscNode> = if a_in_place {
            Vec::new()
        } else {
            let mut copies = Vec::with_capacity(a.graph.nodes.len());
            for node in &a.graph.nodes {
                copies.push(node_with(
                    node,
                    self.remap(node, &nest.a_map)?,
                    node.operands.clone(),
                ));
            }
            copies
        };
        for node in &a.graph.nodes {
            let value = self.bind(node, a)?;
            self.bound.push(value);
        }
        // Nodes of `a` as they appear in the result.
        let a_result: &[AscNode] = if a_in_place {
            &a.graph.nodes
        } else {
            &a_copies
        };
        let (b_nodes, b_copies) = self.splice_b(&nest.b_map, a_result)?;
        Ok(Spliced {
            a_in_place,
            a_copies,
            b_copies,
            b_nodes,
            bound: self.bound,
            input_types: self.input_types,
            output_types: self.output_types,
        })
    }

    /// `b`'s nodes in the merged loop nest, after `a`'s nodes (`a_result`): the loads of
    /// a tensor `a` computes become `a`'s UB value. Their positions and the nodes.
    fn splice_b(
        &mut self,
        b_map: &HashMap<i64, Option<usize>>,
        a_result: &[AscNode],
    ) -> Result<(Vec<usize>, Vec<AscNode>), Refusal> {
        let (a, b) = (self.a, self.b);
        let a_len = a.graph.nodes.len();
        let mut b_nodes = Vec::new();
        let mut b_copies: Vec<AscNode> = Vec::new();
        let mut b_at: Vec<Placed> = Vec::with_capacity(b.graph.nodes.len());
        for (i, node) in b.graph.nodes.iter().enumerate() {
            if let ("data", Some(j)) = (node.op.as_str(), node.index) {
                let v = b.inputs.get(j).copied();
                if let Some(k) = v.and_then(|v| a.outputs.iter().position(|o| *o == v)) {
                    let Some((_, value)) = stored_value(&a.graph, k) else {
                        return refuse(Rule::AxisMismatch, format!("output #{k} is never stored"));
                    };
                    b_at.push(Placed::Replaced(value));
                    continue;
                }
            }
            let mut replaced_operand = None;
            let mut operands = Vec::new();
            for &o in &node.operands {
                match b_at.get(o) {
                    Some(Placed::Node(m)) => operands.push(*m),
                    Some(Placed::Replaced(m)) => {
                        replaced_operand = Some(*m);
                        operands.push(*m);
                    }
                    None => {
                        return refuse(Rule::AxisMismatch, format!("node {i} has a bad operand"))
                    }
                }
            }
            let view = self.remap(node, b_map)?;
            if let Some(value) = replaced_operand {
                reads_computed_tile(node, &view, &a_result[value], self.env)?;
                b_at.push(Placed::Node(value));
                continue;
            }
            let value = self.bind(node, b)?;
            self.bound.push(value);
            let at = a_len + b_copies.len();
            b_at.push(Placed::Node(at));
            b_nodes.push(at);
            b_copies.push(node_with(node, view, operands));
        }
        Ok((b_nodes, b_copies))
    }

    /// The dense UB tile of `view`'s repeats.
    fn dense(&mut self, view: View) -> View {
        if let Some(tile) = self
            .last_tile
            .as_ref()
            .filter(|t| t.repeats == view.repeats)
        {
            return tile.clone();
        }
        let tile = View::contiguous(view.axis, view.repeats);
        self.last_tile = Some(tile.clone());
        tile
    }

    /// Whether a UB tile's strides are the dense ones of its repeats (without copying it).
    fn is_dense(&mut self, view: &View) -> bool {
        if let Some(tile) = self
            .last_tile
            .as_ref()
            .filter(|t| t.repeats == view.repeats)
        {
            return tile.strides == view.strides;
        }
        let tile = View::contiguous(view.axis.clone(), view.repeats.clone());
        let dense = tile.strides == view.strides;
        self.last_tile = Some(tile);
        dense
    }

    /// `node`'s view in the merged loop nest (`map`: its kernel's axes there).
    fn remap(
        &mut self,
        node: &AscNode,
        map: &HashMap<i64, Option<usize>>,
    ) -> Result<View, Refusal> {
        let view = remap_view(&node.view, map, self.n).map_err(axis_mismatch)?;
        Ok(if is_ub(&node.op) {
            self.dense(view)
        } else {
            view
        })
    }

    /// The graph value bound to a data or output node of kernel `k` (recording its type).
    fn bind(&mut self, node: &AscNode, k: &Kernel) -> Result<Option<ValueId>, Refusal> {
        let (values, types, known) = match node.op.as_str() {
            "data" => (&k.inputs, &k.graph.inputs, &mut self.input_types),
            "output" => (&k.outputs, &k.graph.outputs, &mut self.output_types),
            _ => return Ok(None),
        };
        let index = node.index.unwrap_or(usize::MAX);
        match (values.get(index), types.get(index)) {
            (Some(&v), Some(t)) => {
                known.entry(v).or_insert_with(|| t.clone());
                Ok(Some(v))
            }
            _ => Err(axis_mismatch(format!(
                "a {} node without a kernel {} and its type",
                node.op,
                if node.op == "data" { "input" } else { "output" }
            ))),
        }
    }
}

/// Checks that a node of the consumer reading the producer's tensor (now `computed`,
/// the producer's UB value) is a load of exactly the tile the producer computes (`view`:
/// the load's view in the merged nest).
fn reads_computed_tile(
    node: &AscNode,
    view: &View,
    computed: &AscNode,
    env: &ShapeEnv,
) -> Result<(), Refusal> {
    let offset_zero = node
        .attrs
        .iter()
        .find(|(k, _)| k == "offset")
        .is_none_or(|(_, v)| v == "\"0\"");
    let same_tile = computed.view.repeats.len() == view.repeats.len()
        && computed
            .view
            .repeats
            .iter()
            .zip(&view.repeats)
            .all(|(p, q)| equal(env, p, q));
    if node.op != "load" || !offset_zero || !same_tile || computed.dtype != node.dtype {
        return refuse(
            Rule::AxisMismatch,
            format!(
                "the consumer reads the tensor as [{}] but the producer computes [{}]",
                view.repeats
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                computed
                    .view
                    .repeats
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
    Ok(())
}

/// Why the TilingGroups of the two kernels' nodes (`a_nodes`, `b_nodes` of the merged
/// `graph`) do not merge, if they do not.
fn tiling_group_conflict(
    graph: &AscGraph,
    a_nodes: &[usize],
    b_nodes: &[usize],
) -> Option<tiling_group::GroupConflict> {
    let group_of = |part: &[usize]| tiling_group::graph_group(graph, Some(part), Mode::CanFuse);
    match (group_of(a_nodes), group_of(b_nodes)) {
        (Ok(ga), Ok(gb)) => tiling_group::merge(&ga, &gb, Mode::CanFuse).err(),
        (Err(e), _) | (_, Err(e)) => Some(e),
    }
}

/// The nodes that compute an output someone outside the pair needs (`keep`), or that
/// such nodes read.
fn live_nodes(
    graph: &AscGraph,
    bound: &[Option<ValueId>],
    keep: &dyn Fn(ValueId) -> bool,
) -> Vec<bool> {
    let mut live = vec![false; graph.nodes.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, node) in graph.nodes.iter().enumerate() {
        if node.op == "output" && bound[i].is_none_or(keep) {
            stack.push(i);
        }
    }
    while let Some(i) = stack.pop() {
        if live[i] {
            continue;
        }
        live[i] = true;
        stack.extend(graph.nodes[i].operands.iter().copied());
    }
    live
}

/// Common subexpressions (shared data/load of inputs both sides read): the first of
/// equal pure live nodes stands for all; the others are no longer live. Stores and
/// outputs are never merged.
fn merge_equal_nodes(graph: &mut AscGraph, bound: &[Option<ValueId>], live: &mut [bool]) {
    let mut replacement: Vec<usize> = (0..graph.nodes.len()).collect();
    // Equal nodes are found by a hash of their fields, then compared field by field:
    // views are canonical (expressions in canonical form), so structural equality is
    // equality of the printed IR.
    let data_binding = |i: usize, node: &AscNode| if node.op == "data" { bound[i] } else { None };
    // First node per hash; nodes whose hash collides with an unequal node go to a list.
    let mut seen: HashMap<u64, usize> = HashMap::with_capacity(graph.nodes.len());
    let mut collided: Vec<(u64, usize)> = Vec::new();
    for i in 0..graph.nodes.len() {
        if !live[i] {
            continue;
        }
        for o in graph.nodes[i].operands.iter_mut() {
            *o = replacement[*o];
        }
        let node = &graph.nodes[i];
        if matches!(node.op.as_str(), "store" | "output") {
            continue;
        }
        let binding = data_binding(i, node);
        // The view is left out of the hash (hashing symbolic expressions is slow);
        // the field-by-field comparison below still tells views apart.
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (&node.op, &node.operands, node.dtype, &node.attrs, binding).hash(&mut hasher);
        let key = hasher.finish();
        let equal_node = |j: usize| {
            let other = &graph.nodes[j];
            other.op == node.op
                && other.operands == node.operands
                && other.dtype == node.dtype
                && other.view == node.view
                && other.attrs == node.attrs
                && data_binding(j, other) == binding
        };
        let same = match seen.get(&key) {
            None => None,
            Some(&j) if equal_node(j) => Some(j),
            Some(_) => collided
                .iter()
                .filter(|(k, _)| *k == key)
                .map(|&(_, j)| j)
                .find(|&j| equal_node(j)),
        };
        match same {
            Some(first) => {
                replacement[i] = first;
                live[i] = false;
            }
            None if seen.contains_key(&key) => collided.push((key, i)),
            None => {
                seen.insert(key, i);
            }
        }
    }
}

/// Drops the nodes that are not live and renumbers the rest, the data and output nodes
/// by their bound values: the kernel's inputs and outputs.
fn compact_nodes(
    graph: &mut AscGraph,
    bound: &[Option<ValueId>],
    live: &[bool],
) -> (Vec<ValueId>, Vec<ValueId>) {
    let mut new_index = vec![usize::MAX; graph.nodes.len()];
    let mut kept_nodes = Vec::with_capacity(graph.nodes.len());
    let mut inputs: Vec<ValueId> = Vec::new();
    let mut outputs: Vec<ValueId> = Vec::new();
    for (i, mut node) in std::mem::take(&mut graph.nodes).into_iter().enumerate() {
        if !live[i] {
            continue;
        }
        for o in node.operands.iter_mut() {
            *o = new_index[*o];
        }
        // Data and output nodes have a bound value (checked when they were spliced).
        match (node.op.as_str(), bound[i]) {
            ("data", Some(v)) => {
                let index = inputs.iter().position(|x| *x == v).unwrap_or_else(|| {
                    inputs.push(v);
                    inputs.len() - 1
                });
                node.index = Some(index);
            }
            ("output", Some(v)) => {
                outputs.push(v);
                node.index = Some(outputs.len() - 1);
            }
            _ => {}
        }
        new_index[i] = kept_nodes.len();
        kept_nodes.push(node);
    }
    graph.nodes = kept_nodes;
    (inputs, outputs)
}

/// The size symbols of a kernel: of its axes, tensor types, views, load offsets and
/// arange terms.
fn size_symbols(graph: &AscGraph) -> Vec<String> {
    let mut sizes = BTreeSet::new();
    for axis in &graph.axes {
        axis.size.collect_symbols(&mut sizes);
    }
    for ty in graph.inputs.iter().chain(&graph.outputs) {
        for dim in &ty.dims {
            if let Dim::Known(e) = dim {
                e.collect_symbols(&mut sizes);
            }
        }
    }
    for node in &graph.nodes {
        for e in node.view.repeats.iter().chain(&node.view.strides) {
            e.collect_symbols(&mut sizes);
        }
        if node.op == "load" {
            if let Ok(offset) = node.gm_offset() {
                offset.collect_symbols(&mut sizes);
            }
        }
        if node.op == "arange" {
            if let Ok((start, delta)) = node.arange_terms() {
                start.collect_symbols(&mut sizes);
                delta.collect_symbols(&mut sizes);
            }
        }
    }
    sizes.into_iter().collect()
}

/// Loads of a part of an input that the kernel also loads whole along the part's axis
/// (a concat axis: whole in every tile) take the part from the whole tile in UB
/// (`ascir.extract_slice`) instead of reading GM again: rotary embeddings read `x` whole
/// and as two halves, and the halves then cost no GM traffic. A part that starts inside
/// a 32-byte block of the innermost axis keeps its load (UB copies start at blocks).
fn extract_shared_slices(graph: &mut AscGraph) {
    let concat_axes: Vec<usize> = (0..graph.nodes.len())
        .filter_map(|n| graph.concat_axis(n))
        .collect();
    if concat_axes.is_empty() {
        return;
    }
    let innermost = graph.axes.iter().rposition(|a| !is_unit(&a.size));
    let mut changed = false;
    for part in 0..graph.nodes.len() {
        let Some(found) = (0..graph.nodes.len()).find_map(|whole| {
            shared_slice(graph, part, whole, &concat_axes, innermost).map(|s| (whole, s))
        }) else {
            continue;
        };
        let (whole, (axis, start)) = found;
        let node = &graph.nodes[part];
        graph.nodes[part] = AscNode {
            op: "extract_slice".into(),
            operands: vec![whole],
            dtype: node.dtype,
            view: node.view.clone(),
            attrs: vec![
                ("axis".into(), format!("{axis} : i64")),
                ("offset".into(), quote(&start.to_string())),
            ],
            index: None,
            loc: node.loc.clone(),
        };
        changed = true;
    }
    if changed {
        reorder_operands_first(graph);
    }
}

/// Whether load `part` reads a part of what load `whole` reads, along one concat axis
/// and nowhere else: the axis position and the index the part starts at.
fn shared_slice(
    graph: &AscGraph,
    part: usize,
    whole: usize,
    concat_axes: &[usize],
    innermost: Option<usize>,
) -> Option<(usize, Expr)> {
    let (p, w) = (graph.nodes.get(part)?, graph.nodes.get(whole)?);
    if part == whole || p.op != "load" || w.op != "load" || p.dtype != w.dtype {
        return None;
    }
    let (dp, dw) = (
        graph.nodes.get(*p.operands.first()?)?,
        graph.nodes.get(*w.operands.first()?)?,
    );
    if dp.op != "data" || dw.op != "data" || dp.index != dw.index || dp.index.is_none() {
        return None;
    }
    let (vp, vw) = (&dp.view, &dw.view);
    if vp.strides != vw.strides || vp.repeats.len() != vw.repeats.len() {
        return None;
    }
    let differing: Vec<usize> = (0..vp.repeats.len())
        .filter(|&k| vp.repeats[k] != vw.repeats[k])
        .collect();
    let [axis] = differing.as_slice() else {
        return None;
    };
    let axis = *axis;
    if !concat_axes.contains(&axis) || vw.repeats[axis] != graph.axes.get(axis)?.size {
        return None;
    }
    let distance = p.gm_offset().ok()? - w.gm_offset().ok()?;
    let stride = &vw.strides[axis];
    let start = if is_unit(stride) {
        distance
    } else {
        let (d, s) = (distance.as_const()?, stride.as_const()?);
        if s == 0 || d % s != 0 {
            return None;
        }
        Expr::constant(d / s)
    };
    if start.as_const().is_some_and(|v| v < 0) {
        return None;
    }
    if Some(axis) == innermost {
        // UB rows start at 32-byte blocks; bool tiles are half in UB, u8 in GM.
        let bytes = start.as_const()? * p.dtype.bytes() as i64;
        if p.dtype == autofuse_ir::graph::DType::Bool || bytes % 32 != 0 {
            return None;
        }
    }
    Some((axis, start))
}

/// Puts every node after its operands (a rewrite may have made a node read a later
/// one), keeping the order otherwise, and drops `data` nodes nothing reads any more.
fn reorder_operands_first(graph: &mut AscGraph) {
    let count = graph.nodes.len();
    let mut used = vec![false; count];
    for node in &graph.nodes {
        for &o in &node.operands {
            if let Some(u) = used.get_mut(o) {
                *u = true;
            }
        }
    }
    let mut placed = vec![false; count];
    let mut order = Vec::with_capacity(count);
    fn place(n: usize, graph: &AscGraph, placed: &mut [bool], order: &mut Vec<usize>) {
        if placed[n] {
            return;
        }
        placed[n] = true;
        for &o in &graph.nodes[n].operands {
            if o < placed.len() {
                place(o, graph, placed, order);
            }
        }
        order.push(n);
    }
    for n in 0..count {
        if graph.nodes[n].op == "data" && !used[n] {
            placed[n] = true;
        }
        place(n, graph, &mut placed, &mut order);
    }
    let mut new_index = vec![usize::MAX; count];
    for (i, &n) in order.iter().enumerate() {
        new_index[n] = i;
    }
    let mut old: Vec<Option<AscNode>> = std::mem::take(&mut graph.nodes)
        .into_iter()
        .map(Some)
        .collect();
    graph.nodes = order
        .iter()
        .filter_map(|&n| old[n].take())
        .map(|mut node| {
            for o in node.operands.iter_mut() {
                *o = new_index[*o];
            }
            node
        })
        .collect();
}

/// One op of a graph function, as the planner sees it.
#[derive(Clone, Debug)]
pub struct Unit {
    /// A readable name: the kernel name, or the op name.
    pub label: String,
    pub inputs: Vec<ValueId>,
    pub outputs: Vec<ValueId>,
    /// The kernel of a kernel call (its AscGraph bound to `inputs` and `outputs`);
    /// `None` for every other op (never fused).
    pub kernel: Option<Kernel>,
}

/// A graph function: its ops in program order, the values it returns and the type of
/// every value.
#[derive(Clone, Debug, Default)]
pub struct FuncModel {
    pub units: Vec<Unit>,
    pub returns: Vec<ValueId>,
    pub types: Vec<Option<TensorType>>,
    /// The number of every value `sink-constants` will move into the kernels reading it
    /// (one-element constants), by value; shorter than `types` when unknown.
    pub sinkable: Vec<Option<f64>>,
}

/// The op kinds the `disable` option may name (GE's `--autofuse_disable_pass`): a kernel
/// holding such an op stays a kernel of its own.
pub const FUSION_KINDS: [&str; 6] = ["reduce", "concat", "transpose", "gather", "slice", "pad"];

/// The kind of a kernel's source op (its AscIR name, `ReduceSum`), if `disable` can name it.
pub fn fusion_kind(op: &str) -> Option<&'static str> {
    let kind = if op.starts_with("Reduce") {
        "reduce"
    } else if op.starts_with("Gather") {
        "gather"
    } else {
        match op {
            "Concat" => "concat",
            "Transpose" => "transpose",
            "Slice" | "Split" => "slice",
            "Pad" => "pad",
            _ => return None,
        }
    };
    Some(kind)
}

/// The limits of the solver (all pass options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_fusion_size: usize,
    pub max_inputs: usize,
    pub max_rounds: usize,
    /// Largest distance in program order of two siblings fused horizontally; 0 = none.
    pub max_proximity: usize,
    /// Bit i set: kernels holding an op of kind `FUSION_KINDS[i]` fuse with nothing.
    pub disabled: u8,
    /// The chip whose schedule every fused kernel must fit (rule AF-NF011).
    pub target: &'static str,
}

impl Limits {
    /// Whether fusion leaves kernels holding an op of `kind` alone.
    pub fn disables(&self, kind: &str) -> bool {
        FUSION_KINDS
            .iter()
            .position(|k| *k == kind)
            .is_some_and(|i| self.disabled & (1 << i) != 0)
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_fusion_size: 64,
            max_inputs: 8,
            max_rounds: 10,
            max_proximity: 64,
            disabled: 0,
            target: autofuse_ascir::chip::DEFAULT_TARGET,
        }
    }
}

/// One attempted pair, in the order the solver tried it.
#[derive(Clone, Debug)]
pub struct Decision {
    pub round: usize,
    /// Position in the whole sequence of attempts.
    pub order: usize,
    /// Units (indices into `FuncModel::units`) of the first and second kernel.
    pub first: Vec<usize>,
    pub second: Vec<usize>,
    pub first_name: String,
    pub second_name: String,
    /// Producer-consumer (true) or siblings (false).
    pub vertical: bool,
    /// GM bytes the fusion saves, and their value under the hints.
    pub saved: Expr,
    pub saved_hint: Option<i64>,
    /// Distance of the two kernels in program order.
    pub proximity: usize,
    /// The fused kernel's name, or why not.
    pub outcome: Result<String, Refusal>,
}

/// A kernel of the result: the units it replaces and its AscGraph.
#[derive(Clone, Debug)]
pub struct FinalKernel {
    pub members: Vec<usize>,
    pub kernel: Kernel,
}

#[derive(Clone, Debug)]
pub struct Plan {
    /// Every kernel after fusion (fused or not), in program order of first member.
    pub kernels: Vec<FinalKernel>,
    pub decisions: Vec<Decision>,
    /// Size equalities decided by hints (record as `expect` guards).
    pub hinted: Vec<(Expr, Expr)>,
    /// Rounds that ran.
    pub rounds: usize,
}

impl Plan {
    /// Splits kernel `index` back into the kernels of its members as the model has
    /// them (for lifting a fused kernel that computes too little).
    pub fn unfuse(&mut self, index: usize, model: &FuncModel) {
        if index >= self.kernels.len() {
            return;
        }
        let fused = self.kernels.remove(index);
        for &u in &fused.members {
            let unit = &model.units[u];
            if let Some(kernel) = &unit.kernel {
                self.kernels.push(FinalKernel {
                    members: vec![u],
                    kernel: kernel.clone(),
                });
            }
        }
        self.kernels
            .sort_by_key(|k| k.members.first().copied().unwrap_or(0));
    }

    /// Whether two units ended in the same kernel.
    pub fn together(&self, a: usize, b: usize) -> bool {
        self.kernels
            .iter()
            .any(|k| k.members.contains(&a) && k.members.contains(&b))
    }
}

/// GM traffic of all kernels of a function, symbolic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Traffic {
    pub before: Expr,
    pub after: Expr,
    /// Inputs of the kernels read once, results needed outside them written once.
    pub minimum: Expr,
}

struct Group<'m> {
    members: Vec<usize>,
    kernel: Option<Cow<'m, Kernel>>,
    label: String,
}

struct Solver<'m> {
    model: &'m FuncModel,
    /// The GM byte count of every value, as an index into `byte_sizes` (computed once:
    /// symbolic products are not cheap, and most values of a graph share a few sizes).
    byte_class: Vec<usize>,
    byte_sizes: Vec<Expr>,
    /// `byte_sizes[class] * times`, by (class, times): pair scores repeat these.
    scaled_sizes: RefCell<HashMap<(usize, i64), Expr>>,
    /// Position of every group in a topological order of the live groups.
    order: Vec<usize>,
    /// The live group at each position of `order` (gaps where groups merged).
    slots: Vec<Option<usize>>,
    producer: Vec<Option<usize>>,
    consumers: Vec<Vec<usize>>,
    returned: Vec<bool>,
    group_of: Vec<usize>,
    groups: Vec<Group<'m>>,
}

impl Solver<'_> {
    fn live(&self) -> Vec<usize> {
        let mut ids: Vec<usize> = self.group_of.clone();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The program position of a group: its first member (members are kept sorted).
    fn pos(&self, g: usize) -> usize {
        self.groups[g].members.first().copied().unwrap_or(0)
    }

    /// The graph values a group reads (a group without a kernel lists its members'
    /// inputs, repeats included).
    fn inputs(&self, g: usize) -> Cow<'_, [ValueId]> {
        self.values_of(g, |unit| &unit.inputs, |kernel| &kernel.inputs)
    }

    /// The graph values a group writes.
    fn outputs(&self, g: usize) -> Cow<'_, [ValueId]> {
        self.values_of(g, |unit| &unit.outputs, |kernel| &kernel.outputs)
    }

    /// A group's values: its kernel's, else its members' (borrowed unless there are
    /// several members to concatenate: the solver asks for these per candidate pair).
    fn values_of<'s>(
        &'s self,
        g: usize,
        of_unit: impl Fn(&'s Unit) -> &'s Vec<ValueId>,
        of_kernel: impl Fn(&'s Kernel) -> &'s Vec<ValueId>,
    ) -> Cow<'s, [ValueId]> {
        let group = &self.groups[g];
        match (&group.kernel, group.members.as_slice()) {
            (Some(kernel), _) => Cow::Borrowed(of_kernel(kernel)),
            (None, [unit]) => Cow::Borrowed(of_unit(&self.model.units[*unit])),
            (None, members) => Cow::Owned(
                members
                    .iter()
                    .flat_map(|&u| of_unit(&self.model.units[u]).iter().copied())
                    .collect(),
            ),
        }
    }

    fn consumer_groups(&self, v: ValueId) -> Vec<usize> {
        let mut out: Vec<usize> = self.consumers[v]
            .iter()
            .map(|&u| self.group_of[u])
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn is_kernel(&self, g: usize) -> bool {
        self.groups[g].kernel.is_some()
    }

    /// `times` times the GM bytes of the values of byte class `class`.
    fn scaled_bytes(&self, class: usize, times: i64) -> Expr {
        self.scaled_sizes
            .borrow_mut()
            .entry((class, times))
            .or_insert_with(|| self.byte_sizes[class].clone() * times)
            .clone()
    }

    /// Values the two groups share, and whether one reads what the other writes.
    fn shared(&self, a: usize, b: usize) -> (BTreeSet<ValueId>, bool) {
        let (ia, oa) = (self.inputs(a), self.outputs(a));
        let (ib, ob) = (self.inputs(b), self.outputs(b));
        let mut shared = BTreeSet::new();
        let mut vertical = false;
        for v in ib.iter() {
            if oa.contains(v) {
                vertical = true;
                shared.insert(*v);
            } else if ia.contains(v) {
                shared.insert(*v);
            }
        }
        for v in ia.iter() {
            if ob.contains(v) {
                vertical = true;
                shared.insert(*v);
            }
        }
        (shared, vertical)
    }

    /// GM bytes saved by fusing `a` and `b`: traffic of both minus that of the union.
    fn saved(&self, a: usize, b: usize) -> Expr {
        let (ia, oa) = (self.inputs(a), self.outputs(a));
        let (ib, ob) = (self.inputs(b), self.outputs(b));
        let mut values: Vec<ValueId> = ia
            .iter()
            .chain(&*oa)
            .chain(&*ib)
            .chain(&*ob)
            .copied()
            .collect();
        values.sort_unstable();
        values.dedup();
        // How often each value's bytes count before minus after, summed per byte class
        // (symbolic sums allocate; a pair touches few values and fewer sizes, so the
        // membership tests scan short lists).
        let mut terms: Vec<(usize, i64)> = Vec::new();
        for v in values {
            let (in_a, out_a) = (ia.contains(&v), oa.contains(&v));
            let (in_b, out_b) = (ib.contains(&v), ob.contains(&v));
            let produced = out_a || out_b;
            let mut times = [in_a, out_a, in_b, out_b].iter().filter(|&&x| x).count() as i64;
            if (in_a || in_b) && !produced {
                times -= 1;
            }
            if produced && self.needed_outside_pair(v, a, b) {
                times -= 1;
            }
            let Some(&class) = self.byte_class.get(v) else {
                continue;
            };
            match terms.iter_mut().find(|(c, _)| *c == class) {
                Some((_, total)) => *total += times,
                None => terms.push((class, times)),
            }
        }
        terms.sort_unstable();
        // Usually one size is involved: its memoized product is the answer as is.
        let mut saved: Option<Expr> = None;
        for (class, times) in terms {
            if times != 0 {
                let term = self.scaled_bytes(class, times);
                saved = Some(match saved {
                    Some(sum) => sum + term,
                    None => term,
                });
            }
        }
        saved.unwrap_or(Expr::constant(0))
    }

    /// A third group on a path from one of the pair to the other, if any (the first
    /// group after the start of that path).
    ///
    /// Groups are kept in a topological order (`order`), so such a path can only pass
    /// through groups placed between the two: the search never leaves that stretch,
    /// which keeps fusion near linear on long graphs.
    fn cycle_through(&self, a: usize, b: usize) -> Option<usize> {
        let (from, to) = if self.order[a] < self.order[b] {
            (a, b)
        } else {
            (b, a)
        };
        let limit = self.order[to];
        let mut visited: HashSet<usize> = HashSet::new();
        for first in self.successor_groups(from) {
            if first == to || self.order[first] > limit || !visited.insert(first) {
                continue;
            }
            let mut stack = vec![first];
            while let Some(g) = stack.pop() {
                for next in self.successor_groups(g) {
                    if next == to {
                        return Some(first);
                    }
                    if self.order[next] < limit && visited.insert(next) {
                        stack.push(next);
                    }
                }
            }
        }
        None
    }

    /// Records that groups `a` and `b` (no path between them through a third group)
    /// became group `merged`, and restores the topological order (Pearce and Kelly's
    /// local reordering): of the groups placed between the two, those reachable from the
    /// earlier one must follow the merged group and those reaching the later one must
    /// precede it; only these move, into the positions they and the pair held, so a
    /// merge costs the size of that neighbourhood, not of the stretch between the two.
    /// Every other group between them is unrelated to both and keeps its position.
    fn place_merged(&mut self, a: usize, b: usize, merged: usize) {
        let (early, late) = if self.order[a] < self.order[b] {
            (a, b)
        } else {
            (b, a)
        };
        let (lo, hi) = (self.order[early], self.order[late]);
        let mut before = self.reach_between(late, lo, hi, |s, g| s.predecessor_groups(g));
        let mut after = self.reach_between(early, lo, hi, |s, g| s.successor_groups(g));
        before.sort_by_key(|&g| self.order[g]);
        after.sort_by_key(|&g| self.order[g]);
        let mut positions: Vec<usize> = before
            .iter()
            .chain(&after)
            .map(|&g| self.order[g])
            .chain([lo, hi])
            .collect();
        positions.sort_unstable();
        for &p in &positions {
            self.slots[p] = None;
        }
        if self.order.len() <= merged {
            self.order.resize(merged + 1, usize::MAX);
        }
        let sequence = before
            .into_iter()
            .chain(std::iter::once(merged))
            .chain(after);
        for (&p, g) in positions.iter().zip(sequence) {
            self.slots[p] = Some(g);
            self.order[g] = p;
        }
    }

    /// The groups placed strictly between positions `lo` and `hi` that `start` reaches
    /// through `step` (successors or predecessors), each once.
    fn reach_between(
        &self,
        start: usize,
        lo: usize,
        hi: usize,
        step: impl Fn(&Self, usize) -> Vec<usize>,
    ) -> Vec<usize> {
        let mut seen: HashSet<usize> = HashSet::new();
        let mut found = Vec::new();
        let mut stack = vec![start];
        while let Some(g) = stack.pop() {
            for next in step(self, g) {
                let p = self.order[next];
                if lo < p && p < hi && seen.insert(next) {
                    found.push(next);
                    stack.push(next);
                }
            }
        }
        found
    }

    /// Groups producing a value that group `g` reads (other than `g`).
    fn predecessor_groups(&self, g: usize) -> Vec<usize> {
        let mut out: Vec<usize> = self.groups[g]
            .members
            .iter()
            .flat_map(|&u| self.model.units[u].inputs.iter())
            .filter_map(|&v| self.producer.get(v).copied().flatten())
            .map(|p| self.group_of[p])
            .filter(|&c| c != g)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Groups reading a value that group `g` produces (other than `g`).
    fn successor_groups(&self, g: usize) -> Vec<usize> {
        let mut out: Vec<usize> = self.groups[g]
            .members
            .iter()
            .flat_map(|&u| self.model.units[u].outputs.iter())
            .filter(|&&v| v < self.consumers.len())
            .flat_map(|&v| self.consumers[v].iter().map(|&w| self.group_of[w]))
            .filter(|&c| c != g)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The pair in program order: a producer before its consumer.
    fn ordered(&self, a: usize, b: usize) -> (usize, usize) {
        let ob = self.outputs(b);
        let reads_b = self.inputs(a).iter().any(|v| ob.contains(v));
        if reads_b
            || (!self.outputs(a).iter().any(|v| self.inputs(b).contains(v))
                && self.pos(b) < self.pos(a))
        {
            (b, a)
        } else {
            (a, b)
        }
    }

    fn number(&self, g: usize, fresh: &mut usize) -> usize {
        let label = &self.groups[g].label;
        kernel_number(label).unwrap_or_else(|| {
            *fresh += 1;
            *fresh - 1
        })
    }

    /// Checks every rule for the pair and merges on success.
    fn evaluate(
        &mut self,
        first: usize,
        second: usize,
        limits: &Limits,
        env: &ShapeEnv,
        fresh: &mut usize,
    ) -> Result<Merged, Refusal> {
        let vertical = self.check_connection(first, second, limits)?;
        let (Some(ka), Some(kb)) = (&self.groups[first].kernel, &self.groups[second].kernel) else {
            return refuse(Rule::NoSharedBuffer, "only kernels fuse");
        };
        if limits.disabled != 0 {
            self.check_enabled_kinds([(ka, first), (kb, second)], limits)?;
        }
        self.check_caps(ka, kb, limits)?;
        if let Err(detail) = transpose_pattern(ka, kb, vertical) {
            return refuse(Rule::TransposePattern, detail);
        }
        if let Err(detail) = concat_pattern(ka, kb, vertical) {
            return refuse(Rule::ConcatPattern, detail);
        }
        // Some rules see only the merged kernel (a transposed store, concats along two
        // axes, what the schedule can express): the merge works on copies so that both
        // kernels survive a refusal after it.
        let number = self.number(first, fresh).min(self.number(second, fresh));
        let keep = |v: ValueId| self.needed_outside_pair(v, first, second);
        let mut merged = merge_kernels(ka, kb, &keep, env, number)?;
        self.check_merged(&mut merged, limits.target)?;
        self.name_in_program_order(&mut merged, first, second, number);
        Ok(merged)
    }

    /// The rules on how the pair is connected: a shared tensor, no path through a third
    /// group, siblings near enough. Whether one reads what the other writes.
    fn check_connection(
        &self,
        first: usize,
        second: usize,
        limits: &Limits,
    ) -> Result<bool, Refusal> {
        let (shared, vertical) = self.shared(first, second);
        if shared.is_empty() {
            return refuse(
                Rule::NoSharedBuffer,
                "they read different results of a common producer and share no tensor",
            );
        }
        if let Some(via) = self.cycle_through(first, second) {
            return refuse(
                Rule::Cycle,
                format!(
                    "a path from one to the other passes through '{}'",
                    self.groups[via].label
                ),
            );
        }
        let proximity = self.pos(second).abs_diff(self.pos(first));
        if !vertical && limits.max_proximity > 0 && proximity > limits.max_proximity {
            return refuse(
                Rule::PeakMemory,
                format!(
                    "siblings {proximity} ops apart (max-proximity is {})",
                    limits.max_proximity
                ),
            );
        }
        Ok(vertical)
    }

    /// Refuses the pair when a kernel (with its group) holds an op of a kind the
    /// `disable` option names.
    fn check_enabled_kinds(
        &self,
        kernels: [(&Kernel, usize); 2],
        limits: &Limits,
    ) -> Result<(), Refusal> {
        for (kernel, group) in kernels {
            let kind = kernel
                .graph
                .source_ops
                .iter()
                .filter_map(|op| fusion_kind(op))
                .find(|kind| limits.disables(kind));
            if let Some(kind) = kind {
                return refuse(
                    Rule::KindDisabled,
                    format!(
                        "'{}' holds a {kind} op and the disable option names {kind}",
                        self.groups[group].label
                    ),
                );
            }
        }
        Ok(())
    }

    /// The caps on the fused kernel: `max-fusion-size` ops and `max-inputs` inputs.
    fn check_caps(&self, ka: &Kernel, kb: &Kernel, limits: &Limits) -> Result<(), Refusal> {
        let size = ka.op_count() + kb.op_count();
        if size > limits.max_fusion_size {
            return refuse(
                Rule::SizeCap,
                format!(
                    "{size} ops together (max-fusion-size is {})",
                    limits.max_fusion_size
                ),
            );
        }
        let produced: BTreeSet<ValueId> = ka.outputs.iter().chain(&kb.outputs).copied().collect();
        // Scalars (one element: a constant such as epsilon) are read once per block, not
        // streamed: like GE's Scalar nodes they do not count as inputs.
        let scalar = |v: &ValueId| {
            self.model
                .types
                .get(*v)
                .and_then(Option::as_ref)
                .and_then(TensorType::num_elements)
                .and_then(|n| n.as_const())
                == Some(1)
        };
        let inputs: BTreeSet<ValueId> = ka
            .inputs
            .iter()
            .chain(&kb.inputs)
            .copied()
            .filter(|v| !produced.contains(v) && !scalar(v))
            .collect();
        if inputs.len() > limits.max_inputs {
            return refuse(
                Rule::InputCap,
                format!(
                    "{} inputs together (max-inputs is {})",
                    inputs.len(),
                    limits.max_inputs
                ),
            );
        }
        Ok(())
    }

    /// The rules only the merged kernel shows: no transposed store, concats along one
    /// axis, a schedule for `target`. Aligns the repeats hints decided on the way.
    fn check_merged(&self, merged: &mut Merged, target: &str) -> Result<(), Refusal> {
        if let Some(detail) = transposed_store(&merged.kernel.graph) {
            return refuse(Rule::TransposePattern, detail);
        }
        if let Some(detail) = mixed_concat_axes(&merged.kernel.graph) {
            return refuse(Rule::ConcatPattern, detail);
        }
        align_hinted_repeats(&mut merged.kernel.graph, &merged.hinted);
        let sunk: Vec<Option<f64>> = merged
            .kernel
            .inputs
            .iter()
            .map(|&v| self.model.sinkable.get(v).copied().flatten())
            .collect();
        schedulable(&merged.kernel.graph, &sunk, target)
    }

    /// Names the merged kernel by its original ops in program order (the merge lists
    /// `first`'s ops, then `second`'s: already that order unless they interleave).
    fn name_in_program_order(
        &self,
        merged: &mut Merged,
        first: usize,
        second: usize,
        number: usize,
    ) {
        let (fm, sm) = (&self.groups[first].members, &self.groups[second].members);
        let in_order = fm.iter().max() < sm.iter().min();
        if !in_order {
            let mut members: Vec<usize> = fm.iter().chain(sm).copied().collect();
            members.sort_unstable();
            merged.kernel.graph.source_ops = members
                .iter()
                .flat_map(|&u| {
                    self.model.units[u]
                        .kernel
                        .as_ref()
                        .map(|k| k.graph.source_ops.clone())
                        .unwrap_or_default()
                })
                .collect();
        }
        let graph = &mut merged.kernel.graph;
        graph.name = kernel_name(kernel_kind(graph), number, &graph.source_ops);
    }

    /// Whether value `v` must stay in GM if groups `a` and `b` become one kernel.
    fn needed_outside_pair(&self, v: ValueId, a: usize, b: usize) -> bool {
        self.returned[v]
            || self.consumers[v].is_empty()
            || self.consumers[v].iter().any(|&u| {
                let g = self.group_of[u];
                g != a && g != b
            })
    }
}

/// Axes paired because the hints make their sizes equal (recorded as `expect` guards)
/// keep the second kernel's size in its views: those repeats become the loop axis's
/// own size, which the guard makes the same number, so that the loop nest is one the
/// schedule expresses (it compares repeats with axis sizes symbol by symbol).
fn align_hinted_repeats(graph: &mut AscGraph, hinted: &[(Expr, Expr)]) {
    if hinted.is_empty() {
        return;
    }
    let sizes: Vec<Expr> = graph.axes.iter().map(|axis| axis.size.clone()).collect();
    for node in &mut graph.nodes {
        if node.view.repeats.len() != sizes.len() {
            continue;
        }
        for (repeat, size) in node.view.repeats.iter_mut().zip(&sizes) {
            let equal_by_hint = hinted
                .iter()
                .any(|(l, r)| (l == size && r == &*repeat) || (l == &*repeat && r == size));
            if repeat != size && equal_by_hint {
                *repeat = size.clone();
            }
        }
    }
}

/// Rule AF-NF011: the schedule pass must be able to express the fused kernel on
/// `target`, once `sink-constants` has moved the constants `sunk` names (by input
/// position) into it, as the pipeline does between fusion and the schedule. Asking the
/// schedule itself (not a copy of its conditions) keeps fusion from building a kernel
/// that would be left to the interpreter (remark AF-SC001) where its two halves run as
/// generated code.
fn schedulable(graph: &AscGraph, sunk: &[Option<f64>], target: &str) -> Result<(), Refusal> {
    let chip = ChipProfile::lookup(target).map_err(|detail| Refusal {
        rule: Rule::Unschedulable,
        detail,
    })?;
    let sunk_graph = crate::sink_constants::sink_inputs(graph, sunk).map(|(g, _)| g);
    let graph = sunk_graph.as_ref().unwrap_or(graph);
    let schedule = Schedule::build(graph, &chip).map_err(|detail| Refusal {
        rule: Rule::Unschedulable,
        detail,
    })?;
    // A concat kernel keeps whole slabs in a tile unless a case splits the concat axis
    // (and cuts long rows into blocks); a merge that loses those cases (a side output
    // over a part of the axis, which no tile split can compute) would leave every shape
    // whose slab outgrows UB to the interpreter.
    let holds_concat = graph.nodes.iter().any(|n| n.op == "concat");
    if holds_concat
        && !schedule
            .cases
            .iter()
            .any(|case| schedule.smallest_tile_ub(case).is_some())
    {
        return Err(Refusal {
            rule: Rule::Unschedulable,
            detail: "no tiling case of the fused concat kernel has a tile of bounded size \
                     (its slabs stay whole in UB however long they grow)"
                .into(),
        });
    }
    Ok(())
}

/// GE's transpose strategy (ge_autofuse.md §5.4): a kernel holding a transpose fuses
/// only vertically with a pointwise kernel (A2/A3: not with broadcasts). A kernel is
/// pointwise here when it holds no reduction, no broadcast and no transpose.
fn transpose_pattern(a: &Kernel, b: &Kernel, vertical: bool) -> Result<(), String> {
    // A transpose that keeps the innermost axis is a strided load and fuses like one;
    // the rules hold for transposes in UB (the innermost axis moves).
    let has_transpose = |k: &Kernel| holds_transpose(&k.graph) && transposes_in_ub(&k.graph);
    let (ta, tb) = (has_transpose(a), has_transpose(b));
    if !ta && !tb {
        return Ok(());
    }
    if !vertical {
        return Err("a transpose fuses only vertically (producer to consumer)".into());
    }
    for (k, other_transposes) in [(a, tb), (b, ta)] {
        let name = &k.graph.name;
        if other_transposes && has_transpose(k) {
            return Err("both kernels hold a transpose".into());
        }
        if kernel_kind(&k.graph) == "reduce" {
            return Err(format!(
                "{name} holds a reduction (a transpose fuses only with pointwise ops)"
            ));
        }
        if k.graph.nodes.iter().any(|n| n.op == "broadcast") {
            return Err(format!(
                "{name} broadcasts (a transpose does not fuse with broadcasts)"
            ));
        }
    }
    Ok(())
}

fn holds_transpose(g: &AscGraph) -> bool {
    g.source_ops.iter().any(|o| o == "Transpose")
}

/// Whether a GM view of the kernel walks its innermost non-unit loop axis with a stride
/// other than 1: a load that the kernel transposes in UB.
fn transposes_in_ub(g: &AscGraph) -> bool {
    g.nodes.iter().any(|node| {
        node.op == "data"
            && (0..node.view.repeats.len())
                .rev()
                .find(|&k| !is_unit(&node.view.repeats[k]))
                .is_some_and(|k| !is_unit(&node.view.strides[k]))
    })
}

/// A store of a fused transpose kernel whose GM view is not contiguous along the
/// innermost non-unit loop axis (a value of the producer side, needed outside, stored
/// in the transposed nest): kernels only transpose on loads.
fn transposed_store(g: &AscGraph) -> Option<String> {
    if !holds_transpose(g) {
        return None;
    }
    g.nodes.iter().enumerate().find_map(|(n, node)| {
        if node.op != "store" {
            return None;
        }
        let k = (0..node.view.repeats.len())
            .rev()
            .find(|&k| node.view.repeats[k].as_const() != Some(1))?;
        (node.view.strides.get(k)?.as_const() != Some(1)).then(|| {
            format!(
                "the fused kernel would store value %{n} with a transposed GM view (only \
                 loads transpose)"
            )
        })
    })
}

fn holds_concat(g: &AscGraph) -> bool {
    g.nodes.iter().any(|n| n.op == "concat")
}

/// Concats of a fused kernel along more than one axis (GE's n group is one axis and
/// everything after it, whole in every tile).
fn mixed_concat_axes(g: &AscGraph) -> Option<String> {
    let axes: BTreeSet<Option<usize>> = (0..g.nodes.len())
        .filter(|&n| g.nodes[n].op == "concat")
        .map(|n| g.concat_axis(n))
        .collect();
    if axes.len() > 1 {
        return Some("the fused kernel would concatenate along two axes".to_string());
    }
    // A value stored from inside the concat (what a concat reads, needed outside the
    // kernel) covers a part of the axis: the schedule has no layout to store it from.
    let mut feeds_concat = vec![false; g.nodes.len()];
    for n in (0..g.nodes.len()).rev() {
        if g.nodes[n].op == "concat" || feeds_concat[n] {
            for &o in &g.nodes[n].operands {
                if let Some(f) = feeds_concat.get_mut(o) {
                    *f = true;
                }
            }
        }
    }
    g.nodes.iter().find_map(|node| {
        let value = *node.operands.first()?;
        (node.op == "store" && feeds_concat.get(value) == Some(&true)).then(|| {
            format!(
                "the fused kernel would store value %{value}, a part of the concat axis \
                 (needed outside the kernel)"
            )
        })
    })
}

/// GE's concat strategy (ge_autofuse.md §5.4): no concat + concat, no concat + reduce,
/// a concat absorbs only pointwise consumers, which may broadcast (a table shared by
/// the outer axes, as rotary embeddings multiply by), and pointwise producers, which
/// may broadcast within their part (an edge pad's repeated border row).
fn concat_pattern(a: &Kernel, b: &Kernel, vertical: bool) -> Result<(), String> {
    let (ca, cb) = (holds_concat(&a.graph), holds_concat(&b.graph));
    if !ca && !cb {
        return Ok(());
    }
    if ca && cb && !vertical {
        return Err("both kernels hold a concat".into());
    }
    if !vertical {
        return Err("a concat fuses only vertically (producer to consumer)".into());
    }
    if ca && cb {
        // A chain of concats (an n-ary concat): fused when they join one axis, which
        // only the merged kernel shows (`mixed_concat_axes`).
        return Ok(());
    }
    let other = if ca { b } else { a };
    let name = &other.graph.name;
    // A consumer may reduce the joined tile (layer_norm over concatenated features);
    // a producer's reduction would compute a part of the concat axis.
    if cb && kernel_kind(&other.graph) == "reduce" {
        return Err(format!(
            "{name} holds a reduction (a concat fuses only with reducing consumers)"
        ));
    }
    if other.graph.source_ops.iter().any(|o| o == "Transpose") {
        return Err(format!("{name} holds a transpose"));
    }
    Ok(())
}

/// Compares GM byte counts: under the hints when they decide, else statically.
pub fn compare_bytes(a: &Expr, b: &Expr, env: &ShapeEnv) -> Ordering {
    if let (Some(x), Some(y)) = (env.hint_eval(a), env.hint_eval(b)) {
        return x.cmp(&y);
    }
    if env.static_check(a, Relation::Gt, b) == Tri::True {
        Ordering::Greater
    } else if env.static_check(a, Relation::Lt, b) == Tri::True {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

/// Orders distinct byte scores from most to fewest saved bytes.
///
/// The ranking of record is an insertion sort that moves a score before an earlier one
/// only when it is decidedly larger, so undecided pairs keep their candidate order. It
/// costs O(d^2) comparisons, each linear in the size of the expressions: cubic on a
/// chain of concats over distinct symbols, whose scores are nested sums. A stable merge
/// sort makes O(d log d) comparisons; when each of them is decided, every adjacent
/// pair of its result was compared (a comparison sort must compare them to tell them
/// apart), and as decided static comparisons chain (a decided `a > b` and `b > c`
/// decide `a > c`: interval bounds of a difference add up), the scores are totally
/// ordered and both sorts agree. An undecided comparison falls back to the insertion
/// sort, and so do scores of which only some have hints.
fn rank_scores(distinct: &[Expr], env: &ShapeEnv) -> Vec<usize> {
    // Under hints every comparison is numeric: a stable sort keeps ties in candidate
    // order, as the insertion sort does.
    let hints: Vec<Option<i64>> = distinct.iter().map(|e| env.hint_eval(e)).collect();
    if let Some(bytes) = hints.iter().copied().collect::<Option<Vec<i64>>>() {
        let mut ranked: Vec<usize> = (0..distinct.len()).collect();
        ranked.sort_by(|&x, &y| bytes[y].cmp(&bytes[x]));
        return ranked;
    }
    // Numeric and static comparisons mixed need not chain: keep the insertion sort.
    if hints.iter().any(Option::is_some) {
        return insertion_rank(distinct, env);
    }
    if let Some(ranked) = probe_rank(distinct, env) {
        debug_assert!(
            distinct.len() > 64 || ranked == insertion_rank(distinct, env),
            "the confirmed probe order differs from the insertion sort"
        );
        return ranked;
    }
    let mut undecided = false;
    let mut compare = |x: usize, y: usize| {
        if !undecided {
            let order = compare_bytes(&distinct[x], &distinct[y], env);
            undecided = order == Ordering::Equal;
            return order;
        }
        Ordering::Equal
    };
    let merged = merge_sort_descending((0..distinct.len()).collect(), &mut compare);
    if !undecided {
        debug_assert!(
            distinct.len() > 64 || merged == insertion_rank(distinct, env),
            "the merge sort of decided scores differs from the insertion sort"
        );
        return merged;
    }
    insertion_rank(distinct, env)
}

/// The scores ordered by their values at the shape environment's probe point, when
/// static checks confirm that each is decidedly larger than the next: then the order is
/// total and decided (decided comparisons chain), the one both sorts compute, for d
/// evaluations and d - 1 comparisons of neighbours. Neighbours are close sizes, whose
/// difference cancels derived symbols after an unfolding or two; the sorts' comparisons
/// of sizes far apart in a chain of derived symbols expand the whole chain, which made
/// ranking quadratic on chains of concats over distinct symbols. `None` when a score
/// has no probe value or a neighbour comparison is not confirmed.
fn probe_rank(distinct: &[Expr], env: &ShapeEnv) -> Option<Vec<usize>> {
    let values: Vec<i64> = distinct
        .iter()
        .map(|e| env.probe_eval(e))
        .collect::<Option<_>>()?;
    let mut ranked: Vec<usize> = (0..distinct.len()).collect();
    ranked.sort_by(|&x, &y| values[y].cmp(&values[x]));
    ranked
        .windows(2)
        .all(|pair| compare_bytes(&distinct[pair[0]], &distinct[pair[1]], env) == Ordering::Greater)
        .then_some(ranked)
}

/// Insertion sort: each score moves left past the scores it decidedly exceeds.
fn insertion_rank(distinct: &[Expr], env: &ShapeEnv) -> Vec<usize> {
    let mut ranked: Vec<usize> = Vec::with_capacity(distinct.len());
    for d in 0..distinct.len() {
        let mut at = ranked.len();
        while at > 0
            && compare_bytes(&distinct[d], &distinct[ranked[at - 1]], env) == Ordering::Greater
        {
            at -= 1;
        }
        ranked.insert(at, d);
    }
    ranked
}

/// Stable merge sort, largest first: a later item goes before an earlier one only when
/// `compare(later, earlier)` is `Greater`, as in [`insertion_rank`]. An `Equal` (an
/// undecided pair) abandons the sort: the result is then not a ranking, and the caller
/// falls back to the insertion sort.
fn merge_sort_descending(
    items: Vec<usize>,
    compare: &mut dyn FnMut(usize, usize) -> Ordering,
) -> Vec<usize> {
    if items.len() <= 1 {
        return items;
    }
    let mut right = items;
    let left = right.drain(..right.len() / 2).collect();
    let left = merge_sort_descending(left, compare);
    let right = merge_sort_descending(right, compare);
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        match compare(right[j], left[i]) {
            Ordering::Greater => {
                out.push(right[j]);
                j += 1;
            }
            Ordering::Less => {
                out.push(left[i]);
                i += 1;
            }
            Ordering::Equal => return Vec::new(),
        }
    }
    out.extend_from_slice(&left[i..]);
    out.extend_from_slice(&right[j..]);
    out
}

struct Candidate {
    a: usize,
    b: usize,
    saved: Expr,
    proximity: usize,
    first_pos: usize,
    second_pos: usize,
}

/// How many following readers of a tensor each reader is paired with as a horizontal
/// candidate.
const SIBLING_WINDOW: usize = 8;

/// Runs the greedy solver on one graph function. `fresh` numbers kernels whose name
/// carries none (it is advanced past every number used).
pub fn plan(model: &FuncModel, limits: &Limits, env: &mut ShapeEnv, fresh: &mut usize) -> Plan {
    let mut solver = Solver::new(model);
    let mut attempts = Attempts::default();
    let mut rounds = 0;
    for round in 1..=limits.max_rounds {
        if solver
            .live()
            .iter()
            .filter(|&&g| solver.is_kernel(g))
            .count()
            < 2
        {
            break;
        }
        rounds = round;
        let candidates = solver.scored(solver.candidate_pairs(limits));
        let candidates = rank_candidates(candidates, env);
        let mut fused_any = false;
        for candidate in &candidates {
            fused_any |= solver.attempt(candidate, round, limits, env, fresh, &mut attempts);
        }
        if !fused_any {
            break;
        }
    }
    Plan {
        kernels: solver.final_kernels(),
        decisions: attempts.decisions,
        hinted: attempts.hinted,
        rounds,
    }
}

/// What the solver has tried so far.
#[derive(Default)]
struct Attempts {
    decisions: Vec<Decision>,
    /// Size equalities decided by hints.
    hinted: Vec<(Expr, Expr)>,
    /// Pairs of groups refused so far. A group id names one member set (merging makes a
    /// new group), so a refused pair is tried again only once one side has grown.
    refused: HashSet<(usize, usize)>,
}

/// The GM byte count of every value of `model`, as an index into a list of the distinct
/// byte counts (computed once: symbolic products are not cheap, and most values of a
/// graph share a few sizes), and that list.
fn byte_classes(model: &FuncModel) -> (Vec<usize>, Vec<Expr>) {
    let mut byte_sizes: Vec<Expr> = Vec::new();
    let mut class_of_size: HashMap<Expr, usize> = HashMap::new();
    let byte_class = model
        .types
        .iter()
        .map(|t| {
            let size = t
                .as_ref()
                .and_then(tensor_bytes)
                .unwrap_or(Expr::constant(0));
            *class_of_size.entry(size).or_insert_with_key(|size| {
                byte_sizes.push(size.clone());
                byte_sizes.len() - 1
            })
        })
        .collect();
    (byte_class, byte_sizes)
}

/// Orders candidates by score: most saved bytes first, then proximity, then program
/// position.
fn rank_candidates(candidates: Vec<Candidate>, env: &ShapeEnv) -> Vec<Candidate> {
    // Insertion sort: the byte comparison is not a total order without hints. Few
    // scores are distinct, so their comparisons are computed once.
    let mut distinct: Vec<Expr> = Vec::new();
    let score: Vec<usize> = candidates
        .iter()
        .map(|c| {
            distinct
                .iter()
                .position(|e| *e == c.saved)
                .unwrap_or_else(|| {
                    distinct.push(c.saved.clone());
                    distinct.len() - 1
                })
        })
        .collect();
    let ranked = rank_scores(&distinct, env);
    let mut rank_of = vec![0usize; distinct.len()];
    for (rank, &d) in ranked.iter().enumerate() {
        rank_of[d] = rank;
    }
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by_key(|&i| {
        let c = &candidates[i];
        (rank_of[score[i]], c.proximity, c.first_pos, c.second_pos)
    });
    let mut slots: Vec<Option<Candidate>> = candidates.into_iter().map(Some).collect();
    order.iter().filter_map(|&i| slots[i].take()).collect()
}

impl<'m> Solver<'m> {
    /// A solver where every unit of `model` is a group of its own.
    fn new(model: &'m FuncModel) -> Solver<'m> {
        let values = model.types.len();
        let mut producer = vec![None; values];
        let mut consumers = vec![Vec::new(); values];
        for (u, unit) in model.units.iter().enumerate() {
            for &v in &unit.outputs {
                if v < values {
                    producer[v] = Some(u);
                }
            }
            for &v in &unit.inputs {
                if v < values && !consumers[v].contains(&u) {
                    consumers[v].push(u);
                }
            }
        }
        let mut returned = vec![false; values];
        for &v in &model.returns {
            if v < values {
                returned[v] = true;
            }
        }
        let groups: Vec<Group> = model
            .units
            .iter()
            .enumerate()
            .map(|(u, unit)| Group {
                members: vec![u],
                // Borrowed until the group merges: most units join as the second of a pair,
                // which is only read.
                kernel: unit.kernel.as_ref().map(Cow::Borrowed),
                label: unit.label.clone(),
            })
            .collect();
        let (byte_class, byte_sizes) = byte_classes(model);
        Solver {
            model,
            byte_class,
            byte_sizes,
            scaled_sizes: RefCell::new(HashMap::new()),
            // Units are in program order, which is topological.
            order: (0..model.units.len()).collect(),
            slots: (0..model.units.len()).map(Some).collect(),
            producer,
            consumers,
            returned,
            group_of: (0..model.units.len()).collect(),
            groups,
        }
    }

    /// Candidate pairs: kernels touching one buffer, and siblings reading different
    /// results of one producer (refused with AF-NF001 unless fused through others).
    fn candidate_pairs(&self, limits: &Limits) -> BTreeSet<(usize, usize)> {
        let mut pairs: BTreeSet<(usize, usize)> = BTreeSet::new();
        let add = |x: usize, y: usize, pairs: &mut BTreeSet<(usize, usize)>| {
            if x != y {
                pairs.insert((x.min(y), x.max(y)));
            }
        };
        // Siblings farther apart than max-proximity would be refused (AF-NF007); pairing
        // only the nearest of them keeps a tensor read by n kernels from making n^2
        // candidates.
        let near = |x: usize, y: usize| {
            limits.max_proximity == 0 || self.pos(x).abs_diff(self.pos(y)) <= limits.max_proximity
        };
        for v in 0..self.model.types.len() {
            let mut readers: Vec<usize> = self.consumer_groups(v);
            readers.retain(|&g| self.is_kernel(g));
            readers.sort_by_key(|&g| self.pos(g));
            if let Some(p) = self.producer[v] {
                let pg = self.group_of[p];
                if self.is_kernel(pg) {
                    for &c in &readers {
                        add(pg, c, &mut pairs);
                    }
                }
            }
            // Each reader pairs with its next few siblings only: fusing neighbours
            // transitively joins all of them, and a tensor read by every op of a long
            // graph (a shared weight) would otherwise make a quadratic candidate list.
            for i in 0..readers.len() {
                for j in i + 1..readers.len().min(i + 1 + SIBLING_WINDOW) {
                    add(readers[i], readers[j], &mut pairs);
                    // The first sibling beyond reach is still a candidate, so that its
                    // refusal (AF-NF007) is explained; farther ones add nothing.
                    if !near(readers[i], readers[j]) {
                        break;
                    }
                }
            }
        }
        for g in self.live() {
            let outs = self.outputs(g);
            for (i, u) in outs.iter().enumerate() {
                for w in &outs[i + 1..] {
                    for c1 in self.consumer_groups(*u) {
                        for c2 in self.consumer_groups(*w) {
                            if self.is_kernel(c1) && self.is_kernel(c2) && c1 != g && c2 != g {
                                add(c1, c2, &mut pairs);
                            }
                        }
                    }
                }
            }
        }
        pairs
    }

    /// The pairs in program order with their scores.
    fn scored(&self, pairs: BTreeSet<(usize, usize)>) -> Vec<Candidate> {
        pairs
            .into_iter()
            .map(|(x, y)| {
                let (a, b) = self.ordered(x, y);
                Candidate {
                    a,
                    b,
                    saved: self.saved(a, b),
                    proximity: self.pos(a).abs_diff(self.pos(b)),
                    first_pos: self.pos(a).min(self.pos(b)),
                    second_pos: self.pos(a).max(self.pos(b)),
                }
            })
            .collect()
    }

    /// Tries to fuse the groups that now hold the candidate's two groups, unless they are
    /// one already or were refused as they are: records the decision, and merges them
    /// when every rule passes. Whether they merged.
    fn attempt(
        &mut self,
        candidate: &Candidate,
        round: usize,
        limits: &Limits,
        env: &mut ShapeEnv,
        fresh: &mut usize,
        attempts: &mut Attempts,
    ) -> bool {
        let ga = self.group_of[self.groups[candidate.a].members[0]];
        let gb = self.group_of[self.groups[candidate.b].members[0]];
        if ga == gb {
            return false;
        }
        let key = (ga.min(gb), ga.max(gb));
        if attempts.refused.contains(&key) {
            return false;
        }
        let (first, second) = self.ordered(ga, gb);
        let saved = self.saved(first, second);
        let (_, vertical) = self.shared(first, second);
        let mut decision = Decision {
            round,
            order: attempts.decisions.len(),
            first: self.groups[first].members.clone(),
            second: self.groups[second].members.clone(),
            first_name: self.groups[first].label.clone(),
            second_name: self.groups[second].label.clone(),
            vertical,
            saved_hint: env.hint_eval(&saved),
            saved,
            proximity: self.pos(first).abs_diff(self.pos(second)),
            outcome: Ok(String::new()),
        };
        let fused = match self.evaluate(first, second, limits, env, fresh) {
            Err(refusal) => {
                attempts.refused.insert(key);
                decision.outcome = Err(refusal);
                false
            }
            Ok(merged) => {
                for (lhs, rhs) in &merged.hinted {
                    // Hints decided that these sizes are equal: specialize on it.
                    let _ = env.expect(lhs, Relation::Eq, rhs);
                    attempts.hinted.push((lhs.clone(), rhs.clone()));
                }
                decision.outcome = Ok(merged.kernel.graph.name.clone());
                self.merge_groups(first, second, merged.kernel);
                true
            }
        };
        attempts.decisions.push(decision);
        fused
    }

    /// Replaces groups `first` and `second` by a new group of all their members, holding
    /// their merged `kernel`.
    fn merge_groups(&mut self, first: usize, second: usize, kernel: Kernel) {
        let mut members = self.groups[first].members.clone();
        members.extend(self.groups[second].members.iter().copied());
        members.sort_unstable();
        let id = self.groups.len();
        // The successors of the pair are read through `group_of` of the old
        // groups, so the order is restored before the units move.
        self.place_merged(first, second, id);
        for &u in &members {
            self.group_of[u] = id;
        }
        // The merged groups are dead: only their first member is still read
        // (to find the live group of a stale candidate), so free the rest.
        for dead in [first, second] {
            self.groups[dead].kernel = None;
            self.groups[dead].members.truncate(1);
        }
        self.groups.push(Group {
            members,
            label: kernel.graph.name.clone(),
            kernel: Some(Cow::Owned(kernel)),
        });
    }

    /// The kernels of the live groups, in program order of their first member.
    fn final_kernels(mut self) -> Vec<FinalKernel> {
        let mut kernels: Vec<FinalKernel> = self
            .live()
            .into_iter()
            .filter_map(|g| {
                let group = &mut self.groups[g];
                group.kernel.take().map(|kernel| FinalKernel {
                    members: std::mem::take(&mut group.members),
                    kernel: kernel.into_owned(),
                })
            })
            .collect();
        kernels.sort_by_key(|k| k.members.first().copied().unwrap_or(0));
        kernels
    }
}

/// GM traffic of all kernels before and after `plan`, and the minimum.
pub fn traffic(model: &FuncModel, plan: &Plan) -> Traffic {
    let bytes = |v: &ValueId| {
        model
            .types
            .get(*v)
            .and_then(|t| t.as_ref())
            .and_then(tensor_bytes)
            .unwrap_or(Expr::constant(0))
    };
    let mut before = Expr::constant(0);
    let mut produced = BTreeSet::new();
    let mut read = BTreeSet::new();
    let mut outside_uses: BTreeSet<ValueId> = model.returns.iter().copied().collect();
    let mut consumed = BTreeSet::new();
    for unit in &model.units {
        match &unit.kernel {
            Some(kernel) => {
                before = before + kernel.gm_bytes().unwrap_or(Expr::constant(0));
                produced.extend(unit.outputs.iter().copied());
                read.extend(unit.inputs.iter().copied());
            }
            None => outside_uses.extend(unit.inputs.iter().copied()),
        }
        consumed.extend(unit.inputs.iter().copied());
    }
    let mut minimum = Expr::constant(0);
    for v in read.iter().filter(|v| !produced.contains(v)) {
        minimum = minimum + bytes(v);
    }
    for v in &produced {
        if outside_uses.contains(v) || !consumed.contains(v) {
            minimum = minimum + bytes(v);
        }
    }
    let after = plan.kernels.iter().fold(Expr::constant(0), |acc, k| {
        acc + k.kernel.gm_bytes().unwrap_or(Expr::constant(0))
    });
    Traffic {
        before,
        after,
        minimum,
    }
}

/// An `ascend` op re-created from a kernel (lifting).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiftedOp {
    /// Full op name (`ascend.reduce_sum`).
    pub op: String,
    /// Attributes as (name, MLIR text).
    pub attrs: Vec<(String, String)>,
}

/// Greedy alignment of `short` inside `long`: positions of `long` left over, which
/// must all be static 1.
fn unit_positions(long: &[Dim], short: &[Dim]) -> Option<Vec<usize>> {
    let mut j = 0;
    let mut extra = Vec::new();
    for (i, d) in long.iter().enumerate() {
        if j < short.len() && short[j] == *d {
            j += 1;
        } else if d.as_const() == Some(1) {
            extra.push(i);
        } else {
            return None;
        }
    }
    (j == short.len()).then_some(extra)
}

fn int_list(list: &[usize]) -> String {
    format!(
        "[{}]",
        list.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The `ascend` op a kernel holding one original op came from (GE's lifting rolls such
/// kernels back). The op name comes from `ascir.ops`; attributes are read back from
/// the kernel: reduced axes from the reduction's view, squeezed/unsqueezed axes from
/// the types, `alpha` from the node.
pub fn lift(graph: &AscGraph) -> Result<LiftedOp, String> {
    let [source] = graph.source_ops.as_slice() else {
        return Err(format!("holds {} ops", graph.source_ops.len()));
    };
    let spec = ops_of(Dialect::Ascend)
        .find(|s| camel_name(s.name) == *source)
        .ok_or_else(|| format!("no ascend op is named {source}"))?;
    let (Some(input), [output]) = (graph.inputs.first(), graph.outputs.as_slice()) else {
        return Err("not a one-result op".into());
    };
    let op = spec.full_name();
    let mut attrs = Vec::new();
    let reduction = matches!(spec.category, Category::Reduce) || spec.name == "reduce_mean";
    if reduction {
        let node = graph
            .nodes
            .iter()
            .find(|n| lookup_in("ascir", &n.op).map(|s| s.category) == Some(Category::Reduce))
            .ok_or("no reduction node")?;
        let operand = node
            .operands
            .first()
            .and_then(|&o| graph.nodes.get(o))
            .ok_or("reduction without operand")?;
        if node.view.repeats.len() != input.rank() {
            return Err("the loop nest is not the operand's shape".into());
        }
        let reduced: Vec<usize> = (0..input.rank())
            .filter(|&i| {
                is_unit(&node.view.repeats[i]) && !operand.view.repeats.get(i).is_some_and(is_unit)
            })
            .collect();
        let keep = output.rank() == input.rank();
        let axes = if keep {
            if reduced.is_empty() {
                // Only extent-1 axes were reduced: reducing them is the identity.
                let ones: Vec<usize> = (0..input.rank())
                    .filter(|&i| input.dims[i].as_const() == Some(1))
                    .collect();
                if ones.is_empty() {
                    return Err("cannot tell the reduced axes".into());
                }
                ones
            } else {
                reduced
            }
        } else {
            let rest: Vec<Dim> = input
                .dims
                .iter()
                .enumerate()
                .filter(|(i, _)| !reduced.contains(i))
                .map(|(_, d)| d.clone())
                .collect();
            let extra = unit_positions(&rest, &output.dims).ok_or("result shape")?;
            let kept: Vec<usize> = (0..input.rank()).filter(|i| !reduced.contains(i)).collect();
            let mut axes: Vec<usize> = reduced
                .iter()
                .copied()
                .chain(extra.iter().map(|&e| kept[e]))
                .collect();
            axes.sort_unstable();
            axes
        };
        attrs.push(("axes".to_string(), int_list(&axes)));
        attrs.push(("keep_dims".to_string(), keep.to_string()));
    } else if spec.name == "squeeze" {
        let removed = unit_positions(&input.dims, &output.dims).ok_or("squeezed shape")?;
        attrs.push(("axes".to_string(), int_list(&removed)));
    } else if spec.name == "unsqueeze" {
        let inserted = unit_positions(&output.dims, &input.dims).ok_or("unsqueezed shape")?;
        attrs.push(("axes".to_string(), int_list(&inserted)));
    } else if spec.name == "concat" {
        let node = graph
            .nodes
            .iter()
            .position(|n| n.op == "concat")
            .ok_or("no concat node")?;
        let axis = graph.concat_axis(node).ok_or("malformed concat")?;
        if output.rank() != graph.axes.len() {
            return Err("the loop nest is not the result's shape".into());
        }
        attrs.push(("axis".to_string(), format!("{axis} : i64")));
    } else if spec.name == "transpose" {
        let perm = lifted_perm(graph, input)?;
        let list: Vec<String> = perm.iter().map(|p| p.to_string()).collect();
        attrs.push(("perm".to_string(), format!("[{}]", list.join(", "))));
    } else if spec.name == "leaky_relu" {
        let alpha = graph
            .nodes
            .iter()
            .find(|n| n.op == "leaky_relu")
            .and_then(|n| n.attrs.iter().find(|(k, _)| k == "alpha"))
            .map(|(_, v)| v.clone())
            .ok_or("leaky_relu without alpha")?;
        attrs.push(("alpha".to_string(), alpha));
    } else if !spec.attrs.is_empty() {
        return Err(format!("cannot read back the attributes of '{op}'"));
    }
    Ok(LiftedOp { op, attrs })
}

/// The permutation of a transpose kernel, read back from the GM view of its input: loop
/// axis `i` walks the operand dim with its extent and row-major stride; unit axes take
/// the unit dims left over, in order.
fn lifted_perm(graph: &AscGraph, input: &TensorType) -> Result<Vec<usize>, String> {
    let data = graph
        .nodes
        .iter()
        .find(|n| n.op == "data" && n.index == Some(0))
        .ok_or("no data node")?;
    let dims = known_dims(input)?;
    if data.view.repeats.len() != dims.len() {
        return Err("the loop nest is not the operand's rank".into());
    }
    let walked = identify(&data.view, &dims, &ShapeEnv::new())?;
    let mut left = (0..dims.len()).filter(|j| !walked.contains(&Some(*j)));
    walked
        .iter()
        .map(|w| {
            w.or_else(|| left.next())
                .ok_or_else(|| "cannot tell the permutation".to_string())
        })
        .collect()
}

/// The text of a string list attribute (`["a", "b"]`).
pub fn string_list(items: &[String]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|s| quote(s))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower_to_ascir::lowering::lower_op;
    use autofuse_ascir::interp as ascir_interp;
    use autofuse_ir::attr::AttrValue;
    use autofuse_ir::graph::DType;
    use autofuse_ir::tensor::Tensor;

    fn exprs(texts: &[&str]) -> Vec<Expr> {
        texts.iter().map(|t| Expr::parse(t).unwrap()).collect()
    }

    #[test]
    fn decided_scores_rank_by_merge_sort_as_by_insertion() {
        // Nested sums of a concat chain: every pair is decided.
        let sizes: Vec<String> = (0..40)
            .map(|k| {
                let terms: Vec<String> = (0..=(k * 7) % 40).map(|i| format!("s{i}")).collect();
                format!("16*({})", terms.join("+"))
            })
            .collect();
        let texts: Vec<&str> = sizes.iter().map(String::as_str).collect();
        let distinct = exprs(&texts);
        let env = ShapeEnv::new();
        let ranked = rank_scores(&distinct, &env);
        assert_eq!(ranked, insertion_rank(&distinct, &env));
        assert!(ranked.windows(2).all(|w| {
            env.static_check(&distinct[w[0]], Relation::Gt, &distinct[w[1]]) == Tri::True
        }));
    }

    #[test]
    fn chained_derived_scores_rank_by_probe_with_neighbour_checks() {
        // A concat chain's sizes under derived symbols: d_k = d_(k-1) + s_k, scores
        // 16*(d_k + s_(k+1)) listed in an order the probe has to undo.
        let mut env = ShapeEnv::new();
        env.define("d0", &Expr::parse("s0+s1").unwrap());
        for k in 1..30 {
            env.define(
                &format!("d{k}"),
                &Expr::parse(&format!("d{}+s{}", k - 1, k + 1)).unwrap(),
            );
        }
        let sizes: Vec<String> = (0..30)
            .map(|k| format!("16*(d{}+s{})", (k * 7) % 30, (k * 7) % 30 + 2))
            .collect();
        let texts: Vec<&str> = sizes.iter().map(String::as_str).collect();
        let distinct = exprs(&texts);
        let ranked = probe_rank(&distinct, &env).expect("every neighbour pair is decided");
        assert_eq!(ranked, insertion_rank(&distinct, &env));
        assert_eq!(rank_scores(&distinct, &env), ranked);
    }

    #[test]
    fn probe_order_without_confirmation_is_not_taken() {
        // s0 and s1 are incomparable: their probe values tie, no order is confirmed.
        let distinct = exprs(&["s0", "s1", "s1+1"]);
        assert_eq!(probe_rank(&distinct, &ShapeEnv::new()), None);
    }

    #[test]
    fn undecided_scores_keep_candidate_order() {
        // s0 and s1 are incomparable: s1+1 moves past s1, which it exceeds, and stops
        // at s0 (a merge sort would have to decide s1+1 against s0).
        let distinct = exprs(&["s0", "s1", "s1+1"]);
        let env = ShapeEnv::new();
        let ranked = rank_scores(&distinct, &env);
        assert_eq!(ranked, insertion_rank(&distinct, &env));
        assert_eq!(ranked, vec![0, 2, 1]);
    }

    #[test]
    fn partly_hinted_scores_rank_by_insertion() {
        let distinct = exprs(&["s0", "s1", "s1+1", "2*s0"]);
        let mut env = ShapeEnv::new();
        env.set_hint("s0", 8);
        assert_eq!(
            rank_scores(&distinct, &env),
            insertion_rank(&distinct, &env)
        );
    }

    #[test]
    fn hinted_scores_rank_stably_by_value() {
        let distinct = exprs(&["s0", "s1", "4*s0", "s2"]);
        let mut env = ShapeEnv::new();
        for (name, hint) in [("s0", 8), ("s1", 32), ("s2", 8)] {
            env.set_hint(name, hint);
        }
        assert_eq!(rank_scores(&distinct, &env), vec![1, 2, 0, 3]);
        assert_eq!(
            rank_scores(&distinct, &env),
            insertion_rank(&distinct, &env)
        );
    }

    fn ty(dtype: DType, dims: &[&str]) -> TensorType {
        TensorType::with_dims(dtype, dims).unwrap()
    }

    fn attrs(list: &[(&str, AttrValue)]) -> BTreeMap<String, AttrValue> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    fn reduce_attrs(axis: i64) -> BTreeMap<String, AttrValue> {
        attrs(&[
            ("axes", AttrValue::Array(vec![AttrValue::Int(axis)])),
            ("keep_dims", AttrValue::Bool(true)),
        ])
    }

    /// Lowers `op` into a kernel bound to graph values `inputs` -> `output`.
    fn kernel(
        op: &str,
        a: BTreeMap<String, AttrValue>,
        operand_types: &[TensorType],
        result: TensorType,
        inputs: &[ValueId],
        output: ValueId,
        number: usize,
    ) -> Kernel {
        let name = format!("autofuse_k_{number}_{}", camel_name(op));
        let graph = lower_op(op, &a, operand_types, &[result], None, &name).unwrap();
        Kernel {
            graph,
            inputs: inputs.to_vec(),
            outputs: vec![output],
        }
    }

    /// A kernel of one unary op reading value `input` of type `t` and writing `output`.
    fn unary(op: &str, t: &TensorType, input: ValueId, output: ValueId, number: usize) -> Kernel {
        kernel(
            op,
            BTreeMap::new(),
            std::slice::from_ref(t),
            t.clone(),
            &[input],
            output,
            number,
        )
    }

    /// Softmax over the last axis of [s0, 8], as decompose and lower produce it:
    /// v0 = x; v1 = max(v0); v2 = v0 - v1; v3 = exp(v2); v4 = sum(v3); v5 = v3 / v4.
    fn softmax_kernels() -> Vec<Kernel> {
        let full = ty(DType::F32, &["s0", "8"]);
        let row = ty(DType::F32, &["s0", "1"]);
        vec![
            kernel(
                "ascend.reduce_max",
                reduce_attrs(1),
                std::slice::from_ref(&full),
                row.clone(),
                &[0],
                1,
                0,
            ),
            kernel(
                "ascend.sub",
                BTreeMap::new(),
                &[full.clone(), row.clone()],
                full.clone(),
                &[0, 1],
                2,
                1,
            ),
            unary("ascend.exp", &full, 2, 3, 2),
            kernel(
                "ascend.reduce_sum",
                reduce_attrs(1),
                std::slice::from_ref(&full),
                row.clone(),
                &[3],
                4,
                3,
            ),
            kernel(
                "ascend.div",
                BTreeMap::new(),
                &[full.clone(), row],
                full,
                &[3, 4],
                5,
                4,
            ),
        ]
    }

    fn model_of(kernels: &[Kernel], values: usize, returns: &[ValueId]) -> FuncModel {
        let mut types = vec![None; values];
        for k in kernels {
            for (v, t) in k.inputs.iter().zip(&k.graph.inputs) {
                types[*v] = Some(t.clone());
            }
            for (v, t) in k.outputs.iter().zip(&k.graph.outputs) {
                types[*v] = Some(t.clone());
            }
        }
        FuncModel {
            units: kernels
                .iter()
                .map(|k| Unit {
                    label: k.graph.name.clone(),
                    inputs: k.inputs.clone(),
                    outputs: k.outputs.clone(),
                    kernel: Some(k.clone()),
                })
                .collect(),
            returns: returns.to_vec(),
            types,
            sinkable: Vec::new(),
        }
    }

    /// Runs kernels one after another on graph values (the unfused reference).
    fn run_chain(kernels: &[Kernel], values: &mut [Option<Tensor>]) {
        for k in kernels {
            let inputs: Vec<Tensor> = k
                .inputs
                .iter()
                .map(|v| values[*v].clone().unwrap())
                .collect();
            let outs = ascir_interp::run(&k.graph, &inputs).unwrap();
            for (v, t) in k.outputs.iter().zip(outs) {
                values[*v] = Some(t);
            }
        }
    }

    #[test]
    fn softmax_fuses_into_one_kernel_with_the_same_results() {
        let kernels = softmax_kernels();
        let model = model_of(&kernels, 6, &[5]);
        let mut env = ShapeEnv::new();
        let mut fresh = 100;
        let plan = plan(&model, &Limits::default(), &mut env, &mut fresh);
        assert_eq!(plan.kernels.len(), 1, "{:#?}", plan.decisions);
        let fused = &plan.kernels[0].kernel;
        assert_eq!(
            fused.graph.name,
            "autofuse_reduce_0_ReduceMax_Sub_Exp_ReduceSum_Div"
        );
        assert_eq!(fused.inputs, vec![0]);
        assert_eq!(fused.outputs, vec![5]);
        // One GM read of x, one GM write of y: no load of an intermediate.
        let count = |op: &str| fused.graph.nodes.iter().filter(|n| n.op == op).count();
        assert_eq!(
            (
                count("data"),
                count("load"),
                count("store"),
                count("output")
            ),
            (1, 1, 1, 1)
        );
        assert_eq!((count("max"), count("sum"), count("exp")), (1, 1, 1));
        // Same numbers as the five kernels run one by one.
        let x = Tensor::random(DType::F32, vec![3, 8], 7).unwrap();
        let mut values = vec![None; 6];
        values[0] = Some(x.clone());
        run_chain(&kernels, &mut values);
        let got = ascir_interp::run(&fused.graph, &[x]).unwrap();
        let want = values[5].clone().unwrap();
        assert_eq!(got[0].shape, want.shape);
        for (p, q) in got[0].data.iter().zip(&want.data) {
            assert!((p - q).abs() < 1e-6, "{p} vs {q}");
        }
        // GM bytes (a row of x is 32 bytes, a row max/sum 4): the five kernels move
        // (32+4) + (32+4+32) + (32+32) + (32+4) + (32+4+32) = 272 per row; the fused
        // one reads x and writes y once.
        let t = traffic(&model, &plan);
        assert_eq!(t.minimum.to_string(), "64*s0");
        assert_eq!(t.after, t.minimum);
        assert_eq!(t.before.to_string(), "272*s0");
    }

    #[test]
    fn a_value_needed_outside_stays_an_output() {
        // v1 = exp(x) is also returned: the fused kernel writes both v1 and v2.
        let t = ty(DType::F32, &["4"]);
        let kernels = vec![
            unary("ascend.exp", &t, 0, 1, 0),
            unary("ascend.abs", &t, 1, 2, 1),
        ];
        let model = model_of(&kernels, 3, &[2, 1]);
        let plan = plan(&model, &Limits::default(), &mut ShapeEnv::new(), &mut 10);
        assert_eq!(plan.kernels.len(), 1);
        let k = &plan.kernels[0].kernel;
        assert_eq!(k.outputs, vec![1, 2]);
        assert_eq!(k.graph.name, "autofuse_pointwise_0_Exp_Abs");
        let x = Tensor::random(DType::F32, vec![4], 1).unwrap();
        let outs = ascir_interp::run(&k.graph, std::slice::from_ref(&x)).unwrap();
        for (i, v) in x.data.iter().enumerate() {
            assert!((outs[0].data[i] - v.exp()).abs() < 1e-5);
            assert!((outs[1].data[i] - v.exp().abs()).abs() < 1e-5);
        }
    }

    #[test]
    fn siblings_share_the_load_of_a_common_input() {
        let t = ty(DType::F32, &["s0"]);
        let kernels = vec![
            unary("ascend.exp", &t, 0, 1, 0),
            unary("ascend.abs", &t, 0, 2, 1),
        ];
        let model = model_of(&kernels, 3, &[1, 2]);
        let plan = plan(&model, &Limits::default(), &mut ShapeEnv::new(), &mut 10);
        assert_eq!(plan.kernels.len(), 1);
        assert!(!plan.decisions[0].vertical);
        let g = &plan.kernels[0].kernel.graph;
        assert_eq!(g.nodes.iter().filter(|n| n.op == "load").count(), 1);
        assert_eq!(plan.decisions[0].saved.to_string(), "4*s0");
    }

    #[test]
    fn reshape_that_merges_dims_refines_the_axes() {
        let a = kernel(
            "ascend.abs",
            BTreeMap::new(),
            &[ty(DType::F32, &["4", "6"])],
            ty(DType::F32, &["4", "6"]),
            &[0],
            1,
            0,
        );
        let b = kernel(
            "ascend.reshape",
            BTreeMap::new(),
            &[ty(DType::F32, &["4", "6"])],
            ty(DType::F32, &["24"]),
            &[1],
            2,
            1,
        );
        let merged = merge_kernels(&a, &b, &|_| true, &ShapeEnv::new(), 0).unwrap();
        // The reshape's axis of 24 became 4 x 6; its store walks [24] with strides 6, 1.
        let g = &merged.kernel.graph;
        let sizes: Vec<String> = g.axes.iter().map(|x| x.size.to_string()).collect();
        assert_eq!(sizes, ["4", "6"]);
        let store = g.nodes.iter().find(|n| n.op == "store").unwrap();
        assert_eq!(
            store.view.strides,
            vec![Expr::constant(6), Expr::constant(1)]
        );
    }

    #[test]
    fn reshape_without_common_factors_is_an_axis_mismatch() {
        let a = kernel(
            "ascend.abs",
            BTreeMap::new(),
            &[ty(DType::F32, &["6", "4"])],
            ty(DType::F32, &["6", "4"]),
            &[0],
            1,
            0,
        );
        let b = kernel(
            "ascend.reshape",
            BTreeMap::new(),
            &[ty(DType::F32, &["6", "4"])],
            ty(DType::F32, &["4", "6"]),
            &[1],
            2,
            1,
        );
        let err = merge_kernels(&a, &b, &|_| true, &ShapeEnv::new(), 0).unwrap_err();
        assert_eq!(err.rule, Rule::AxisMismatch);
        assert!(err.detail.contains("walks no dim"), "{}", err.detail);
    }

    #[test]
    fn reductions_over_different_axes_conflict() {
        let a = kernel(
            "ascend.reduce_sum",
            reduce_attrs(1),
            &[ty(DType::F32, &["s0", "8"])],
            ty(DType::F32, &["s0", "1"]),
            &[0],
            1,
            0,
        );
        let b = kernel(
            "ascend.reduce_max",
            reduce_attrs(0),
            &[ty(DType::F32, &["s0", "1"])],
            ty(DType::F32, &["1", "1"]),
            &[1],
            2,
            1,
        );
        let err = merge_kernels(&a, &b, &|_| true, &ShapeEnv::new(), 0).unwrap_err();
        assert_eq!(err.rule, Rule::TilingGroupConflict, "{err}");
    }

    #[test]
    fn unrelated_axes_pair_by_size_under_hints_only_with_a_guard() {
        // sum over s1 of x[s0, s1], then added to w[s0, s2]: s1 and s2 only match
        // under hints.
        let a = kernel(
            "ascend.reduce_sum",
            reduce_attrs(1),
            &[ty(DType::F32, &["s0", "s1"])],
            ty(DType::F32, &["s0", "1"]),
            &[0],
            1,
            0,
        );
        let b = kernel(
            "ascend.add",
            BTreeMap::new(),
            &[ty(DType::F32, &["s0", "1"]), ty(DType::F32, &["s0", "s2"])],
            ty(DType::F32, &["s0", "s2"]),
            &[1, 2],
            3,
            1,
        );
        let env = ShapeEnv::new();
        assert_eq!(
            merge_kernels(&a, &b, &|_| true, &env, 0).unwrap_err().rule,
            Rule::AxisMismatch
        );
        let mut hinted = ShapeEnv::new();
        hinted.set_hint("s1", 16);
        hinted.set_hint("s2", 16);
        let merged = merge_kernels(&a, &b, &|_| true, &hinted, 0).unwrap();
        assert_eq!(
            merged.hinted,
            vec![(Expr::symbol("s1"), Expr::symbol("s2"))]
        );
    }

    #[test]
    fn cycles_and_caps_are_refused() {
        // k0: v1 = exp(v0); an op outside reads v1 and writes v2; k1: v3 = v1 + v2.
        let t = ty(DType::F32, &["4"]);
        let k0 = unary("ascend.exp", &t, 0, 1, 0);
        let k1 = kernel(
            "ascend.add",
            BTreeMap::new(),
            &[t.clone(), t.clone()],
            t.clone(),
            &[1, 2],
            3,
            1,
        );
        let mut model = model_of(&[k0.clone(), k1.clone()], 4, &[3]);
        model.types[2] = Some(t.clone());
        model.units.insert(
            1,
            Unit {
                label: "ascend.matmul".into(),
                inputs: vec![1],
                outputs: vec![2],
                kernel: None,
            },
        );
        let plan1 = plan(&model, &Limits::default(), &mut ShapeEnv::new(), &mut 10);
        assert_eq!(plan1.kernels.len(), 2);
        let refusal = plan1.decisions[0].outcome.clone().unwrap_err();
        assert_eq!(refusal.rule, Rule::Cycle);
        assert!(refusal.detail.contains("ascend.matmul"));

        let model = model_of(&[k0, k1], 4, &[3]);
        let tight = Limits {
            max_fusion_size: 1,
            ..Limits::default()
        };
        let p = plan(&model, &tight, &mut ShapeEnv::new(), &mut 10);
        assert_eq!(
            p.decisions[0].outcome.clone().unwrap_err().rule,
            Rule::SizeCap
        );
        let tight = Limits {
            max_inputs: 1,
            ..Limits::default()
        };
        let p = plan(&model, &tight, &mut ShapeEnv::new(), &mut 10);
        assert_eq!(
            p.decisions[0].outcome.clone().unwrap_err().rule,
            Rule::InputCap
        );
    }

    #[test]
    fn kernel_names_are_capped() {
        let ops: Vec<String> = (0..40).map(|i| format!("Op{i}")).collect();
        let name = kernel_name("pointwise", 3, &ops);
        assert!(name.len() <= MAX_NAME_LEN, "{name}");
        assert!(name.starts_with("autofuse_pointwise_3_Op0_Op1"));
        assert!(name.ends_with("more"));
        assert_eq!(kernel_number(&name), Some(3));
        assert_eq!(kernel_number("autofuse_reduce_12_ReduceSum"), Some(12));
    }

    #[test]
    fn lifting_reads_back_attributes() {
        let k = kernel(
            "ascend.reduce_sum",
            attrs(&[
                ("axes", AttrValue::Array(vec![AttrValue::Int(1)])),
                ("keep_dims", AttrValue::Bool(false)),
            ]),
            &[ty(DType::F32, &["s0", "8", "4"])],
            ty(DType::F32, &["s0", "4"]),
            &[0],
            1,
            0,
        );
        assert_eq!(
            lift(&k.graph).unwrap(),
            LiftedOp {
                op: "ascend.reduce_sum".into(),
                attrs: vec![
                    ("axes".into(), "[1]".into()),
                    ("keep_dims".into(), "false".into())
                ]
            }
        );
        let k = kernel(
            "ascend.unsqueeze",
            attrs(&[("axes", AttrValue::Array(vec![AttrValue::Int(0)]))]),
            &[ty(DType::F32, &["s0"])],
            ty(DType::F32, &["1", "s0"]),
            &[0],
            1,
            0,
        );
        assert_eq!(
            lift(&k.graph).unwrap().attrs,
            vec![("axes".into(), "[0]".into())]
        );
        let k = kernel(
            "ascend.leaky_relu",
            attrs(&[("alpha", AttrValue::Float(0.5))]),
            &[ty(DType::F32, &["4"])],
            ty(DType::F32, &["4"]),
            &[0],
            1,
            0,
        );
        let lifted = lift(&k.graph).unwrap();
        assert_eq!(lifted.op, "ascend.leaky_relu");
        assert!(lifted.attrs[0].1.starts_with("5.0"));
    }
}
