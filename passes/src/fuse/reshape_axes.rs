//! Loop axes refined through reshapes, so that kernels on both sides of a reshape that
//! merges or splits dims can share one loop nest.
//!
//! A kernel that views a tensor with merged dims (`reshape [s0, 12, 64] -> [s0, 768]`
//! and an add over `[s0, 768]`) has one loop axis where the tensor's producer has two;
//! [`super::fusion::merge_kernels`] pairs axes by extent and stride, so no pair exists.
//! Both decompositions of the shared tensor's elements are mixed-radix numbers; their
//! common refinement (`[s0, 12, 64]` here) is a loop nest both kernels can run: each
//! kernel's axis is split into the refined factors it covers (the 768 axis into 12 and
//! 64, with strides `64 * s` and `s` wherever it had stride `s`). The merged kernel's
//! schedule merges adjacent axes again where every view allows, so nothing is lost.
//!
//! Preconditions: hint-form kernels (every view repeat is its axis size or 1). Only
//! views that walk the whole tensor densely (row-major, no slice or broadcast of a
//! non-unit axis) are refined, and only kernels without concats, gathers and extracted
//! slices (their views cover parts of axes). Postconditions: the refined kernels compute
//! the same values; `None` when nothing needs refining or the factors do not divide
//! (symbolic sizes with no exact quotient).

use super::fusion::Kernel;
use autofuse_ascir::graph::{AscGraph, Axis, View};
use autofuse_ir::graph::Dim;
use autofuse_symbolic::{Expr, Relation, ShapeEnv, Tri};

fn equal(env: &ShapeEnv, a: &Expr, b: &Expr) -> bool {
    a == b || env.static_check(a, Relation::Eq, b) == Tri::True
}

/// `a / b` when `b` divides `a` exactly (provably, for symbolic sizes).
fn exact_quotient(env: &ShapeEnv, a: &Expr, b: &Expr) -> Option<Expr> {
    if b.as_const() == Some(0) {
        return None;
    }
    let q = a.floor_div(b);
    equal(env, &(q.clone() * b.clone()), a).then_some(q)
}

/// The non-unit axes of a dense view, innermost first: (axis id, extent). None when the
/// view is not a dense row-major walk of `total` elements (a slice, a broadcast, a
/// transposed or strided walk).
fn radices(view: &View, total: &Expr, env: &ShapeEnv) -> Option<Vec<(i64, Expr)>> {
    let mut axes: Vec<(i64, Expr, Expr)> = view
        .axis
        .iter()
        .zip(view.repeats.iter().zip(&view.strides))
        .filter(|(_, (r, _))| r.as_const() != Some(1))
        .map(|(&id, (r, s))| (id, r.clone(), s.clone()))
        .collect();
    // Loop order is memory order for a dense walk: innermost last.
    axes.reverse();
    let mut stride = Expr::constant(1);
    for (_, repeat, s) in &axes {
        if !equal(env, s, &stride) {
            return None;
        }
        stride = stride * repeat.clone();
    }
    equal(env, &stride, total).then(|| axes.into_iter().map(|(id, r, _)| (id, r)).collect())
}

/// Refined factors per radix, innermost first.
type Runs = Vec<Vec<Expr>>;

/// The common refinement of two mixed-radix decompositions (innermost first) of the same
/// count, as the refined factors each radix covers (innermost first). None when a radix
/// does not divide the other.
fn refine(a: &[(i64, Expr)], b: &[(i64, Expr)], env: &ShapeEnv) -> Option<(Runs, Runs)> {
    let (mut runs_a, mut runs_b) = (vec![Vec::new(); a.len()], vec![Vec::new(); b.len()]);
    let (mut i, mut j) = (0, 0);
    let mut cur_a = a.first()?.1.clone();
    let mut cur_b = b.first()?.1.clone();
    while i < a.len() && j < b.len() {
        if equal(env, &cur_a, &cur_b) {
            runs_a[i].push(cur_a.clone());
            runs_b[j].push(cur_b.clone());
            i += 1;
            j += 1;
            if let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
                cur_a = x.1.clone();
                cur_b = y.1.clone();
            }
        } else if let Some(q) = exact_quotient(env, &cur_a, &cur_b) {
            // b's radix is an inner factor of a's.
            runs_a[i].push(cur_b.clone());
            runs_b[j].push(cur_b.clone());
            cur_a = q;
            j += 1;
            cur_b = b.get(j)?.1.clone();
        } else if let Some(q) = exact_quotient(env, &cur_b, &cur_a) {
            runs_a[i].push(cur_a.clone());
            runs_b[j].push(cur_a.clone());
            cur_b = q;
            i += 1;
            cur_a = a.get(i)?.1.clone();
        } else {
            return None;
        }
    }
    (i == a.len() && j == b.len()).then_some((runs_a, runs_b))
}

/// Kernels whose views may cover a part of an axis: their axes are not split.
fn has_part_views(graph: &AscGraph) -> bool {
    graph
        .nodes
        .iter()
        .any(|n| matches!(n.op.as_str(), "concat" | "extract_slice") || n.op.starts_with("gather"))
}

