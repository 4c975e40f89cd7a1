//! `--fold-matmul-operands`: folds data movement feeding an `ascend.matmul` into the
//! matmul itself, so that it is never run as an op of its own (a boundary op or a
//! kernel launch).
//!
//! What it does, per graph function, for every `ascend.matmul`:
//! 1. Transpose flags. An operand defined by an `ascend.transpose` whose permutation
//!    `P` (rank r) puts the source's innermost axis at position r-2 is read through
//!    the matmul's own transpose flag of that operand (`transpose_a`/`transpose_b`,
//!    flipped): `matmul(T(x, P)) = matmul^T(T(x, P'))` with `P'` = `P` with its last
//!    two entries swapped. When `P'` is the identity (P swaps the two innermost axes,
//!    leading axes in place) the matmul reads `x` itself; otherwise it reads a new
//!    `transpose(x, P')` that keeps the innermost axis in place (a head transpose,
//!    which fuses into its producer's store where a transpose moving the innermost
//!    axis does not). A transpose that moves the innermost axis elsewhere (`P[r-1]`
//!    or an axis before r-2), or that keeps it, is left alone: the flags only swap the
//!    two innermost axes.
//! 2. Batch broadcast (grouped-query attention's K/V head repeat). An operand
//!    `reshape(broadcast_to(y))` (possibly after step 1) whose two innermost dims the
//!    reshape and the broadcast both keep (`y`'s two innermost dims equal the operand's),
//!    whose other operand `o` has exactly the operand's batch dims, and whose broadcast
//!    result's batch dims multiply to the same element count, becomes
//!    `reshape(matmul(reshape(o, E_batch + o_inner), y))` with `E_batch` the broadcast
//!    result's batch dims: the matmul broadcasts `y`'s batch dims itself, so the
//!    repeated heads are never materialized. (Row-major: the reshape of the operand's
//!    batch from `E_batch` applies to `o`'s equal batch dims alike, so every batch
//!    index pairs the same rows of both operands as before.)
//! 3. Head transposes above a split (`head_split.rs`), on the graph steps 1-2 leave.
//!    When every user of a value `x` with a static innermost dim `N` is
//!    `transpose(reshape(slice(x)), P)` (the slice takes `[s, e)` of the innermost axis,
//!    the reshape splits it into `[H, d]`, `P` keeps the innermost axis), all with the
//!    same `d` and `P`, `d` dividing `N` and `s`, the slices covering at least `N`
//!    elements, and one transpose feeding a matmul (GPT-2's fused QKV projection split
//!    into heads), `x` is reshaped to `[.., N/d, d]` and transposed by `P` once, and each
//!    chain becomes a slice `[s/d, e/d)` of its head axis. The transpose of the whole
//!    fuses into the store of `x`'s producer and the slices into one kernel, where a
//!    transpose of a slice could share a kernel with neither (AF-NF005).
//!
//! The transposes, reshapes and broadcasts left without users are erased; ones with
//! other users stay for them.
//!
//! Preconditions: the module verifies; shapes are inferred (`--infer-symbolic-shapes`:
//! every dim known, symbolic or constant). Run before `--decompose` (which vectorizes
//! small matmuls with any flags and batch broadcast) and `--lower-to-ascir`.
//! Postconditions: the module verifies; every graph computes the same values; every
//! rewritten matmul has the result type it had (the reshape back restores it), new ops
//! carry the matmul's location.

mod head_split;

use crate::options::PassOptions;
use crate::registry::PassInfo;
use crate::statistics;
use autofuse_ascend::shape::ShapeError;
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{Dim, Graph, Node, TensorType, ValueDef};
use autofuse_mlir::builder::{Emitter, Typed};
use autofuse_mlir::{diagnostics, extract, raw};
use autofuse_symbolic::Expr;
use melior::ir::{operation::OperationLike, OperationRef};
use std::collections::BTreeMap;

