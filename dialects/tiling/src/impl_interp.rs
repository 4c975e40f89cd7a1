//! The AscIR interpreter for the impl form: executes a scheduled kernel block by block
//! and tile by tile with a solved tiling, the way the generated Ascend C kernel does,
//! so that schedule and tiling are checked by running them.
//!
//! Per block `b` in `[0, block_dim)`, per tile in `[b * per, min((b + 1) * per, total))`:
//! the tile index decomposes into looped-axis positions and the chunk of the split axis;
//! every node computes its value over its box (tile extents, 1 where its view is
//! broadcast or reduced); loads gather from GM by the normalized strides, stores scatter
//! to GM (skipped on tiles that would write the same GM elements again, as the kernel's
//! guards do). Compute nodes use the Ascend IR interpreter's per-op semantics
//! (`interp::run_node`), like the hint-form interpreter. A split-reduction case runs
//! its row groups pass by pass over the chunks of the reduced axis (`SplitPlan`):
//! accumulators combine chunk partials (means as sums, divided after the last chunk),
//! finals are computed once after their pass, everything else is recomputed per pass.
//! A cross-core case runs its two phases (`cross_core_phases`): every unit's partials
//! into a workspace, then per row group their combine and what follows.
//!
//! Checks beyond the results: the tiling fits UB and the cores; every output element
//! is written exactly once; a tile never reads GM outside its tensor.
//!
//! Preconditions: `schedule` was built from `graph`; `tiling` was solved for the same
//! model and symbol values the inputs imply.

use crate::tiling::Tiling;
use autofuse_ascend::interp::run_node;
use autofuse_ascir::graph::AscGraph;
use autofuse_ascir::interp::{
    arange_tile, bind_kernel_symbols, extract_slice_tile, for_each_index, gather_tile,
};
use autofuse_ascir::kernel::{NodeKind, Schedule};
use autofuse_ir::attr::{parse_attr, AttrValue};
use autofuse_ir::graph::{Dim, TensorType};
use autofuse_ir::tensor::Tensor;
use std::collections::{BTreeMap, HashMap};

/// What one run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImplStats {
    pub tiles: i64,
    pub blocks: i64,
    pub gm_elements_read: u64,
    pub gm_elements_written: u64,
}

