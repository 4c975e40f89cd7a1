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
use autofuse_ascir::kernel::{Case, NodeKind, Schedule, SplitPlan};
use autofuse_ir::attr::{parse_attr, AttrValue};
use autofuse_ir::graph::{Dim, TensorType};
use autofuse_ir::tensor::Tensor;
use autofuse_symbolic::Expr;
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
    check_tiling_limits(name, tiling)?;
    let case = schedule
        .case(tiling.key)
        .ok_or_else(|| format!("@{name}: no case {}", tiling.key))?;
    let eval = |e: &Expr| {
        e.eval_map(&symbols)
            .map_err(|err| format!("@{name}: cannot evaluate '{e}': {err}"))
    };
    let walk = TileWalk::new(schedule, case, tiling, &eval)?;
    walk.check_covered(name, tiling)?;
    let (mut outputs, mut writes) = output_tensors(graph, &eval)?;
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
    if case.cross_core {
        let plan = walk
            .plan
            .as_ref()
            .ok_or("a cross-core case without split plan")?;
        cross_core_phases(&mut env, plan, tiling, &walk)?;
    } else {
        run_blocks(&mut env, &walk, tiling)?;
    }
    check_written_once(name, &writes)?;
    Ok((outputs, stats))
}

/// Checks the tiling stays within the chip: its UB bytes and its block count.
fn check_tiling_limits(name: &str, tiling: &Tiling) -> Result<(), String> {
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
    Ok(())
}

/// The zeroed GM output tensors of `graph` and a write counter per element.
fn output_tensors(
    graph: &AscGraph,
    eval: &impl Fn(&Expr) -> Result<i64, String>,
) -> Result<(Vec<Tensor>, Vec<Vec<u8>>), String> {
    let name = &graph.name;
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
    Ok((outputs, writes))
}

/// Checks every output element was written exactly once.
fn check_written_once(name: &str, writes: &[Vec<u8>]) -> Result<(), String> {
    for (i, w) in writes.iter().enumerate() {
        if let Some(pos) = w.iter().position(|&c| c != 1) {
            return Err(format!(
                "@{name}: output #{i} element {pos} written {} times",
                w[pos]
            ));
        }
    }
    Ok(())
}

/// The tiles of a case at the kernel's symbol values: a tile index decomposes into the
/// chunk of the split axis, the block of the innermost axis (transpose cases) and the
/// looped-axis positions.
struct TileWalk {
    /// Extent of every normalized axis.
    sizes: Vec<i64>,
    /// Extent of the split axis (1 without one).
    s_u: i64,
    /// The tile along the split axis.
    t: i64,
    /// Chunks of the split axis.
    chunks: i64,
    /// Transpose cases: the innermost axis and its block, looped like an axis.
    inner_block: Option<(usize, i64)>,
    /// Blocks of the innermost axis (1 without `inner_block`).
    inner_chunks: i64,
    /// Looped positions (times inner blocks): the row groups.
    outer: i64,
    /// Tiles of the kernel.
    total: i64,
    plan: Option<SplitPlan>,
}

impl TileWalk {
    fn new(
        schedule: &Schedule,
        case: &Case,
        tiling: &Tiling,
        eval: &impl Fn(&Expr) -> Result<i64, String>,
    ) -> Result<TileWalk, String> {
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
        Ok(TileWalk {
            sizes,
            s_u,
            t,
            chunks,
            inner_block,
            inner_chunks,
            outer,
            total,
            plan,
        })
    }

    /// Checks the tiling counts the schedule's tiles and its blocks cover them.
    fn check_covered(&self, name: &str, tiling: &Tiling) -> Result<(), String> {
        let total = self.total;
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
        Ok(())
    }

    /// The chunk of tile `tile` and its position among the looped positions (`outer`),
    /// walking chunk by chunk when `chunk_major`, else looped position by position.
    fn chunk_and_rest(&self, tile: i64, chunk_major: bool) -> (i64, i64) {
        let (outer, chunks) = (self.outer, self.chunks);
        match self.plan {
            Some(_) => (0, tile),
            None if chunk_major => (tile / outer.max(1), tile % outer.max(1)),
            None => (tile % chunks.max(1), tile / chunks.max(1)),
        }
    }

