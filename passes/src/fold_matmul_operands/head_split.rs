//! Step 3 of `--fold-matmul-operands`: head transposes moved above a split of fused
//! projections (GPT-2's QKV), where they fuse into the producer's store.
//!
//! Pattern, for a value `x` of rank r with a static innermost dim `N`: every user of `x`
//! is a chain `transpose(reshape(slice(x)), P)` where the slice takes `[s, e)` of axis
//! r-1 alone (step 1), the reshape splits that axis into `[H, d]` keeping the others,
//! and the permutation `P` (rank r+1) keeps the innermost axis in place; every chain has
//! the same `d` and `P`, `d` divides `N` and `s`, the slices together cover at least `N`
//! elements (so the whole transpose moves no more than the transposes it replaces), and
//! one of the transposes feeds an `ascend.matmul`.
//!
//! Rewrite: `x` is reshaped once to its leading dims plus `[N/d, d]` and transposed once
//! by `P`; every chain becomes `slice(that, [s/d, e/d))` on the axis where `P` puts the
//! head axis. Element `[.., h, j]` of a chain's reshape is element `s + h*d + j` of `x`'s
//! innermost axis, i.e. `[.., s/d + h, j]` of the whole reshape, and `P` moves the same
//! axes in both, so every chain reads the same elements as before.
//!
//! Why: a transpose of a slice keeps a loop axis (the head) that strides the slice's
//! source by `d` inside a window, which fusion cannot share with the slice's kernel
//! (AF-NF005), so each such transpose ran as a boundary op; the transpose of the whole
//! reshape fuses into the kernel producing `x` (a bias add), and the slices of its result
//! into one kernel.

use autofuse_ir::graph::{Dim, Graph, Node, TensorType, ValueDef};
use autofuse_mlir::builder::{Emitter, Typed};
use autofuse_mlir::{diagnostics, raw};
use melior::ir::{operation::OperationLike, OperationRef};

/// One matched chain: the slice window and the three ops.
struct Chain<'c, 'a> {
    start: i64,
    end: i64,
    /// The chain's transpose result type (the new slice must produce it).
    ty: TensorType,
    slice: OperationRef<'c, 'a>,
    reshape: OperationRef<'c, 'a>,
    transpose: OperationRef<'c, 'a>,
    /// Node indices of the slice (first in block order), the reshape and the transpose.
    nodes: [usize; 3],
}

/// A matched split of one value.
struct Split<'c, 'a> {
    head: i64,
    perm: Vec<i64>,
    chains: Vec<Chain<'c, 'a>>,
}

/// Rewrites every split of `graph` (module doc); returns how many transposes moved and
/// whether no error was reported.
pub(super) fn hoist_head_transposes<'c: 'a, 'a>(
    graph: &Graph,
    ops: &[OperationRef<'c, 'a>],
) -> (u64, bool) {
    let users = graph.users();
    let mut moved = 0;
    let mut ok = true;
    // Nodes erased by an earlier rewrite: a value they defined is gone.
    let mut erased = std::collections::BTreeSet::new();
    for value in 0..graph.values.len() {
        if let Some(ValueDef::Result { node, .. }) = graph.values.get(value).map(|v| v.def) {
            if erased.contains(&node) {
                continue;
            }
        }
        let Some(split) = match_split(graph, ops, &users, value) else {
            continue;
        };
        erased.extend(split.chains.iter().flat_map(|c| c.nodes));
        match rewrite(graph, value, &split) {
            Ok(n) => moved += n,
            Err(()) => ok = false,
        }
    }
    (moved, ok)
}

fn int_list(node: &Node, name: &str) -> Option<Vec<i64>> {
    node.attrs.get(name)?.as_ints()
}

/// The only user of `value` when it has exactly one, that user is `name` and the
/// function does not return `value` (`users` leaves the return out).
fn single_user<'g>(
    graph: &'g Graph,
    users: &[Vec<(usize, usize)>],
    value: usize,
    name: &str,
) -> Option<(usize, &'g Node)> {
    if graph.outputs.contains(&value) {
        return None;
    }
    match users.get(value)?.as_slice() {
        [(n, 0)] => graph
            .nodes
            .get(*n)
            .filter(|node| node.op == name)
            .map(|node| (*n, node)),
        _ => None,
    }
}