/// Runs the scheduled kernel on its GM inputs.
pub fn run(
    graph: &AscGraph,
    schedule: &Schedule,
    tiling: &Tiling,
    inputs: &[Tensor],
    known: &HashMap<String, i64>,
) -> Result<(Vec<Tensor>, ImplStats), String> {
    let symbols = bind_kernel_symbols(graph, inputs, known).map_err(|e| e.to_string())?;
    let name = &graph.name;
    if tiling.ub_bytes > tiling.ub_capacity {
        return Err(format!(
            "@{name}: tiling uses {} UB bytes of {}",
            tiling.ub_bytes, tiling.ub_capacity
        ));
    }
    if tiling.block_dim < 1 || tiling.block_dim > tiling.cores {
        return Err(format!(
            "@{name}: block_dim {} outside [1, {}]",
            tiling.block_dim, tiling.cores
        ));
    }
    let case = schedule
        .case(tiling.key)
        .ok_or_else(|| format!("@{name}: no case {}", tiling.key))?;
    let eval = |e: &autofuse_symbolic::Expr| {
        e.eval_map(&symbols)
            .map_err(|err| format!("@{name}: cannot evaluate '{e}': {err}"))
    };
    let sizes: Vec<i64> = schedule
        .axes
        .iter()
        .map(|a| eval(&a.size))
        .collect::<Result<_, _>>()?;
    let s_u = case.split.map_or(1, |u| sizes[u]);
    let t = tiling.tile.max(1);
    let chunks = if s_u <= 0 { 0 } else { (s_u + t - 1) / t };
    // Transpose cases: the innermost axis is tiled in fixed blocks, looped like an axis.
    let inner_block = match &case.inner_block {
        Some((b, extent)) => Some((*b, eval(extent)?.max(1))),
        None => None,
    };
    let inner_chunks = inner_block.map_or(1, |(b, e)| (sizes[b].max(0) + e - 1) / e);
    let outer: i64 = case.looped.iter().map(|&k| sizes[k]).product::<i64>() * inner_chunks;
    let plan = schedule.split_plan(case);
    // A split-reduction case's tiles are row groups (every pass over every chunk); a
    // cross-core case's are row group shares (`parts` per row group).
    let total = if case.cross_core {
        outer * tiling.parts
    } else if plan.is_some() {
        outer
    } else {
        outer * chunks
    };
    if total != tiling.tiles_total {
        return Err(format!(
            "@{name}: tiling has {} tiles, the schedule {total}",
            tiling.tiles_total
        ));
    }
    if tiling.block_dim * tiling.tiles_per_block < total {
        return Err(format!(
            "@{name}: {} blocks x {} tiles do not cover {total} tiles",
            tiling.block_dim, tiling.tiles_per_block
        ));
    }
    // Output GM tensors and write counters.
    let mut outputs = Vec::new();
    let mut writes = Vec::new();
    for ty in &graph.outputs {
        let dims: Vec<usize> = ty
            .dims
            .iter()
            .map(|d| match d {
                Dim::Known(e) => eval(e).map(|v| v.max(0) as usize),
                Dim::Unknown => Err(format!("@{name}: output dim without symbol")),
            })
            .collect::<Result<_, _>>()?;
        let tensor = Tensor::zeros(ty.dtype, dims).map_err(|e| e.to_string())?;
        writes.push(vec![0u8; tensor.data.len()]);
        outputs.push(tensor);
    }
    let gm_strides: Vec<Vec<i64>> = schedule
        .nodes
        .iter()
        .map(|n| {
            n.gm_strides
                .iter()
                .map(&eval)
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<_, _>>()?;
    let mut stats = ImplStats {
        blocks: tiling.block_dim,
        ..ImplStats::default()
    };
    let rank = schedule.axes.len();
    // Loads hoisted out of the tile loop: read from GM once per block (the first tile
    // of the block loads them; their box is the same in every tile).
    // Chunk-resident loads: read again only when the block's (chunk-major) tile walk
    // enters a new chunk.
    let hoisted = schedule.hoisted(case);
    let resident = schedule.chunk_resident(case);
    // Outer-resident loads: read again only when the (chunk-fastest) walk reaches a new
    // looped position.
    let outer_resident = schedule.outer_resident(case);
    let chunk_major = plan.is_none() && schedule.chunk_major(case);
    if case.cross_core {
        let plan = plan
            .as_ref()
            .ok_or("a cross-core case without split plan")?;
        let mut env = Env {
            graph,
            schedule,
            case,
            symbols: &symbols,
            origin: vec![0; rank],
            ext: vec![1; rank],
            chunk: 0,
            looped_index: vec![0; rank],
            gm_strides: &gm_strides,
            inputs,
            outputs: &mut outputs,
            writes: &mut writes,
            stats: &mut stats,
        };
        cross_core_phases(&mut env, plan, tiling, &sizes, (s_u, chunks, outer))?;
    }
    // (A cross-core case ran above: no tile loop.)
    let loop_blocks = if case.cross_core { 0 } else { tiling.block_dim };
    for block in 0..loop_blocks {
        let first = block * tiling.tiles_per_block;
        let last = (first + tiling.tiles_per_block).min(total);
        let mut hoist_cache: Vec<Option<Tensor>> = vec![None; graph.nodes.len()];
        let mut resident_chunk = None;
        let mut resident_outer = None;
        for tile in first..last {
            stats.tiles += 1;
            let (chunk, mut rest) = match plan {
                Some(_) => (0, tile),
                None if chunk_major => (tile / outer.max(1), tile % outer.max(1)),
                None => (tile % chunks.max(1), tile / chunks.max(1)),
            };
            if resident_chunk != Some(chunk) {
                for &n in &resident {
                    hoist_cache[n] = None;
                }
                resident_chunk = Some(chunk);
            }
            if resident_outer != Some(rest) {
                for &n in &outer_resident {
                    hoist_cache[n] = None;
                }
                resident_outer = Some(rest);
            }
            let mut origin = vec![0i64; rank];
            let mut looped_index = vec![0i64; rank];
            let mut inner_extent = None;
            if let Some((b, e)) = inner_block {
                origin[b] = (rest % inner_chunks.max(1)) * e;
                rest /= inner_chunks.max(1);
                inner_extent = Some((b, e.min(sizes[b] - origin[b])));
            }
            for &k in case.looped.iter().rev() {
                looped_index[k] = rest % sizes[k];
                origin[k] = looped_index[k];
                rest /= sizes[k];
            }
            let mut ext = vec![1i64; rank];
            for &k in &case.in_tile {
                ext[k] = sizes[k];
            }
            if let Some((b, e)) = inner_extent {
                ext[b] = e;
            }
            let mut env = Env {
                graph,
                schedule,
                case,
                symbols: &symbols,
                origin,
                ext,
                chunk,
                looped_index,
                gm_strides: &gm_strides,
                inputs,
                outputs: &mut outputs,
                writes: &mut writes,
                stats: &mut stats,
            };
            let mut values: Vec<Option<Tensor>> = vec![None; graph.nodes.len()];
            match &plan {
                None => {
                    if let Some(u) = case.split {
                        env.origin[u] = chunk * t;
                        env.ext[u] = t.min(s_u - env.origin[u]);
                    }
                    for n in 0..graph.nodes.len() {
                        if hoisted.contains(&n)
                            || resident.contains(&n)
                            || outer_resident.contains(&n)
                        {
                            if hoist_cache[n].is_none() {
                                hoist_cache[n] = env.eval(n, &values, None)?;
                            }
                            values[n] = hoist_cache[n].clone();
                            continue;
                        }
                        let v = env.eval(n, &values, None)?;
                        values[n] = v;
                    }
                }
                Some(plan) => {
                    let u = case.split.ok_or("split-reduction case without split")?;
                    for p in 0..plan.passes {
                        for c in 0..chunks {
                            env.chunk = c;
                            env.origin[u] = c * t;
                            env.ext[u] = t.min(s_u - env.origin[u]);
                            for &n in &plan.chunk_nodes[p] {
                                let v = env.eval(n, &values, None)?;
                                values[n] = v;
                            }
                            for &r in &plan.chunk_accs[p] {
                                // Means accumulate sums; divided after the last chunk.
                                let as_sum = matches!(&schedule.nodes[r].kind, NodeKind::Reduce { op, .. } if op == "mean");
                                let partial = env.eval(r, &values, as_sum.then_some("sum"))?;
                                let combined = match (c, values[r].take(), partial) {
                                    (0, _, part) | (_, None, part) => part,
                                    (_, Some(acc), Some(part)) => {
                                        Some(combine(&schedule.nodes[r].kind, acc, &part)?)
                                    }
                                    (_, Some(acc), None) => Some(acc),
                                };
                                values[r] = combined;
                            }
                            for &st in &plan.chunk_stores[p] {
                                let v = env.eval(st, &values, None)?;
                                values[st] = v;
                            }
                        }
                        env.chunk = 0;
                        env.origin[u] = 0;
                        env.ext[u] = 1;
                        for &r in &plan.final_means[p] {
                            let n_reduced: i64 = match &schedule.nodes[r].kind {
                                NodeKind::Reduce { reduced, .. } => {
                                    reduced.iter().map(|&k| sizes[k]).product()
                                }
                                _ => 1,
                            };
                            if let Some(acc) = values[r].as_mut() {
                                for v in &mut acc.data {
                                    *v = autofuse_ir::tensor::round_to_dtype(
                                        *v / n_reduced.max(1) as f64,
                                        acc.dtype,
                                    );
                                }
                            }
                        }
                        for &n in plan.final_nodes[p].iter().chain(&plan.final_stores[p]) {
                            let v = env.eval(n, &values, None)?;
                            values[n] = v;
                        }
                    }
                }
            }
        }
    }
    for (i, w) in writes.iter().enumerate() {
        if let Some(pos) = w.iter().position(|&c| c != 1) {
            return Err(format!(
                "@{name}: output #{i} element {pos} written {} times",
                w[pos]
            ));
        }
    }
    Ok((outputs, stats))
}

/// A cross-core case (`Case::cross_core`), as the generated kernel runs it. Phase 1:
/// block `b` takes units `[b * per, (b + 1) * per)`; unit `g * parts + p` reduces the
/// chunks `[p * per_part, (p + 1) * per_part)` of row group `g` (accumulators start from
/// the share's first chunk) and writes its partials to the workspace. Phase 2 (after
/// the barrier): per row group, the partials combine in part order (the first one
/// copied), means divide once, finals and stores follow, as after a split-reduction
/// pass. Workspace traffic counts as GM elements read and written (padded rows, as the
/// kernel's `DataCopy` moves them).
fn cross_core_phases(
    env: &mut Env<'_>,
    plan: &autofuse_ascir::kernel::SplitPlan,
    tiling: &Tiling,
    sizes: &[i64],
    (s_u, chunks, outer): (i64, i64, i64),
) -> Result<(), String> {
    let schedule = env.schedule;
    let case = env.case;
    let name = &env.graph.name;
    let u = case.split.ok_or("cross-core case without split")?;
    let t = tiling.tile.max(1);
    let parts = tiling.parts;
    let split = autofuse_ascir::kernel::cross_core_split(chunks, outer, tiling.cores);
    let Some((_, per_part)) = split.filter(|&(p, _)| p == parts) else {
        return Err(format!(
            "@{name}: cross-core tiling with {parts} parts, the split of {chunks} chunks of {outer} row groups over {} cores gives {split:?}",
            tiling.cores
        ));
    };
    let total = outer * parts;
    let count = env.graph.nodes.len();
    let accs = plan.chunk_accs.first().cloned().unwrap_or_default();
    // Padded elements of each accumulator's partial.
    let mut with_tile = env.symbols.clone();
    if let Some(v) = &case.tile_var {
        with_tile.insert(v.clone(), t);
    }
    let padded: Vec<u64> = accs
        .iter()
        .map(|&a| {
            schedule
                .elems(case, a)
                .eval_map(&with_tile)
                .map(|e| e.max(0) as u64)
                .map_err(|e| format!("@{name}: partial of %{a}: {e}"))
        })
        .collect::<Result<_, _>>()?;
    let place_group = |env: &mut Env<'_>, group: i64| {
        let mut rest = group;
        env.origin = vec![0; sizes.len()];
        env.looped_index = vec![0; sizes.len()];
        env.ext = vec![1; sizes.len()];
        for &k in case.looped.iter().rev() {
            env.looped_index[k] = rest % sizes[k];
            env.origin[k] = env.looped_index[k];
            rest /= sizes[k];
        }
        for &k in &case.in_tile {
            env.ext[k] = sizes[k];
        }
    };
    // Phase 1.
    let mut workspace: Vec<Vec<Option<Tensor>>> = vec![Vec::new(); total.max(0) as usize];
    for block in 0..tiling.block_dim {
        let first = block * tiling.tiles_per_block;
        let last = (first + tiling.tiles_per_block).min(total);
        for unit in first..last {
            env.stats.tiles += 1;
            place_group(env, unit / parts);
            let first_chunk = (unit % parts) * per_part;
            let mut values: Vec<Option<Tensor>> = vec![None; count];
            for c in first_chunk..(first_chunk + per_part).min(chunks) {
                env.chunk = c;
                env.origin[u] = c * t;
                env.ext[u] = t.min(s_u - env.origin[u]);
                for &n in &plan.chunk_nodes[0] {
                    values[n] = env.eval(n, &values, None)?;
                }
                for &r in &accs {
                    let as_sum = matches!(&schedule.nodes[r].kind, NodeKind::Reduce { op, .. } if op == "mean");
                    let partial = env.eval(r, &values, as_sum.then_some("sum"))?;
                    values[r] = match (c == first_chunk, values[r].take(), partial) {
                        (true, _, part) | (_, None, part) => part,
                        (_, Some(acc), Some(part)) => {
                            Some(combine(&schedule.nodes[r].kind, acc, &part)?)
                        }
                        (_, Some(acc), None) => Some(acc),
                    };
                }
            }
            workspace[unit as usize] = accs.iter().map(|&r| values[r].clone()).collect();
            env.stats.gm_elements_written += padded.iter().sum::<u64>();
        }
    }
    // Phase 2.
    for group in 0..outer {
        place_group(env, group);
        let mut values: Vec<Option<Tensor>> = vec![None; count];
        for p in 0..parts {
            let record = &workspace[(group * parts + p) as usize];
            for (i, &r) in accs.iter().enumerate() {
                let partial = record.get(i).cloned().flatten().ok_or_else(|| {
                    format!("@{name}: no partial of %{r} for unit {}", group * parts + p)
                })?;
                env.stats.gm_elements_read += padded[i];
                values[r] = match values[r].take() {
                    Some(acc) if p > 0 => Some(combine(&schedule.nodes[r].kind, acc, &partial)?),
                    _ => Some(partial),
                };
            }
        }
        env.chunk = 0;
        env.origin[u] = 0;
        env.ext[u] = 1;
        for &r in &plan.final_means[0] {
            let n_reduced: i64 = match &schedule.nodes[r].kind {
                NodeKind::Reduce { reduced, .. } => reduced.iter().map(|&k| sizes[k]).product(),
                _ => 1,
            };
            if let Some(acc) = values[r].as_mut() {
                for v in &mut acc.data {
                    *v = autofuse_ir::tensor::round_to_dtype(
                        *v / n_reduced.max(1) as f64,
                        acc.dtype,
                    );
                }
            }
        }
        for &n in plan.final_nodes[0].iter().chain(&plan.final_stores[0]) {
            values[n] = env.eval(n, &values, None)?;
        }
    }
    Ok(())
}

/// Combines an accumulator with the partial reduction of one chunk.
fn combine(kind: &NodeKind, mut acc: Tensor, part: &Tensor) -> Result<Tensor, String> {
    let op = match kind {
        NodeKind::Reduce { op, .. } => op.as_str(),
        _ => return Err("combining a non-reduction".into()),
    };
    if acc.data.len() != part.data.len() {
        return Err("partial reductions of different extents".into());
    }
    for (a, &b) in acc.data.iter_mut().zip(&part.data) {
        let v = match op {
            "sum" | "mean" => *a + b,
            "max" | "any" => a.max(b),
            "min" | "all" => a.min(b),
            _ => *a * b,
        };
        *a = autofuse_ir::tensor::round_to_dtype(v, acc.dtype);
    }
    Ok(acc)
}

/// The state of one tile (or one stage of a row group).
struct Env<'a> {
    graph: &'a AscGraph,
    schedule: &'a Schedule,
    case: &'a autofuse_ascir::kernel::Case,
    symbols: &'a HashMap<String, i64>,
    origin: Vec<i64>,
    ext: Vec<i64>,
    chunk: i64,
    looped_index: Vec<i64>,
    gm_strides: &'a [Vec<i64>],
    inputs: &'a [Tensor],
    outputs: &'a mut Vec<Tensor>,
    writes: &'a mut Vec<Vec<u8>>,
    stats: &'a mut ImplStats,
}