    /// Sets `env` to the tile at looped position `rest` in chunk `chunk` (the split
    /// axis stays whole: the caller places its chunk).
    fn place_tile(&self, env: &mut Env<'_>, chunk: i64, mut rest: i64) {
        let sizes = &self.sizes;
        let rank = sizes.len();
        let mut origin = vec![0i64; rank];
        let mut looped_index = vec![0i64; rank];
        let mut inner_extent = None;
        if let Some((b, e)) = self.inner_block {
            origin[b] = (rest % self.inner_chunks.max(1)) * e;
            rest /= self.inner_chunks.max(1);
            inner_extent = Some((b, e.min(sizes[b] - origin[b])));
        }
        for &k in env.case.looped.iter().rev() {
            looped_index[k] = rest % sizes[k];
            origin[k] = looped_index[k];
            rest /= sizes[k];
        }
        let mut ext = vec![1i64; rank];
        for &k in &env.case.in_tile {
            ext[k] = sizes[k];
        }
        if let Some((b, e)) = inner_extent {
            ext[b] = e;
        }
        env.origin = origin;
        env.ext = ext;
        env.chunk = chunk;
        env.looped_index = looped_index;
    }

    /// Sets `env` to chunk `c` of the split axis `u`.
    fn place_chunk(&self, env: &mut Env<'_>, u: usize, c: i64) {
        env.chunk = c;
        env.origin[u] = c * self.t;
        env.ext[u] = self.t.min(self.s_u - env.origin[u]);
    }
}

/// Loads whose values a block keeps across its tiles: hoisted loads (read by the
/// block's first tile: their box is the same in every tile), chunk-resident loads (read
/// again only when the block's chunk-major walk enters a new chunk) and outer-resident
/// loads (read again only when the chunk-fastest walk reaches a new looped position).
struct KeptLoads {
    hoisted: Vec<usize>,
    resident: Vec<usize>,
    outer_resident: Vec<usize>,
    values: Vec<Option<Tensor>>,
    chunk: Option<i64>,
    outer: Option<i64>,
}

impl KeptLoads {
    fn new(schedule: &Schedule, case: &Case) -> KeptLoads {
        KeptLoads {
            hoisted: schedule.hoisted(case),
            resident: schedule.chunk_resident(case),
            outer_resident: schedule.outer_resident(case),
            values: Vec::new(),
            chunk: None,
            outer: None,
        }
    }

    /// Forgets every kept value: a new block starts.
    fn start_block(&mut self, count: usize) {
        self.values = vec![None; count];
        self.chunk = None;
        self.outer = None;
    }

    /// Forgets the resident values a tile in `chunk` at looped position `outer` reads
    /// again.
    fn enter(&mut self, chunk: i64, outer: i64) {
        if self.chunk != Some(chunk) {
            for &n in &self.resident {
                self.values[n] = None;
            }
            self.chunk = Some(chunk);
        }
        if self.outer != Some(outer) {
            for &n in &self.outer_resident {
                self.values[n] = None;
            }
            self.outer = Some(outer);
        }
    }

    fn keeps(&self, n: usize) -> bool {
        self.hoisted.contains(&n) || self.resident.contains(&n) || self.outer_resident.contains(&n)
    }
}

/// Runs the tiles of every block (a case that is not cross-core).
fn run_blocks(env: &mut Env<'_>, walk: &TileWalk, tiling: &Tiling) -> Result<(), String> {
    let (schedule, case) = (env.schedule, env.case);
    let count = env.graph.nodes.len();
    let mut kept = KeptLoads::new(schedule, case);
    let chunk_major = walk.plan.is_none() && schedule.chunk_major(case);
    for block in 0..tiling.block_dim {
        let first = block * tiling.tiles_per_block;
        let last = (first + tiling.tiles_per_block).min(walk.total);
        kept.start_block(count);
        for tile in first..last {
            env.stats.tiles += 1;
            let (chunk, rest) = walk.chunk_and_rest(tile, chunk_major);
            kept.enter(chunk, rest);
            walk.place_tile(env, chunk, rest);
            match &walk.plan {
                None => run_tile(env, walk, &mut kept, chunk)?,
                Some(plan) => run_row_group(env, walk, plan)?,
            }
        }
    }
    Ok(())
}