/// Splits axis `id` of `graph` into `factors` (outer to inner; their product is its size).
fn split_axis(graph: &mut AscGraph, id: i64, factors: &[Expr]) -> Option<()> {
    let position = graph.axes.iter().position(|a| a.id == id)?;
    let size = graph.axes[position].size.clone();
    let first_free = graph.axes.iter().map(|a| a.id).max().unwrap_or(0) + 1;
    let mut ids = Vec::new();
    let mut new_axes = Vec::new();
    for (next, f) in (first_free..).zip(factors) {
        ids.push(next);
        let mut axis: Axis = graph.axes[position].clone();
        axis.id = next;
        axis.name = format!("z{next}");
        axis.size = f.clone();
        new_axes.push(axis);
    }
    graph.axes.splice(position..=position, new_axes);
    for node in &mut graph.nodes {
        let view = &mut node.view;
        let Some(p) = view.axis.iter().position(|&a| a == id) else {
            continue;
        };
        let (repeat, stride) = (view.repeats[p].clone(), view.strides[p].clone());
        let (repeats, strides): (Vec<Expr>, Vec<Expr>) = if repeat.as_const() == Some(1) {
            factors
                .iter()
                .map(|_| (Expr::constant(1), Expr::constant(0)))
                .unzip()
        } else if repeat == size {
            // Factor k steps over the factors inside it.
            let mut inner = stride;
            let mut out: Vec<(Expr, Expr)> = Vec::new();
            for f in factors.iter().rev() {
                out.push((f.clone(), inner.clone()));
                inner = inner * f.clone();
            }
            out.reverse();
            out.into_iter()
                .map(|(r, s)| {
                    if r.as_const() == Some(1) {
                        (r, Expr::constant(0))
                    } else {
                        (r, s)
                    }
                })
                .unzip()
        } else {
            return None;
        };
        view.axis.splice(p..=p, ids.iter().copied());
        view.repeats.splice(p..=p, repeats);
        view.strides.splice(p..=p, strides);
    }
    Some(())
}

fn known_total(dims: &[Dim]) -> Option<Expr> {
    dims.iter().try_fold(Expr::constant(1), |acc, d| match d {
        Dim::Known(e) => Some(acc * e.clone()),
        Dim::Unknown => None,
    })
}

/// Copies of `a` and `b` whose axes are refined through every tensor they share where
/// their dense views of it decompose it differently; None when no view needs it or a
/// refinement does not exist (the merge then reports the mismatch).
pub(crate) fn refine_through_reshapes(
    a: &Kernel,
    b: &Kernel,
    env: &ShapeEnv,
) -> Option<(Kernel, Kernel)> {
    if has_part_views(&a.graph) || has_part_views(&b.graph) {
        return None;
    }
    let (mut a, mut b) = (a.clone(), b.clone());
    let mut changed = false;
    for (j, v) in b.inputs.clone().iter().enumerate() {
        let Some(total) = b.graph.inputs.get(j).and_then(|t| known_total(&t.dims)) else {
            continue;
        };
        let a_views: Vec<View> = if let Some(k) = a.outputs.iter().position(|o| o == v) {
            let output = a
                .graph
                .nodes
                .iter()
                .position(|n| n.op == "output" && n.index == Some(k))?;
            let store = *a.graph.nodes[output].operands.first()?;
            vec![a.graph.nodes.get(store)?.view.clone()]
        } else if let Some(i) = a.inputs.iter().position(|x| x == v) {
            a.graph
                .nodes
                .iter()
                .filter(|n| n.op == "data" && n.index == Some(i))
                .map(|n| n.view.clone())
                .collect()
        } else {
            continue;
        };
        let b_views: Vec<View> = b
            .graph
            .nodes
            .iter()
            .filter(|n| n.op == "data" && n.index == Some(j))
            .map(|n| n.view.clone())
            .collect();
        for va in &a_views {
            for vb in &b_views {
                let (Some(ra), Some(rb)) = (radices(va, &total, env), radices(vb, &total, env))
                else {
                    continue;
                };
                if ra.len() == rb.len() && ra.iter().zip(&rb).all(|(x, y)| equal(env, &x.1, &y.1)) {
                    continue;
                }
                let (runs_a, runs_b) = refine(&ra, &rb, env)?;
                for ((id, _), run) in ra.iter().zip(runs_a) {
                    if run.len() > 1 {
                        let outer_first: Vec<Expr> = run.into_iter().rev().collect();
                        split_axis(&mut a.graph, *id, &outer_first)?;
                        changed = true;
                    }
                }
                for ((id, _), run) in rb.iter().zip(runs_b) {
                    if run.len() > 1 {
                        let outer_first: Vec<Expr> = run.into_iter().rev().collect();
                        split_axis(&mut b.graph, *id, &outer_first)?;
                        changed = true;
                    }
                }
            }
        }
    }
    changed.then_some((a, b))
}