pub const PASS: PassInfo = PassInfo {
    argument: "fold-matmul-operands",
    summary: "Fold transposes of the two innermost axes and K/V head-repeat broadcasts into the matmuls they feed; move head transposes above a QKV split",
    description: "A transpose feeding an ascend.matmul that puts its source's innermost axis second to last \
                  becomes the operand's transpose flag (flipped), reading the source, or a transpose that keeps \
                  the innermost axis in place when leading axes move too. An operand reshape(broadcast_to(y)) \
                  that keeps the two innermost dims (grouped-query attention's repeat of K/V heads), whose \
                  other operand has the same batch dims, becomes the matmul's batch broadcast: the other \
                  operand is reshaped to the broadcast's batch dims, the matmul reads y, and its result is \
                  reshaped back, so the repeat is never materialized. When every user of a value is a \
                  head transpose of a slice of its innermost axis (a fused QKV projection split into \
                  heads) and one feeds a matmul, the value is transposed once and the heads sliced \
                  from that, so the transpose fuses into the value's producer. Ops left without users \
                  are erased. \
                  Run after --infer-symbolic-shapes, before --decompose.",
    options: &[],
    run,
};

/// How one matmul operand is read after the rewrite.
struct Operand<'c, 'a> {
    /// The value read (the transpose's source, or a new transpose of it).
    typed: Typed<'c, 'a>,
    /// Graph value the operand now stands for, when it is an existing value (for the
    /// broadcast match); `None` when a new transpose was built.
    value: Option<usize>,
}

fn run(module: OperationRef, _options: &PassOptions) -> Result<(), ()> {
    let body = extract::module_body(module).ok_or(())?;
    let mut flags = 0u64;
    let mut broadcasts = 0u64;
    let mut head_transposes = 0u64;
    let mut ok = true;
    for func in extract::functions(body) {
        let Some(extracted) = extract::extract_function(func) else {
            continue;
        };
        let mut folder = Folder {
            graph: &extracted.graph,
            ops: &extracted.ops,
            touched: Vec::new(),
            flags: 0,
            broadcasts: 0,
            ok: true,
        };
        for (node, op) in extracted.graph.nodes.iter().zip(&extracted.ops) {
            folder.fold_matmul(node, *op);
        }
        flags += folder.flags;
        broadcasts += folder.broadcasts;
        ok &= folder.ok;
        erase_unused_producers(&folder.touched);
        // Step 3 reads the graph the matmul rewrites left.
        let Some(folded) = extract::extract_function(func) else {
            continue;
        };
        let (moved, hoisted_ok) = head_split::hoist_head_transposes(&folded.graph, &folded.ops);
        head_transposes += moved;
        ok &= hoisted_ok;
    }
    statistics::add(
        PASS.argument,
        "transpose-flags",
        "Number of transposes read through a matmul's transpose flag",
        flags,
    );
    statistics::add(
        PASS.argument,
        "batch-broadcasts",
        "Number of head-repeat broadcasts turned into a matmul's batch broadcast",
        broadcasts,
    );
    statistics::add(
        PASS.argument,
        "head-transposes-above-split",
        "Number of head transposes of a split moved above it",
        head_transposes,
    );
    if ok {
        Ok(())
    } else {
        Err(())
    }
}

/// The rewrite of the matmuls of one graph function.
struct Folder<'g, 'c, 'a> {
    graph: &'g Graph,
    ops: &'g [OperationRef<'c, 'a>],
    /// Producers of folded operands, in the order the chains were walked: erased at the
    /// end when nothing else reads them.
    touched: Vec<OperationRef<'c, 'a>>,
    flags: u64,
    broadcasts: u64,
    /// False once an error was reported.
    ok: bool,
}