/// Computes every node of one tile in chunk `chunk`, kept loads from `kept`.
fn run_tile(
    env: &mut Env<'_>,
    walk: &TileWalk,
    kept: &mut KeptLoads,
    chunk: i64,
) -> Result<(), String> {
    let count = env.graph.nodes.len();
    if let Some(u) = env.case.split {
        walk.place_chunk(env, u, chunk);
    }
    let mut values: Vec<Option<Tensor>> = vec![None; count];
    for n in 0..count {
        if kept.keeps(n) {
            if kept.values[n].is_none() {
                kept.values[n] = env.eval(n, &values, None)?;
            }
            values[n] = kept.values[n].clone();
            continue;
        }
        values[n] = env.eval(n, &values, None)?;
    }
    Ok(())
}

/// Runs a split-reduction case's row group: every pass over every chunk of the split
/// axis, accumulators combined chunk by chunk, then the pass's finals and stores.
fn run_row_group(env: &mut Env<'_>, walk: &TileWalk, plan: &SplitPlan) -> Result<(), String> {
    let u = env.case.split.ok_or("split-reduction case without split")?;
    let mut values: Vec<Option<Tensor>> = vec![None; env.graph.nodes.len()];
    for p in 0..plan.passes {
        for c in 0..walk.chunks {
            walk.place_chunk(env, u, c);
            for &n in &plan.chunk_nodes[p] {
                values[n] = env.eval(n, &values, None)?;
            }
            for &r in &plan.chunk_accs[p] {
                env.accumulate(r, &mut values, c == 0)?;
            }
            for &st in &plan.chunk_stores[p] {
                values[st] = env.eval(st, &values, None)?;
            }
        }
        env.chunk = 0;
        env.origin[u] = 0;
        env.ext[u] = 1;
        divide_means(env.schedule, &plan.final_means[p], &walk.sizes, &mut values);
        for &n in plan.final_nodes[p].iter().chain(&plan.final_stores[p]) {
            values[n] = env.eval(n, &values, None)?;
        }
    }
    Ok(())
}

/// Divides the accumulated sums of the means `means` by the number of elements each
/// reduces (axis extents `sizes`).
fn divide_means(
    schedule: &Schedule,
    means: &[usize],
    sizes: &[i64],
    values: &mut [Option<Tensor>],
) {
    for &r in means {
        let n_reduced: i64 = match &schedule.nodes[r].kind {
            NodeKind::Reduce { reduced, .. } => reduced.iter().map(|&k| sizes[k]).product(),
            _ => 1,
        };
        if let Some(acc) = values[r].as_mut() {
            for v in &mut acc.data {
                *v = autofuse_ir::tensor::round_to_dtype(*v / n_reduced.max(1) as f64, acc.dtype);
            }
        }
    }
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
    plan: &SplitPlan,
    tiling: &Tiling,
    walk: &TileWalk,
) -> Result<(), String> {
    let schedule = env.schedule;
    let case = env.case;
    let name = &env.graph.name;
    let (chunks, outer) = (walk.chunks, walk.outer);
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
    let shares = Shares {
        plan,
        walk,
        u,
        parts,
        per_part,
        accs,
        padded,
    };
    let workspace = shares.reduce(env, tiling)?;
    shares.combine(env, &workspace)
}

/// The row group shares of a cross-core case: each of `parts` units per row group
/// reduces `per_part` chunks of the split axis `u`.
struct Shares<'p> {
    plan: &'p SplitPlan,
    walk: &'p TileWalk,
    u: usize,
    parts: i64,
    per_part: i64,
    /// The accumulators of the (only) pass.
    accs: Vec<usize>,
    /// Padded elements of each accumulator's partial.
    padded: Vec<u64>,
}