fn match_split<'c, 'a>(
    graph: &Graph,
    ops: &[OperationRef<'c, 'a>],
    users: &[Vec<(usize, usize)>],
    value: usize,
) -> Option<Split<'c, 'a>> {
    let x_ty = graph.ty(value)?;
    let r = x_ty.rank();
    let n = x_ty.dims.last()?.as_const()?;
    if !super::known(x_ty) || graph.outputs.contains(&value) {
        return None;
    }
    let list = users.get(value)?;
    if list.is_empty() {
        return None;
    }
    let mut split: Option<Split> = None;
    let mut covered = 0;
    let mut feeds_matmul = false;
    for &(slice_node, index) in list {
        let slice = graph.nodes.get(slice_node)?;
        if slice.op != "ascend.slice" || index != 0 {
            return None;
        }
        let axes = int_list(slice, "axes")?;
        if axes.len() != 1 || (axes[0] != r as i64 - 1 && axes[0] != -1) {
            return None;
        }
        if int_list(slice, "steps")? != [1] {
            return None;
        }
        let (start, end) = (int_list(slice, "starts")?, int_list(slice, "ends")?);
        let (start, end) = (*start.first()?, (*end.first()?).min(n));
        if !(0 <= start && start < end) {
            return None;
        }
        let sliced = *slice.results.first()?;
        let (reshape_node, reshape) = single_user(graph, users, sliced, "ascend.reshape")?;
        let reshaped = *reshape.results.first()?;
        let reshaped_ty = graph.ty(reshaped)?;
        // The reshape splits the innermost axis into [H, d], keeping the others.
        if reshaped_ty.rank() != r + 1 || reshaped_ty.dims[..r - 1] != x_ty.dims[..r - 1] {
            return None;
        }
        let heads = reshaped_ty.dims[r - 1].as_const()?;
        let head = reshaped_ty.dims[r].as_const()?;
        if head <= 0 || heads * head != end - start || start % head != 0 || n % head != 0 {
            return None;
        }
        let (transpose_node, transpose) = single_user(graph, users, reshaped, "ascend.transpose")?;
        let perm = int_list(transpose, "perm")?;
        if perm.len() != r + 1 || perm[r] != r as i64 {
            return None;
        }
        let transposed = *transpose.results.first()?;
        feeds_matmul |= users.get(transposed)?.iter().any(|&(u, _)| {
            graph
                .nodes
                .get(u)
                .is_some_and(|node| node.op == "ascend.matmul")
        });
        let chain = Chain {
            start,
            end,
            ty: graph.ty(transposed)?.clone(),
            slice: *ops.get(slice_node)?,
            reshape: *ops.get(reshape_node)?,
            transpose: *ops.get(transpose_node)?,
            nodes: [slice_node, reshape_node, transpose_node],
        };
        covered += end - start;
        match &mut split {
            None => {
                split = Some(Split {
                    head,
                    perm,
                    chains: vec![chain],
                })
            }
            Some(s) if s.head == head && s.perm == perm => s.chains.push(chain),
            Some(_) => return None,
        }
    }
    let split = split?;
    let identity = split.perm.iter().enumerate().all(|(k, &p)| p == k as i64);
    (feeds_matmul && !identity && covered >= n).then_some(split)
}

/// Builds the whole reshape and transpose of `value` and one slice per chain, replaces
/// every chain's transpose and erases the chains. Returns the number of chains.
fn rewrite<'c: 'a, 'a>(graph: &Graph, value: usize, split: &Split<'c, 'a>) -> Result<u64, ()> {
    let Some(first) = split.chains.iter().min_by_key(|c| c.nodes[0]) else {
        return Ok(0);
    };
    let (Some(x_ty), Ok(x)) = (graph.ty(value), first.slice.operand(0)) else {
        return Ok(0);
    };
    let location = first.slice.location();
    let fail = |what: String| {
        diagnostics::error(
            location,
            format!("cannot move the head transposes above the split: {what}"),
        );
    };
    let Some(mut emitter) = Emitter::before(first.slice) else {
        return Ok(0);
    };
    let r = x_ty.rank();
    let n = x_ty.dims[r - 1].as_const().unwrap_or(0);
    let mut dims = x_ty.dims[..r - 1].to_vec();
    dims.push(Dim::constant(n / split.head));
    dims.push(Dim::constant(split.head));
    let whole_ty = TensorType::new(x_ty.dtype, dims);
    let x = Typed {
        value: x,
        ty: x_ty.clone(),
    };
    let perm_text = format!("{:?}", split.perm);
    let whole = emitter
        .build("ascend.reshape", &[&x], &[], &whole_ty)
        .map(|value| Typed {
            value,
            ty: whole_ty,
        })
        .and_then(|w| emitter.op("ascend.transpose", &[&w], &[("perm", &perm_text)], None))
        .map_err(|e| fail(e.to_string()))?;
    // Where P puts the head axis (r-1 of the reshape).
    let Some(head_axis) = split.perm.iter().position(|&p| p == r as i64 - 1) else {
        return Ok(0);
    };
    for chain in &split.chains {
        let sliced = emitter
            .op(
                "ascend.slice",
                &[&whole],
                &[
                    ("starts", &format!("[{}]", chain.start / split.head)),
                    ("ends", &format!("[{}]", chain.end / split.head)),
                    ("axes", &format!("[{head_axis}]")),
                    ("steps", "[1]"),
                ],
                None,
            )
            .map_err(|e| fail(e.to_string()))?;
        if sliced.ty != chain.ty {
            fail(format!(
                "internal error: a head slice has type {} where {} was expected",
                sliced.ty, chain.ty
            ));
            return Err(());
        }
        if let Ok(old) = chain.transpose.result(0) {
            raw::replace_all_uses(old.into(), sliced.value);
        }
    }
    // Erased once every slice is built: the emitter inserts before the first chain's.
    for chain in &split.chains {
        raw::erase_op(chain.transpose);
        raw::erase_op(chain.reshape);
        raw::erase_op(chain.slice);
    }
    Ok(split.chains.len() as u64)
}