impl<'g, 'c: 'a, 'a> Folder<'g, 'c, 'a> {
    /// Folds the transposes and the head repeat feeding `node`, if it is a matmul, and
    /// replaces its op when anything folded.
    fn fold_matmul(&mut self, node: &Node, op: OperationRef<'c, 'a>) {
        let graph = self.graph;
        if node.op != "ascend.matmul" || node.operands.len() != 2 {
            return;
        }
        let Some(result_ty) = node.results.first().and_then(|&r| graph.ty(r)) else {
            return;
        };
        if !known(result_ty) {
            return;
        }
        let Some(mut emitter) = Emitter::before(op) else {
            return;
        };
        let mut attrs = node.attrs.clone();
        let Some((operands, changed)) = self.fold_transposes(&mut emitter, node, op, &mut attrs)
        else {
            return;
        };
        // The batch broadcast of one operand, the first that matches.
        let mut repeat = None;
        for i in 0..2 {
            if let Some(m) = head_repeat(graph, self.ops, &operands[i], &operands[1 - i]) {
                repeat = Some((i, m));
                break;
            }
        }
        let flag_attrs = flag_attrs(&attrs);
        let built = if let Some((i, m)) = repeat {
            Some(self.fold_head_repeat(&mut emitter, &operands, i, m, &flag_attrs, result_ty))
        } else if changed {
            Some(emitter.op(
                "ascend.matmul",
                &[&operands[0].typed, &operands[1].typed],
                &flag_attrs,
                Some(result_ty.dtype),
            ))
        } else {
            None
        };
        if let Some(built) = built {
            self.replace_matmul(op, built, result_ty);
        }
    }

    /// Both operands of matmul `node`, each transpose that puts its source's innermost
    /// axis second to last read through the operand's flag (flipped in `attrs`), and
    /// whether a flag changed. `None` when an operand cannot be read or a remaining
    /// transpose cannot be built (the matmul is left as it is).
    fn fold_transposes(
        &mut self,
        emitter: &mut Emitter<'c, 'a>,
        node: &Node,
        op: OperationRef<'c, 'a>,
        attrs: &mut BTreeMap<String, AttrValue>,
    ) -> Option<(Vec<Operand<'c, 'a>>, bool)> {
        let mut operands = Vec::new();
        let mut changed = false;
        for (i, flag) in [(0usize, "transpose_a"), (1, "transpose_b")] {
            let Ok(value) = op.operand(i) else {
                break;
            };
            let Some(ty) = self.graph.ty(node.operands[i]).cloned() else {
                break;
            };
            let mut operand = Operand {
                typed: Typed { value, ty },
                value: Some(node.operands[i]),
            };
            if let Some((source, perm, producer)) =
                innermost_to_row(self.graph, self.ops, node.operands[i])
            {
                self.touched.push(producer);
                let Some(folded) = self.transpose_remainder(emitter, source, &perm, op) else {
                    continue;
                };
                operand = folded;
                let on = attrs
                    .get(flag)
                    .and_then(AttrValue::as_bool)
                    .unwrap_or(false);
                attrs.insert(flag.to_string(), AttrValue::Bool(!on));
                changed = true;
                self.flags += 1;
            }
            operands.push(operand);
        }
        (operands.len() == 2).then_some((operands, changed))
    }

    /// What the matmul reads once the flag takes over a transpose: its source when the
    /// permutation left (`perm`) is the identity, else a new transpose of the source by
    /// `perm`. `None` after reporting that the transpose cannot be built.
    fn transpose_remainder(
        &mut self,
        emitter: &mut Emitter<'c, 'a>,
        source: (Typed<'c, 'a>, usize),
        perm: &[i64],
        op: OperationRef<'c, 'a>,
    ) -> Option<Operand<'c, 'a>> {
        if perm.iter().enumerate().all(|(k, &p)| p == k as i64) {
            return Some(Operand {
                typed: source.0,
                value: Some(source.1),
            });
        }
        let text = format!(
            "[{}]",
            perm.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        match emitter.op("ascend.transpose", &[&source.0], &[("perm", &text)], None) {
            Ok(t) => Some(Operand {
                typed: t,
                value: None,
            }),
            Err(e) => {
                diagnostics::error(
                    op.location(),
                    format!("cannot fold a transpose into the matmul: {e}"),
                );
                self.ok = false;
                None
            }
        }
    }

    /// `reshape(matmul(reshape(other), y))` for the head repeat `m` of operand `i`: the
    /// other operand reshaped to the broadcast's batch dims, the matmul broadcasting `y`,
    /// and its result reshaped back to `result_ty`.
    fn fold_head_repeat(
        &mut self,
        emitter: &mut Emitter<'c, 'a>,
        operands: &[Operand<'c, 'a>],
        i: usize,
        m: Repeat<'c, 'a>,
        flag_attrs: &[(&str, &str)],
        result_ty: &TensorType,
    ) -> Result<Typed<'c, 'a>, ShapeError> {
        let other = &operands[1 - i];
        let rank = other.typed.ty.dims.len();
        let mut dims = m.batch.clone();
        dims.extend(other.typed.ty.dims[rank - 2..].iter().cloned());
        let reshaped_ty = TensorType::new(other.typed.ty.dtype, dims);
        let r = emitter
            .build("ascend.reshape", &[&other.typed], &[], &reshaped_ty)
            .map(|value| Typed {
                value,
                ty: reshaped_ty,
            })
            .and_then(|reshaped| {
                let pair: [&Typed; 2] = if i == 0 {
                    [&m.source, &reshaped]
                } else {
                    [&reshaped, &m.source]
                };
                emitter.op("ascend.matmul", &pair, flag_attrs, Some(result_ty.dtype))
            })
            .and_then(|product| {
                emitter
                    .build("ascend.reshape", &[&product], &[], result_ty)
                    .map(|value| Typed {
                        value,
                        ty: result_ty.clone(),
                    })
            });
        self.touched.extend(m.ops);
        self.broadcasts += 1;
        r
    }

    /// Replaces matmul `op` by the value `built` for it, which must have its type.
    fn replace_matmul(
        &mut self,
        op: OperationRef<'c, 'a>,
        built: Result<Typed<'c, 'a>, ShapeError>,
        result_ty: &TensorType,
    ) {
        match built {
            Ok(new) => {
                if new.ty != *result_ty {
                    diagnostics::error(
                        op.location(),
                        format!(
                            "internal error: folding the matmul's operands changed its type \
                             from {result_ty} to {}",
                            new.ty
                        ),
                    );
                    self.ok = false;
                    return;
                }
                if let Ok(old) = op.result(0) {
                    raw::replace_all_uses(old.into(), new.value);
                }
                raw::erase_op(op);
            }
            Err(e) => {
                diagnostics::error(
                    op.location(),
                    format!("cannot fold the matmul's operands: {e}"),
                );
                self.ok = false;
            }
        }
    }
}