impl Shares<'_> {
    /// Phase 1: every block's units reduce their chunks; the partials of each unit, as
    /// the workspace holds them.
    fn reduce(
        &self,
        env: &mut Env<'_>,
        tiling: &Tiling,
    ) -> Result<Vec<Vec<Option<Tensor>>>, String> {
        let (plan, walk, u, parts) = (self.plan, self.walk, self.u, self.parts);
        let total = walk.outer * parts;
        let count = env.graph.nodes.len();
        let mut workspace: Vec<Vec<Option<Tensor>>> = vec![Vec::new(); total.max(0) as usize];
        for block in 0..tiling.block_dim {
            let first = block * tiling.tiles_per_block;
            let last = (first + tiling.tiles_per_block).min(total);
            for unit in first..last {
                env.stats.tiles += 1;
                place_row_group(env, &walk.sizes, unit / parts);
                let first_chunk = (unit % parts) * self.per_part;
                let mut values: Vec<Option<Tensor>> = vec![None; count];
                for c in first_chunk..(first_chunk + self.per_part).min(walk.chunks) {
                    walk.place_chunk(env, u, c);
                    for &n in &plan.chunk_nodes[0] {
                        values[n] = env.eval(n, &values, None)?;
                    }
                    for &r in &self.accs {
                        env.accumulate(r, &mut values, c == first_chunk)?;
                    }
                }
                workspace[unit as usize] = self.accs.iter().map(|&r| values[r].clone()).collect();
                env.stats.gm_elements_written += self.padded.iter().sum::<u64>();
            }
        }
        Ok(workspace)
    }

    /// Phase 2: per row group, its units' partials from `workspace` combine in part
    /// order, then the means divide and the finals and stores follow.
    fn combine(&self, env: &mut Env<'_>, workspace: &[Vec<Option<Tensor>>]) -> Result<(), String> {
        let (plan, walk, u, parts) = (self.plan, self.walk, self.u, self.parts);
        let schedule = env.schedule;
        let name = &env.graph.name;
        let count = env.graph.nodes.len();
        for group in 0..walk.outer {
            place_row_group(env, &walk.sizes, group);
            let mut values: Vec<Option<Tensor>> = vec![None; count];
            for p in 0..parts {
                let record = &workspace[(group * parts + p) as usize];
                for (i, &r) in self.accs.iter().enumerate() {
                    let partial = record.get(i).cloned().flatten().ok_or_else(|| {
                        format!("@{name}: no partial of %{r} for unit {}", group * parts + p)
                    })?;
                    env.stats.gm_elements_read += self.padded[i];
                    values[r] = match values[r].take() {
                        Some(acc) if p > 0 => {
                            Some(combine(&schedule.nodes[r].kind, acc, &partial)?)
                        }
                        _ => Some(partial),
                    };
                }
            }
            env.chunk = 0;
            env.origin[u] = 0;
            env.ext[u] = 1;
            divide_means(schedule, &plan.final_means[0], &walk.sizes, &mut values);
            for &n in plan.final_nodes[0].iter().chain(&plan.final_stores[0]) {
                values[n] = env.eval(n, &values, None)?;
            }
        }
        Ok(())
    }
}

/// Sets `env` to row group `group` of a cross-core case: its looped positions, the
/// in-tile axes whole (axis extents `sizes`).
fn place_row_group(env: &mut Env<'_>, sizes: &[i64], group: i64) {
    let case = env.case;
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
    case: &'a Case,
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

/// A node of the current tile being computed.
struct TileNode<'v> {
    n: usize,
    /// The node's box over all normalized axes (1 outside the tile).
    shape: Vec<usize>,
    /// Part starts of the nodes a GM view can belong to (data nodes), evaluated once.
    starts: Vec<i64>,
    /// The values of the tile's nodes so far.
    values: &'v [Option<Tensor>],
}

/// GM element offsets of the current tile.
struct GmOffsets<'t> {
    schedule: &'t Schedule,
    case: &'t Case,
    origin: &'t [i64],
    gm_strides: &'t [Vec<i64>],
    starts: &'t [i64],
}