impl Env<'_> {
    /// Computes node `n` of the current tile from `values` (`reduce_as` overrides the
    /// reduction op: chunk partials of means are sums).
    fn eval(
        &mut self,
        n: usize,
        values: &[Option<Tensor>],
        reduce_as: Option<&str>,
    ) -> Result<Option<Tensor>, String> {
        let graph = self.graph;
        let schedule = self.schedule;
        let case = self.case;
        let name = &graph.name;
        let ext = &self.ext;
        let origin = &self.origin;
        let node = &graph.nodes[n];
        let info = &schedule.nodes[n];
        // The node's box over all normalized axes (1 outside the tile).
        let mut shape: Vec<usize> = Vec::with_capacity(ext.len());
        let part_start = |source: usize| -> Result<i64, String> {
            schedule.nodes[source]
                .part_start
                .eval_map(self.symbols)
                .map_err(|e| format!("@{name}: node {source}: {e}"))
        };
        for (k, &e) in ext.iter().enumerate() {
            shape.push(match &info.partial[k] {
                // A fill of a split concat axis fills the tile (it may be two parts).
                Some(_)
                    if case.split == Some(k) && matches!(info.kind, NodeKind::Scalar { .. }) =>
                {
                    e as usize
                }
                // A part of a split concat axis: its rows inside this tile.
                Some(part) if case.split == Some(k) => {
                    let len = part
                        .eval_map(self.symbols)
                        .map_err(|e| format!("@{name}: node {n}: {e}"))?;
                    let start = part_start(n)?;
                    ((origin[k] + e).min(start + len) - origin[k].max(start)).max(0) as usize
                }
                // A part of a concat axis that is whole in the tile.
                Some(part) => part
                    .eval_map(self.symbols)
                    .map_err(|e| format!("@{name}: node {n}: {e}"))?
                    .max(0) as usize,
                None if info.full[k] && case.in_tile.contains(&k) => e as usize,
                None => 1,
            });
        }
        let operand = |i: usize| -> Result<&Tensor, String> {
            node.operands
                .get(i)
                .and_then(|&o| values.get(o))
                .and_then(|v| v.as_ref())
                .ok_or_else(|| format!("@{name}: node {n} misses operand #{i}"))
        };
        let gm_strides = self.gm_strides;
        // Part starts of the nodes a GM view can belong to (data nodes), evaluated once.
        let starts: Vec<i64> = (0..schedule.nodes.len())
            .map(part_start)
            .collect::<Result<_, _>>()?;
        let source_start = |source: usize| starts[source];
        let offset_of = |source: usize, idx: &[usize]| -> i64 {
            (0..ext.len())
                .map(|k| {
                    let split_part =
                        case.split == Some(k) && schedule.nodes[source].partial[k].is_some();
                    let at = if split_part {
                        // Rows of the part in this tile, counted from the part's start.
                        let start = source_start(source);
                        origin[k].max(start) - start + idx[k] as i64
                    } else if case.in_tile.contains(&k) {
                        origin[k] + idx[k] as i64
                    } else {
                        origin[k]
                    };
                    if schedule.nodes[source].full[k] {
                        at * gm_strides[source][k]
                    } else {
                        0
                    }
                })
                .sum()
        };
        let value = match &info.kind {
            NodeKind::Data { .. } | NodeKind::Output { .. } => None,
            NodeKind::Load => {
                let source = node.operands.first().copied().unwrap_or(usize::MAX);
                let Some(NodeKind::Data { input }) =
                    schedule.nodes.get(source).map(|s| s.kind.clone())
                else {
                    return Err(format!("@{name}: load {n} does not read a data node"));
                };
                let gm = self
                    .inputs
                    .get(input)
                    .ok_or_else(|| format!("@{name}: no input #{input}"))?;
                let mut tile =
                    Tensor::zeros(node.dtype, shape.clone()).map_err(|e| e.to_string())?;
                let mut error = None;
                let start = info
                    .gm_offset
                    .eval_map(self.symbols)
                    .map_err(|e| format!("@{name}: load {n} offset: {e}"))?;
                for_each_index(&shape, |idx| {
                    let at = start + offset_of(source, idx);
                    match usize::try_from(at).ok().and_then(|a| gm.data.get(a)) {
                        Some(&v) => {
                            tile.set(idx, v);
                        }
                        None => {
                            error = Some(format!(
                                "load {n} reads GM element {at} of {}",
                                gm.data.len()
                            ))
                        }
                    }
                });
                if let Some(e) = error {
                    return Err(format!("@{name}: {e}"));
                }
                self.stats.gm_elements_read += tile.data.len() as u64;
                Some(tile)
            }
            NodeKind::Broadcast => {
                let input = operand(0)?;
                let mut out =
                    Tensor::zeros(node.dtype, shape.clone()).map_err(|e| e.to_string())?;
                for_each_index(&shape, |idx| {
                    let src: Vec<usize> = idx
                        .iter()
                        .zip(&input.shape)
                        .map(|(&i, &s)| if s == 1 { 0 } else { i })
                        .collect();
                    if let Some(v) = input.get(&src) {
                        out.set(idx, v);
                    }
                });
                Some(out)
            }
            NodeKind::Gather {
                bound,
                index_stride,
            } => {
                let table_node = node.operands.first().copied().unwrap_or(usize::MAX);
                let Some(NodeKind::Data { input }) =
                    schedule.nodes.get(table_node).map(|s| s.kind.clone())
                else {
                    return Err(format!("@{name}: gather {n} does not read a data node"));
                };
                let table = self
                    .inputs
                    .get(input)
                    .ok_or_else(|| format!("@{name}: no input #{input}"))?;
                let indices = operand(1)?;
                let eval = |e: &autofuse_symbolic::Expr| {
                    e.eval_map(self.symbols)
                        .map_err(|e| format!("@{name}: gather {n}: {e}"))
                };
                let (bound, index_stride) = (eval(bound)?, eval(index_stride)?);
                let out = gather_tile(
                    node.dtype,
                    &shape,
                    table,
                    indices,
                    (bound, index_stride),
                    |idx| offset_of(table_node, idx),
                )
                .map_err(|e| format!("@{name}: gather {n}: {e}"))?;
                self.stats.gm_elements_read += out.data.len() as u64;
                Some(out)
            }
            NodeKind::ExtractSlice { axis, start } => {
                let input = operand(0)?;
                let start = start
                    .eval_map(self.symbols)
                    .map_err(|e| format!("@{name}: node {n} start: {e}"))?;
                let start = usize::try_from(start)
                    .map_err(|_| format!("@{name}: node {n} starts at {start}"))?;
                let out = extract_slice_tile(node.dtype, &shape, input, *axis, start)
                    .map_err(|e| format!("@{name}: node {n}: {e}"))?;
                Some(out)
            }
            NodeKind::Scalar { value } => {
                Some(Tensor::full(node.dtype, shape.clone(), *value).map_err(|e| e.to_string())?)
            }
            NodeKind::Arange { .. } => Some(
                arange_tile(node, self.symbols, &shape, |idx| offset_of(n, idx))
                    .map_err(|e| format!("@{name}: {e}"))?,
            ),
            NodeKind::Store => {
                let stored = operand(0)?.clone();
                // Guards: a store that does not vary with a looped axis (or the split
                // axis) writes only from the first tile along it.
                let repeats = case
                    .looped
                    .iter()
                    .any(|&k| !info.full[k] && self.looped_index[k] != 0)
                    || case.split.is_some_and(|u| !info.full[u] && self.chunk != 0);
                if !repeats {
                    let out_node = graph
                        .nodes
                        .iter()
                        .position(|o| o.op == "output" && o.operands.first() == Some(&n))
                        .ok_or_else(|| format!("@{name}: store {n} feeds no output"))?;
                    let index = graph.nodes[out_node].index.unwrap_or(0);
                    let gm = self
                        .outputs
                        .get_mut(index)
                        .ok_or_else(|| format!("@{name}: no output #{index}"))?;
                    let counts = &mut self.writes[index];
                    let mut error = None;
                    for_each_index(&shape, |idx| {
                        let at = offset_of(n, idx);
                        match usize::try_from(at).ok().filter(|&a| a < gm.data.len()) {
                            Some(a) => {
                                gm.data[a] = stored.get(idx).unwrap_or(0.0);
                                counts[a] = counts[a].saturating_add(1);
                            }
                            None => {
                                error = Some(format!(
                                    "store {n} writes GM element {at} of {}",
                                    gm.data.len()
                                ))
                            }
                        }
                    });
                    if let Some(e) = error {
                        return Err(format!("@{name}: {e}"));
                    }
                    self.stats.gm_elements_written += stored.data.len() as u64;
                }
                Some(stored)
            }
            NodeKind::Elementwise { .. }
            | NodeKind::Cast
            | NodeKind::Reduce { .. }
            | NodeKind::Concat { .. } => {
                let mut operands: Vec<&Tensor> = (0..node.operands.len())
                    .map(operand)
                    .collect::<Result<_, _>>()?;
                // A tile splitting the concat axis takes each operand's rows from where
                // its use starts (a fill holds a whole tile and may be two parts).
                let mut taken: Vec<Tensor> = Vec::new();
                if let NodeKind::Concat { axis } = &info.kind {
                    if case.split == Some(*axis) {
                        let mut at = part_start(n)?;
                        for (i, &o) in node.operands.iter().enumerate() {
                            let len = schedule.nodes[o].partial[*axis]
                                .as_ref()
                                .ok_or_else(|| {
                                    format!("@{name}: concat {n}: operand #{i} is no part")
                                })?
                                .eval_map(self.symbols)
                                .map_err(|e| format!("@{name}: node {n}: {e}"))?;
                            let rows = ((origin[*axis] + ext[*axis]).min(at + len)
                                - origin[*axis].max(at))
                            .max(0) as usize;
                            let mut used = operands[i].shape.clone();
                            used[*axis] = rows;
                            taken.push(
                                extract_slice_tile(node.dtype, &used, operands[i], *axis, 0)
                                    .map_err(|e| format!("@{name}: node {n}: {e}"))?,
                            );
                            at += len;
                        }
                    }
                }
                if !taken.is_empty() {
                    operands = taken.iter().collect();
                }
                let result_ty = TensorType::new(
                    node.dtype,
                    shape.iter().map(|&d| Dim::constant(d as i64)).collect(),
                );
                let mut attrs: BTreeMap<String, AttrValue> = node
                    .attrs
                    .iter()
                    .filter_map(|(k, v)| parse_attr(v).ok().map(|a| (k.clone(), a)))
                    .collect();
                let op = match &info.kind {
                    NodeKind::Reduce { op, .. } => {
                        let input = operands.first().copied().ok_or("reduction without input")?;
                        let axes: Vec<AttrValue> = shape
                            .iter()
                            .zip(&input.shape)
                            .enumerate()
                            .filter(|(_, (&o, &i))| o == 1 && i != 1)
                            .map(|(a, _)| AttrValue::Int(a as i64))
                            .collect();
                        if axes.is_empty() {
                            return Ok(Some(input.clone()));
                        }
                        attrs.insert("axes".into(), AttrValue::Array(axes));
                        attrs.insert("keep_dims".into(), AttrValue::Bool(true));
                        format!("ascend.reduce_{}", reduce_as.unwrap_or(op))
                    }
                    NodeKind::Cast => "ascend.cast".to_string(),
                    NodeKind::Concat { axis } => {
                        attrs.insert("axis".into(), AttrValue::Int(*axis as i64));
                        "ascend.concat".to_string()
                    }
                    NodeKind::Elementwise { op } if op == "where" => "ascend.select".to_string(),
                    NodeKind::Elementwise { op } => format!("ascend.{op}"),
                    _ => return Err(format!("@{name}: node {n} is not computed")),
                };
                let mut results = run_node(&op, &attrs, &operands, &[result_ty], self.symbols)
                    .map_err(|e| format!("@{name}: node {n}: {e}"))?;
                if results.is_empty() {
                    return Err(format!("@{name}: node {n} produced no value"));
                }
                Some(results.swap_remove(0))
            }
        };
        Ok(value)
    }
}