/// The matmul's flags as attribute texts.
fn flag_attrs(attrs: &BTreeMap<String, AttrValue>) -> [(&'static str, &'static str); 2] {
    let text = |f: &str| {
        if attrs.get(f).and_then(AttrValue::as_bool).unwrap_or(false) {
            "true"
        } else {
            "false"
        }
    };
    [
        ("transpose_a", text("transpose_a")),
        ("transpose_b", text("transpose_b")),
    ]
}

/// Erases the producers in `touched` left without users, consumers first (the list is
/// in the order the chains were walked: transpose, reshape, broadcast_to), repeatedly.
fn erase_unused_producers(touched: &[OperationRef]) {
    let mut erased: Vec<OperationRef> = Vec::new();
    loop {
        let mut progress = false;
        for &t in touched {
            if erased.contains(&t) {
                continue;
            }
            if t.results().all(|r| !raw::has_uses(r.into())) {
                raw::erase_op(t);
                erased.push(t);
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
}

fn known(ty: &TensorType) -> bool {
    ty.dims.iter().all(|d| matches!(d, Dim::Known(_)))
}

fn producer<'g>(graph: &'g Graph, value: usize, name: &str) -> Option<(usize, &'g Node)> {
    let ValueDef::Result { node, .. } = graph.values.get(value)?.def else {
        return None;
    };
    let n = graph.nodes.get(node)?;
    (n.op == name).then_some((node, n))
}

type Source<'c, 'a> = ((Typed<'c, 'a>, usize), Vec<i64>, OperationRef<'c, 'a>);

/// The transpose defining `value` when it puts its source's innermost axis at r-2:
/// its source (typed, graph value), the permutation `P'` the matmul's flag leaves
/// (`P` with its last two entries swapped) and the transpose op.
fn innermost_to_row<'c, 'a>(
    graph: &Graph,
    ops: &[OperationRef<'c, 'a>],
    value: usize,
) -> Option<Source<'c, 'a>> {
    let (node, transpose) = producer(graph, value, "ascend.transpose")?;
    let mut perm = transpose.attrs.get("perm")?.as_ints()?.to_vec();
    let r = perm.len();
    if r < 2 || perm[r - 2] != r as i64 - 1 {
        return None;
    }
    perm.swap(r - 2, r - 1);
    let source = *transpose.operands.first()?;
    let ty = graph.ty(source)?.clone();
    if !known(&ty) {
        return None;
    }
    let op = *ops.get(node)?;
    let v = op.operand(0).ok()?;
    Some(((Typed { value: v, ty }, source), perm, op))
}

/// A matched head repeat: the broadcast's source and the broadcast's batch dims.
struct Repeat<'c, 'a> {
    source: Typed<'c, 'a>,
    batch: Vec<Dim>,
    /// The reshape and the broadcast_to, in that order.
    ops: Vec<OperationRef<'c, 'a>>,
}

/// Whether `operand` is `reshape(broadcast_to(y))` that the matmul can broadcast from
/// `y` itself, with `other` the matmul's other operand (see the module doc, step 2).
fn head_repeat<'c, 'a>(
    graph: &Graph,
    ops: &[OperationRef<'c, 'a>],
    operand: &Operand<'c, 'a>,
    other: &Operand<'c, 'a>,
) -> Option<Repeat<'c, 'a>> {
    let value = operand.value?;
    let (reshape_node, reshape) = producer(graph, value, "ascend.reshape")?;
    let expanded = *reshape.operands.first()?;
    let (broadcast_node, broadcast) = producer(graph, expanded, "ascend.broadcast_to")?;
    let y = *broadcast.operands.first()?;
    let (b_ty, e_ty, y_ty) = (&operand.typed.ty, graph.ty(expanded)?, graph.ty(y)?);
    let o_ty = &other.typed.ty;
    if ![b_ty, e_ty, y_ty, o_ty].into_iter().all(known) {
        return None;
    }
    let (rb, re, ry, ro) = (
        b_ty.dims.len(),
        e_ty.dims.len(),
        y_ty.dims.len(),
        o_ty.dims.len(),
    );
    if rb < 3 || re < 3 || ry < 2 || ro != rb {
        return None;
    }
    // The two innermost dims stay as they are through the broadcast and the reshape.
    if b_ty.dims[rb - 2..] != e_ty.dims[re - 2..] || y_ty.dims[ry - 2..] != e_ty.dims[re - 2..] {
        return None;
    }
    // The other operand has the operand's batch dims (no broadcast between them).
    if o_ty.dims[..ro - 2] != b_ty.dims[..rb - 2] {
        return None;
    }
    // The broadcast's batch dims hold as many batches as the operand's.
    let product = |dims: &[Dim]| -> Option<Expr> {
        dims.iter()
            .try_fold(Expr::constant(1), |acc, d| Some(acc * d.expr()?.clone()))
    };
    if product(&e_ty.dims[..re - 2])? != product(&b_ty.dims[..rb - 2])? {
        return None;
    }
    let reshape_op = *ops.get(reshape_node)?;
    let broadcast_op = *ops.get(broadcast_node)?;
    let source = Typed {
        value: broadcast_op.operand(0).ok()?,
        ty: y_ty.clone(),
    };
    Some(Repeat {
        source,
        batch: e_ty.dims[..re - 2].to_vec(),
        ops: vec![reshape_op, broadcast_op],
    })
}