impl GmOffsets<'_> {
    /// The GM offset of element `idx` of the tile in the view of node `source`.
    fn at(&self, source: usize, idx: &[usize]) -> i64 {
        let (schedule, case, origin) = (self.schedule, self.case, self.origin);
        (0..origin.len())
            .map(|k| {
                let split_part =
                    case.split == Some(k) && schedule.nodes[source].partial[k].is_some();
                let at = if split_part {
                    // Rows of the part in this tile, counted from the part's start.
                    let start = self.starts[source];
                    origin[k].max(start) - start + idx[k] as i64
                } else if case.in_tile.contains(&k) {
                    origin[k] + idx[k] as i64
                } else {
                    origin[k]
                };
                if schedule.nodes[source].full[k] {
                    at * self.gm_strides[source][k]
                } else {
                    0
                }
            })
            .sum()
    }
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
        let schedule = self.schedule;
        let name = &self.graph.name;
        let shape = self.node_box(n)?;
        let starts: Vec<i64> = (0..schedule.nodes.len())
            .map(|source| self.part_start(source))
            .collect::<Result<_, _>>()?;
        let at = TileNode {
            n,
            shape,
            starts,
            values,
        };
        let dtype = self.graph.nodes[n].dtype;
        match &schedule.nodes[n].kind {
            NodeKind::Data { .. } | NodeKind::Output { .. } => Ok(None),
            NodeKind::Load => self.load(&at).map(Some),
            NodeKind::Broadcast => self.broadcast(&at).map(Some),
            NodeKind::Gather {
                bound,
                index_stride,
            } => self.gather(&at, bound, index_stride).map(Some),
            NodeKind::ExtractSlice { axis, start } => {
                self.extract_slice(&at, *axis, start).map(Some)
            }
            NodeKind::Scalar { value } => Ok(Some(
                Tensor::full(dtype, at.shape, *value).map_err(|e| e.to_string())?,
            )),
            NodeKind::Arange { .. } => {
                let offsets = self.offsets(&at.starts);
                arange_tile(&self.graph.nodes[n], self.symbols, &at.shape, |idx| {
                    offsets.at(n, idx)
                })
                .map(Some)
                .map_err(|e| format!("@{name}: {e}"))
            }
            NodeKind::Store => self.store(&at).map(Some),
            NodeKind::Elementwise { .. }
            | NodeKind::Cast
            | NodeKind::Reduce { .. }
            | NodeKind::Concat { .. } => self.compute(&at, reduce_as),
        }
    }

    /// The GM offsets of the current tile, with the nodes' part starts `starts`.
    fn offsets<'t>(&'t self, starts: &'t [i64]) -> GmOffsets<'t> {
        GmOffsets {
            schedule: self.schedule,
            case: self.case,
            origin: &self.origin,
            gm_strides: self.gm_strides,
            starts,
        }
    }

    /// Where the part of a concat axis that node `source` covers starts.
    fn part_start(&self, source: usize) -> Result<i64, String> {
        let name = &self.graph.name;
        self.schedule.nodes[source]
            .part_start
            .eval_map(self.symbols)
            .map_err(|e| format!("@{name}: node {source}: {e}"))
    }

    /// The box of node `n` in the current tile over all normalized axes (1 outside the
    /// tile, where its view is broadcast or reduced, and its rows of a concat part).
    fn node_box(&self, n: usize) -> Result<Vec<usize>, String> {
        let (case, origin) = (self.case, &self.origin);
        let name = &self.graph.name;
        let info = &self.schedule.nodes[n];
        let mut shape: Vec<usize> = Vec::with_capacity(self.ext.len());
        for (k, &e) in self.ext.iter().enumerate() {
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
                    let start = self.part_start(n)?;
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
        Ok(shape)
    }

    /// Operand `i` of the node `at` computes.
    fn operand<'v>(&self, at: &TileNode<'v>, i: usize) -> Result<&'v Tensor, String> {
        let (n, name) = (at.n, &self.graph.name);
        let values = at.values;
        self.graph.nodes[n]
            .operands
            .get(i)
            .and_then(|&o| values.get(o))
            .and_then(|v| v.as_ref())
            .ok_or_else(|| format!("@{name}: node {n} misses operand #{i}"))
    }

    /// The input number of the data node `source` (`what` names the reader in the
    /// error when `source` is not a data node).
    fn data_input(&self, source: usize, what: &str) -> Result<usize, String> {
        let name = &self.graph.name;
        match self.schedule.nodes.get(source).map(|s| s.kind.clone()) {
            Some(NodeKind::Data { input }) => Ok(input),
            _ => Err(format!("@{name}: {what} does not read a data node")),
        }
    }

    /// A load: the tile's elements of its data node's view, from GM.
    fn load(&mut self, at: &TileNode) -> Result<Tensor, String> {
        let (graph, n) = (self.graph, at.n);
        let name = &graph.name;
        let node = &graph.nodes[n];
        let source = node.operands.first().copied().unwrap_or(usize::MAX);
        let input = self.data_input(source, &format!("load {n}"))?;
        let gm = self
            .inputs
            .get(input)
            .ok_or_else(|| format!("@{name}: no input #{input}"))?;
        let mut tile = Tensor::zeros(node.dtype, at.shape.clone()).map_err(|e| e.to_string())?;
        let mut error = None;
        let start = self.schedule.nodes[n]
            .gm_offset
            .eval_map(self.symbols)
            .map_err(|e| format!("@{name}: load {n} offset: {e}"))?;
        let offsets = self.offsets(&at.starts);
        for_each_index(&at.shape, |idx| {
            let at = start + offsets.at(source, idx);
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
        Ok(tile)
    }

    /// A broadcast: its operand repeated along the axes where the operand has extent 1.
    fn broadcast(&self, at: &TileNode) -> Result<Tensor, String> {
        let input = self.operand(at, 0)?;
        let dtype = self.graph.nodes[at.n].dtype;
        let mut out = Tensor::zeros(dtype, at.shape.clone()).map_err(|e| e.to_string())?;
        for_each_index(&at.shape, |idx| {
            let src: Vec<usize> = idx
                .iter()
                .zip(&input.shape)
                .map(|(&i, &s)| if s == 1 { 0 } else { i })
                .collect();
            if let Some(v) = input.get(&src) {
                out.set(idx, v);
            }
        });
        Ok(out)
    }

    /// A gather: rows of its table (a data node, in GM) picked by its index operand.
    fn gather(
        &mut self,
        at: &TileNode,
        bound: &Expr,
        index_stride: &Expr,
    ) -> Result<Tensor, String> {
        let (graph, n) = (self.graph, at.n);
        let name = &graph.name;
        let node = &graph.nodes[n];
        let table_node = node.operands.first().copied().unwrap_or(usize::MAX);
        let input = self.data_input(table_node, &format!("gather {n}"))?;
        let table = self
            .inputs
            .get(input)
            .ok_or_else(|| format!("@{name}: no input #{input}"))?;
        let indices = self.operand(at, 1)?;
        let eval = |e: &Expr| {
            e.eval_map(self.symbols)
                .map_err(|e| format!("@{name}: gather {n}: {e}"))
        };
        let (bound, index_stride) = (eval(bound)?, eval(index_stride)?);
        let offsets = self.offsets(&at.starts);
        let out = gather_tile(
            node.dtype,
            &at.shape,
            table,
            indices,
            (bound, index_stride),
            |idx| offsets.at(table_node, idx),
        )
        .map_err(|e| format!("@{name}: gather {n}: {e}"))?;
        self.stats.gm_elements_read += out.data.len() as u64;
        Ok(out)
    }

    /// An extract_slice: its operand's rows from `start` along `axis`.
    fn extract_slice(&self, at: &TileNode, axis: usize, start: &Expr) -> Result<Tensor, String> {
        let (n, name) = (at.n, &self.graph.name);
        let input = self.operand(at, 0)?;
        let start = start
            .eval_map(self.symbols)
            .map_err(|e| format!("@{name}: node {n} start: {e}"))?;
        let start =
            usize::try_from(start).map_err(|_| format!("@{name}: node {n} starts at {start}"))?;
        extract_slice_tile(self.graph.nodes[n].dtype, &at.shape, input, axis, start)
            .map_err(|e| format!("@{name}: node {n}: {e}"))
    }

    /// A store: its operand, written to the GM output it feeds unless an earlier tile
    /// wrote the same elements (the kernel's guards: a store that does not vary with a
    /// looped axis, or the split axis, writes only from the first tile along it).
    fn store(&mut self, at: &TileNode) -> Result<Tensor, String> {
        let (graph, schedule, case, n) = (self.graph, self.schedule, self.case, at.n);
        let name = &graph.name;
        let info = &schedule.nodes[n];
        let stored = self.operand(at, 0)?.clone();
        let repeats = case
            .looped
            .iter()
            .any(|&k| !info.full[k] && self.looped_index[k] != 0)
            || case.split.is_some_and(|u| !info.full[u] && self.chunk != 0);
        if repeats {
            return Ok(stored);
        }
        let out_node = graph
            .nodes
            .iter()
            .position(|o| o.op == "output" && o.operands.first() == Some(&n))
            .ok_or_else(|| format!("@{name}: store {n} feeds no output"))?;
        let index = graph.nodes[out_node].index.unwrap_or(0);
        // Field by field: the offsets read the tile while the outputs are written.
        let offsets = GmOffsets {
            schedule,
            case,
            origin: &self.origin,
            gm_strides: self.gm_strides,
            starts: &at.starts,
        };
        let gm = self
            .outputs
            .get_mut(index)
            .ok_or_else(|| format!("@{name}: no output #{index}"))?;
        let counts = &mut self.writes[index];
        let mut error = None;
        for_each_index(&at.shape, |idx| {
            let at = offsets.at(n, idx);
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
        Ok(stored)
    }

    /// An op of the Ascend IR interpreter (elementwise, cast, reduction, concat) over
    /// the node's box (`reduce_as` overrides the reduction op).
    fn compute(&self, at: &TileNode, reduce_as: Option<&str>) -> Result<Option<Tensor>, String> {
        let (n, name) = (at.n, &self.graph.name);
        let node = &self.graph.nodes[n];
        let info = &self.schedule.nodes[n];
        let mut operands: Vec<&Tensor> = (0..node.operands.len())
            .map(|i| self.operand(at, i))
            .collect::<Result<_, _>>()?;
        let taken = self.concat_rows(at, &operands)?;
        if !taken.is_empty() {
            operands = taken.iter().collect();
        }
        let result_ty = TensorType::new(
            node.dtype,
            at.shape.iter().map(|&d| Dim::constant(d as i64)).collect(),
        );
        let mut attrs: BTreeMap<String, AttrValue> = node
            .attrs
            .iter()
            .filter_map(|(k, v)| parse_attr(v).ok().map(|a| (k.clone(), a)))
            .collect();
        let op = match &info.kind {
            NodeKind::Reduce { op, .. } => {
                let input = operands.first().copied().ok_or("reduction without input")?;
                let axes: Vec<AttrValue> = at
                    .shape
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
        Ok(Some(results.swap_remove(0)))
    }

    /// For a concat in a tile that splits its axis: each operand's rows from where its
    /// use starts (a fill holds a whole tile and may be two parts). Empty otherwise.
    fn concat_rows(&self, at: &TileNode, operands: &[&Tensor]) -> Result<Vec<Tensor>, String> {
        let (n, name) = (at.n, &self.graph.name);
        let node = &self.graph.nodes[n];
        let (origin, ext) = (&self.origin, &self.ext);
        let mut taken: Vec<Tensor> = Vec::new();
        if let NodeKind::Concat { axis } = &self.schedule.nodes[n].kind {
            if self.case.split == Some(*axis) {
                let mut at = self.part_start(n)?;
                for (i, &o) in node.operands.iter().enumerate() {
                    let len = self.schedule.nodes[o].partial[*axis]
                        .as_ref()
                        .ok_or_else(|| format!("@{name}: concat {n}: operand #{i} is no part"))?
                        .eval_map(self.symbols)
                        .map_err(|e| format!("@{name}: node {n}: {e}"))?;
                    let rows = ((origin[*axis] + ext[*axis]).min(at + len) - origin[*axis].max(at))
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
        Ok(taken)
    }

    /// Adds the partial of accumulator `r` over the current chunk to `values[r]` (the
    /// `first` chunk's partial starts it); means accumulate sums.
    fn accumulate(
        &mut self,
        r: usize,
        values: &mut [Option<Tensor>],
        first: bool,
    ) -> Result<(), String> {
        let schedule = self.schedule;
        let kind = &schedule.nodes[r].kind;
        let as_sum = matches!(kind, NodeKind::Reduce { op, .. } if op == "mean");
        let partial = self.eval(r, values, as_sum.then_some("sum"))?;
        values[r] = match (first, values[r].take(), partial) {
            (true, _, part) | (_, None, part) => part,
            (_, Some(acc), Some(part)) => Some(combine(kind, acc, &part)?),
            (_, Some(acc), None) => Some(acc),
        };
        Ok(())
    }
}
