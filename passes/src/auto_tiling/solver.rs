//! The tiling solver: for a scheduled kernel, runtime symbol values and a chip profile,
//! picks the tiling case, the tile size and the block dim.
//!
//! Per case (GE's AxesReorder solver, simplified, ge_autofuse.md §7.3):
//! 1. `S` = extent of the split axis, `O` = number of looped positions, `a` = the tile
//!    alignment. `t_min = min(a, S)`; the case is infeasible if the UB bytes of a
//!    `t_min` tile exceed the capacity.
//! 2. `t_max` = the largest multiple of `a` (or `S`) whose UB bytes fit, by binary
//!    search: UB bytes are non-decreasing in `t` (every buffer size is a sum/max of
//!    aligned products of extents).
//! 3. Candidates: `t_max`, its halvings (aligned) down to `t_min`, the tile that
//!    gives every core work (`ceil(S / ceil(cores / O))`), and the balanced tile
//!    (`balanced_tile`) of the tiles-per-block count of each of those and of 1..=4;
//!    cross-core cases also the tiles of `cross_core_tiles`.
//! 4. For each candidate: `tiles = O * ceil(S / t)` (split-reduction cases: `O` row
//!    groups, each all passes over all chunks), `block_dim = min(cores, tiles)`,
//!    `per = ceil(tiles / block_dim)`, `block_dim = ceil(tiles / per)` (no idle block);
//!    cost = the pipelined time of `per` tiles (`block_cycles`: the first tile's MTE2,
//!    VEC and MTE3 in sequence, then the bottleneck pipe per further tile; the pipe
//!    times are `ChipProfile::{mte2,vec,mte3}_cycles`) plus the MTE2 cycles of the
//!    loads hoisted out of the tile loop (once per block) and of the chunk-resident
//!    loads times the chunks a block enters (`chunk_reloads_per_block`). The cheapest
//!    wins; ties keep the larger tile, then the lower case key. A case keeping gather
//!    tables in UB (`Case::ub_tables`) skips a tile whose block picks fewer bytes from
//!    them than the tables hold (`CaseModel::keeps_tables_for`): copying a table whole
//!    to every block must not move more GM bytes than picking its rows.
//!
//! 5. The GM budget (`GM_BUDGET`, 1.5x the kernel's inputs and outputs whole,
//!    `TilingModel::min_bytes`): blocks each copy the loads hoisted out of the tile
//!    loop (a small matmul's weight, layer norm's gamma and beta), so with few rows
//!    and many cores the copies can dwarf the kernel's own bytes. Each tile is also
//!    weighed on every halving of the block dim down to one block (`block_spreads`),
//!    and every candidate's GM bytes under the model (`Eval::gm_bytes`,
//!    `cross_core_gm_bytes`) are judged against the budget: a candidate within it
//!    beats any over it, over it the smaller excess wins (`gm_excess`), and only then
//!    cycles decide (`Candidate::beats`). Where the budget does not bind, the choice is
//!    the cheapest in cycles as before (more blocks never cost more cycles). The budget
//!    may not cost cycles: the solver first finds the fastest tiling with GM not
//!    weighed, then weighs GM only among the candidates within `GM_CYCLE_SLACK` (5%)
//!    of its cycles (`Budget::cycle_cap`); a candidate over that cap loses to any
//!    within it.
//!
//! Cross-core cases (`Case::cross_core`) share each row group's chunks among
//! `cross_core_split` blocks and cost phase 1 + `SyncAll` + phase 2
//! (`cross_core_candidate`); they also set `parts` and `workspace_bytes`.
//!
//! All arithmetic is on integers, and the host tiling function generated in C++
//! (`stages/target-ascendc/src/host.rs`) runs the same steps on the same expressions, so both
//! choose identically (checked by the end-to-end runner).
//!
//! Postconditions of `Ok`: `ub_bytes <= ub_capacity`, `1 <= block_dim <= cores`,
//! `block_dim * tiles_per_block >= tiles_total`.

use autofuse_ascir::chip::ChipProfile;
use autofuse_ascir::kernel::CostExprs;
use autofuse_symbolic::Expr;
use autofuse_tiling::tiling::*;
use std::collections::HashMap;

struct Eval<'a> {
    case: &'a CaseModel,
    env: HashMap<String, i64>,
}

impl Eval<'_> {
    fn with_t(&mut self, t: i64) {
        if let Some(v) = &self.case.tile_var {
            self.env.insert(v.clone(), t);
        }
    }

    fn ub(&mut self, t: i64) -> Result<i64, String> {
        self.with_t(t);
        let mut total = 0i64;
        for (_, _, count, bytes) in &self.case.buffers {
            total = total.saturating_add(eval(bytes, &self.env)?.saturating_mul(*count as i64));
        }
        Ok(total)
    }

    fn cost(&mut self, t: i64, chip: &ChipProfile) -> Result<PipeCost, String> {
        self.with_t(t);
        let c = &self.case.cost;
        let e = |x: &Expr, env: &HashMap<String, i64>| eval(x, env);
        Ok(PipeCost {
            mte2: chip
                .mte2_cycles(e(&c.mte2_bytes, &self.env)?, e(&c.load_ops, &self.env)?)
                .saturating_add(e(&c.dma_rows, &self.env)?),
            vec: chip.vec_cycles(e(&c.vec_bytes, &self.env)?, e(&c.vec_ops, &self.env)?),
            mte3: chip.mte3_cycles(e(&c.mte3_bytes, &self.env)?, e(&c.store_ops, &self.env)?),
        })
    }
}

impl Eval<'_> {
    /// MTE2 cycles of the work done once per block (the hoisted loads).
    fn once(&mut self, t: i64, chip: &ChipProfile) -> Result<i64, String> {
        let w = &self.case.once;
        self.mte2_of(w, t, chip)
    }

    /// MTE2 cycles of one reload of the chunk-resident loads.
    fn chunk(&mut self, t: i64, chip: &ChipProfile) -> Result<i64, String> {
        let w = &self.case.chunk;
        self.mte2_of(w, t, chip)
    }

    /// GM bytes one tile of extent `t` loads and stores (`cost`).
    fn tile_bytes(&mut self, t: i64) -> Result<i64, String> {
        self.with_t(t);
        let c = &self.case.cost;
        Ok(eval(&c.mte2_bytes, &self.env)?.saturating_add(eval(&c.mte3_bytes, &self.env)?))
    }

    /// GM bytes of a tiling of tile `t` in `bd` blocks of `per` tiles, under the model
    /// the budget is judged by: every tile's loads and stores (the tail tile of the
    /// split axis with its extent; a split-reduction row group whole), the hoisted
    /// loads once per block and the resident loads once per reload.
    fn gm_bytes(&mut self, shape: &SplitShape, t: i64, bd: i64, per: i64) -> Result<i64, String> {
        let SplitShape { s, o, .. } = *shape;
        let chunks = ceil_div(s, t);
        let streamed = if self.case.reduce_split {
            o.saturating_mul(self.tile_bytes(t)?)
        } else {
            let full = self.tile_bytes(t)?;
            let tail = self.tile_bytes(s - (chunks - 1) * t)?;
            o.saturating_mul((chunks - 1).saturating_mul(full).saturating_add(tail))
        };
        let reloads = self.case.reloads_per_block(per, o, chunks);
        self.with_t(t);
        let once = eval(&self.case.once.mte2_bytes, &self.env)?;
        let resident = eval(&self.case.chunk.mte2_bytes, &self.env)?;
        Ok(streamed.saturating_add(
            bd.saturating_mul(once.saturating_add(reloads.saturating_mul(resident))),
        ))
    }

    fn mte2_of(&mut self, w: &CostExprs, t: i64, chip: &ChipProfile) -> Result<i64, String> {
        self.with_t(t);
        Ok(chip
            .mte2_cycles(
                eval(&w.mte2_bytes, &self.env)?,
                eval(&w.load_ops, &self.env)?,
            )
            .saturating_add(eval(&w.dma_rows, &self.env)?))
    }
}

/// The smallest tile (a multiple of `a`, or `s`) with at most `p` tiles per block on
/// `cores` blocks when `o` looped positions each split `s` into tiles; 0 when even
/// whole-axis tiles need more than `p` tiles per block.
pub fn balanced_tile(s: i64, o: i64, a: i64, p: i64, cores: i64) -> i64 {
    let chunks = p.saturating_mul(cores) / o.max(1);
    if chunks < 1 {
        return 0;
    }
    align_up(ceil_div(s, chunks), a.max(1))
}

/// Extra tiles a cross-core case tries: the tile giving each of `p` blocks per row group
/// `k` chunks, for `p` = all, three quarters and half of the cores per row group (`o`
/// row groups) and `k` = 1..=4.
pub fn cross_core_tiles(s: i64, o: i64, a: i64, cores: i64) -> Vec<i64> {
    let groups = (cores / o.max(1)).max(1);
    let mut out = Vec::new();
    for p in [groups, groups * 3 / 4, groups / 2] {
        if p < 1 {
            continue;
        }
        for k in 1..=4 {
            out.push(align_up(ceil_div(s, p * k), a.max(1)));
        }
    }
    out
}

/// Cycles of a block of `per` tiles of per-pipe cost `cost`, pipelined
/// ([`ChipProfile::pipelined_cycles`]: the first tile's pipes in sequence, then the
/// bottleneck per tile). A split-reduction "tile" is a row group whose `chunks` chunks
/// already pipeline among themselves: only one chunk's share of the fill is added.
pub fn block_cycles(
    reduce_split: bool,
    per: i64,
    chunks: i64,
    cost: &PipeCost,
    chip: &ChipProfile,
) -> i64 {
    if !reduce_split {
        return chip.pipelined_cycles(per, cost.mte2, cost.vec, cost.mte3);
    }
    let fill = chip.pipelined_cycles(1, cost.mte2, cost.vec, cost.mte3) - cost.tile();
    per.saturating_mul(cost.tile())
        .saturating_add(ceil_div(fill, chunks.max(1)))
}

/// One evaluated candidate.
struct Candidate {
    t: i64,
    tiles: i64,
    per: i64,
    block_dim: i64,
    cost: PipeCost,
    total: i64,
    /// Cross-core cases: blocks sharing a row group.
    parts: i64,
    /// How far the candidate's GM bytes exceed the kernel's budget (`gm_excess`).
    excess: i64,
    /// Whether its cycles exceed the cap the GM budget may raise them to
    /// (`Budget::cycle_cap`).
    over_cap: bool,
}

impl Candidate {
    /// Whether `self` beats `other`: within the cycle cap first, then within the GM
    /// budget (or further under it), then fewer cycles; ties keep `other` (the larger
    /// tile, the lower case key).
    fn beats(&self, other: &Candidate) -> bool {
        (self.over_cap, self.excess, self.total) < (other.over_cap, other.excess, other.total)
    }
}

/// What the solver weighs besides cycles (step 5 of the module documentation): the
/// kernel's own GM minimum, the base of the GM budget (0: no budget), and the most
/// cycles a candidate may cost to get within it.
#[derive(Clone, Copy)]
struct Budget {
    min_bytes: i64,
    cycle_cap: i64,
}

impl Budget {
    /// Cycles alone decide.
    const NONE: Budget = Budget {
        min_bytes: 0,
        cycle_cap: i64::MAX,
    };

    /// A candidate moving `gm` bytes in `total` cycles, judged by this budget:
    /// (excess, over the cycle cap).
    fn judge(&self, gm: i64, total: i64) -> (i64, bool) {
        (gm_excess(gm, self.min_bytes), total > self.cycle_cap)
    }
}

/// A `CostExprs` evaluated: (mte2 bytes, mte3 bytes, vec bytes, load ops, store ops,
/// DMA rows, vec ops).
type WorkValues = [i64; 7];

fn work_values(w: &CostExprs, env: &HashMap<String, i64>) -> Result<WorkValues, String> {
    Ok([
        eval(&w.mte2_bytes, env)?,
        eval(&w.mte3_bytes, env)?,
        eval(&w.vec_bytes, env)?,
        eval(&w.load_ops, env)?,
        eval(&w.store_ops, env)?,
        eval(&w.dma_rows, env)?,
        eval(&w.vec_ops, env)?,
    ])
}

/// `a * k + b`, field by field.
fn scaled_sum(a: &WorkValues, k: i64, b: &WorkValues) -> WorkValues {
    let mut out = [0i64; 7];
    for i in 0..7 {
        out[i] = a[i].saturating_mul(k).saturating_add(b[i]);
    }
    out
}

fn pipes_of(w: &WorkValues, chip: &ChipProfile) -> PipeCost {
    PipeCost {
        mte2: chip.mte2_cycles(w[0], w[3]).saturating_add(w[5]),
        vec: chip.vec_cycles(w[2], w[6]),
        mte3: chip.mte3_cycles(w[1], w[4]),
    }
}

/// A cross-core case with chunk size `t` (bound in `env`): `o` row groups of `ceil(s / t)` chunks, each
/// shared by `parts` blocks (`cross_core_split`), one unit (row group share) per block.
/// Cost: phase 1 (the unit's chunks pipelined, then its partials written), the
/// `SyncAll`, phase 2 (every partial read back, `CROSS_CORE_BATCH` per DMA, and
/// combined, then the rest of the kernel) with its pipes in sequence. None when the row groups leave no room to share.
pub fn cross_core_candidate(
    cc: &autofuse_ascir::kernel::CrossCoreCost,
    env: &HashMap<String, i64>,
    (s, t, o): (i64, i64, i64),
    cores: i64,
    chip: &ChipProfile,
) -> Result<Option<(i64, i64, PipeCost, i64)>, String> {
    let chunks = ceil_div(s, t.max(1));
    let Some((parts, per_part)) = autofuse_ascir::kernel::cross_core_split(chunks, o, cores) else {
        return Ok(None);
    };
    let chunk = work_values(&cc.chunk, env)?;
    let phase1 = scaled_sum(&chunk, per_part, &work_values(&cc.partial, env)?);
    let pipes = pipes_of(&phase1, chip);
    let batches = ceil_div(parts, autofuse_ascir::kernel::CROSS_CORE_BATCH);
    let phase2 = pipes_of(
        &scaled_sum(
            &work_values(&cc.combine, env)?,
            parts,
            &scaled_sum(
                &work_values(&cc.batch, env)?,
                batches,
                &work_values(&cc.fin, env)?,
            ),
        ),
        chip,
    );
    let total = block_cycles(true, 1, per_part, &pipes, chip)
        .saturating_add(chip.sync_all_cycles.min(i64::MAX as u64) as i64)
        .saturating_add(phase2.mte2)
        .saturating_add(phase2.vec)
        .saturating_add(phase2.mte3);
    Ok(Some((parts, o.saturating_mul(parts), pipes, total)))
}

/// GM bytes of a cross-core candidate with chunk size `t` (bound in `env` by the
/// caller only for the full chunk): every row group's chunks once (the tail chunk with
/// its extent), `parts` partials written and read back, the rest once per row group
/// (`TilingModel::gm_bytes` of such a tiling).
pub fn cross_core_gm_bytes(
    cc: &autofuse_ascir::kernel::CrossCoreCost,
    tile_var: Option<&str>,
    env: &HashMap<String, i64>,
    (s, t, o): (i64, i64, i64),
    parts: i64,
) -> Result<i64, String> {
    let mut env = env.clone();
    let chunks = ceil_div(s, t.max(1));
    let mut at = |extent: i64, w: &CostExprs| -> Result<i64, String> {
        if let Some(v) = tile_var {
            env.insert(v.to_string(), extent);
        }
        Ok(eval(&w.mte2_bytes, &env)?.saturating_add(eval(&w.mte3_bytes, &env)?))
    };
    let chunk_bytes = (chunks - 1)
        .saturating_mul(at(t, &cc.chunk)?)
        .saturating_add(at(s - (chunks - 1) * t, &cc.chunk)?);
    let per_part = at(t, &cc.partial)?.saturating_add(at(t, &cc.combine)?);
    let fin = at(t, &cc.fin)?;
    Ok(o.saturating_mul(
        chunk_bytes
            .saturating_add(parts.saturating_mul(per_part))
            .saturating_add(fin),
    ))
}

/// Binds the symbols a model needs; errors name a missing one.
pub fn bind(
    model: &TilingModel,
    values: &HashMap<String, i64>,
) -> Result<HashMap<String, i64>, String> {
    let mut env = HashMap::new();
    for s in &model.symbols {
        match values.get(s) {
            Some(&v) if v >= 0 => {
                env.insert(s.clone(), v);
            }
            Some(&v) => return Err(format!("symbol {s} = {v} is negative")),
            None => {
                return Err(format!(
                    "no value for symbol {s} of kernel @{}",
                    model.kernel
                ))
            }
        }
    }
    Ok(env)
}

/// The largest multiple of `a` (or `s`) whose UB bytes fit `cap`, by binary search (UB
/// bytes are non-decreasing in the tile); `a.min(s)` when nothing larger fits.
fn largest_tile(ev: &mut Eval, s: i64, a: i64, cap: i64) -> Result<i64, String> {
    let (mut lo, mut hi) = (1i64, ceil_div(s, a));
    while lo < hi {
        let mid = lo + (hi - lo + 1) / 2;
        if ev.ub((mid * a).min(s))? <= cap {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Ok((lo * a).min(s))
}

/// The largest tile of `case`'s split axis that fits `chip`'s UB at the bound symbol
/// values `env` ([`bind`]); `None` when not even the smallest tile fits.
pub fn largest_fitting_tile(
    case: &CaseModel,
    env: &HashMap<String, i64>,
    chip: &ChipProfile,
) -> Result<Option<i64>, String> {
    let mut ev = Eval {
        case,
        env: env.clone(),
    };
    let s = eval(&case.split_size, &ev.env)?.max(1);
    let a = case.tile_align.max(1);
    let cap = chip.ub_usable as i64;
    if ev.ub(a.min(s))? > cap {
        return Ok(None);
    }
    largest_tile(&mut ev, s, a, cap).map(Some)
}

/// The buffers, UB bytes, cross-core workspace and row cache slots of a chosen candidate.
struct Solved {
    buffers: Vec<SolvedBuffer>,
    ub: i64,
    workspace: i64,
    row_caches: Vec<(usize, i64)>,
}

/// Solves the tiling of `model` for symbol values `values` on `chip`.
pub fn solve(
    model: &TilingModel,
    values: &HashMap<String, i64>,
    chip: &ChipProfile,
) -> Result<Tiling, String> {
    let env = bind(model, values)?;
    let min_bytes = eval(&model.min_bytes, &env)?;
    let cap = chip.ub_usable as i64;
    // First the fastest tiling, then the one within the GM budget that costs at most
    // `GM_CYCLE_SLACK` more cycles (the fastest qualifies, so the second pass finds one).
    let (key, cand, solved) = choose(model, &env, chip, Budget::NONE)?;
    let (key, cand, solved) = if min_bytes > 0 {
        let budget = Budget {
            min_bytes,
            cycle_cap: gm_cycle_cap(cand.total),
        };
        choose(model, &env, chip, budget)?
    } else {
        (key, cand, solved)
    };
    let mut symbols: Vec<(String, i64)> = model
        .symbols
        .iter()
        .map(|s| (s.clone(), env.get(s).copied().unwrap_or(0)))
        .collect();
    symbols.sort();
    Ok(Tiling {
        kernel: model.kernel.clone(),
        key,
        tile: cand.t,
        tiles_total: cand.tiles,
        tiles_per_block: cand.per,
        block_dim: cand.block_dim,
        ub_bytes: solved.ub,
        ub_capacity: cap,
        cores: chip.vector_cores.max(1) as i64,
        buffers: solved.buffers,
        per_tile: cand.cost,
        estimate: cand.total,
        symbols,
        parts: cand.parts,
        workspace_bytes: solved.workspace,
        row_caches: solved.row_caches,
    })
}

/// The best case of `model` at the symbol values bound in `env` and its candidate under
/// `budget`, with what the tiling data needs; an error when no case fits UB.
fn choose(
    model: &TilingModel,
    env: &HashMap<String, i64>,
    chip: &ChipProfile,
    budget: Budget,
) -> Result<(u32, Candidate, Solved), String> {
    let cap = chip.ub_usable as i64;
    let cores = chip.vector_cores.max(1) as i64;
    // The best case so far: its key and candidate, and what the tiling data needs.
    let mut best: Option<(u32, Candidate, Solved)> = None;
    let mut smallest_need: Option<i64> = None;
    for case in &model.cases {
        let mut ev = Eval {
            case,
            env: env.clone(),
        };
        let candidate = match cheapest_candidate(&mut ev, (cap, cores, budget), chip)? {
            CaseFit::TooLarge(need) => {
                smallest_need = Some(smallest_need.map_or(need, |m: i64| m.min(need)));
                continue;
            }
            CaseFit::Unusable => continue,
            CaseFit::Cheapest(candidate) => candidate,
        };
        let solved = solve_buffers(&mut ev, &candidate, cap)?;
        if best.as_ref().is_none_or(|b| candidate.beats(&b.1)) {
            best = Some((case.key, candidate, solved));
        }
    }
    best.ok_or_else(|| match smallest_need {
        Some(need) => format!(
            "no tiling case of @{} fits UB: the smallest tile needs {need} bytes, {} has {cap}",
            model.kernel, chip.name
        ),
        None => format!("@{} has no tiling case", model.kernel),
    })
}

/// What one case offers the solver.
enum CaseFit {
    /// Not even the smallest tile fits UB: the UB bytes it needs.
    TooLarge(i64),
    /// No candidate: a cross-core case with nothing to share, or no candidate tile
    /// leaves room to share a row group.
    Unusable,
    /// The case's cheapest candidate.
    Cheapest(Candidate),
}

/// The best candidate of the case `ev` evaluates (steps 1 to 5 of the module
/// documentation), with UB capacity `cap` bytes on `cores` cores, judged by `budget`.
fn cheapest_candidate(
    ev: &mut Eval,
    (cap, cores, budget): (i64, i64, Budget),
    chip: &ChipProfile,
) -> Result<CaseFit, String> {
    let case = ev.case;
    let s = eval(&case.split_size, &ev.env)?;
    let o = eval(&case.outer, &ev.env)?;
    let a = case.tile_align.max(1);
    let t_min = a.min(s).max(1);
    let need = ev.ub(t_min)?;
    if need > cap {
        return Ok(CaseFit::TooLarge(need));
    }
    if case.cross_core.is_some() && (s <= 0 || o <= 0) {
        // Nothing to share across cores.
        return Ok(CaseFit::Unusable);
    }
    if s <= 0 || o <= 0 {
        // Empty kernel: nothing to tile, one idle block.
        return Ok(CaseFit::Cheapest(Candidate {
            t: t_min,
            tiles: 0,
            per: 0,
            block_dim: 1,
            cost: PipeCost::default(),
            total: 0,
            parts: 0,
            excess: 0,
            over_cap: false,
        }));
    }
    let t_max = largest_tile(ev, s, a, cap)?;
    let shape = SplitShape {
        s,
        o,
        a,
        cores,
        budget,
    };
    let ts = candidate_tiles(&shape, (t_min, t_max), case.cross_core.is_some());
    let mut chosen: Option<Candidate> = None;
    for t in ts {
        let candidates = match &case.cross_core {
            Some(cc) => {
                ev.with_t(t);
                let tile_var = case.tile_var.as_deref();
                cross_core_tile(cc, (tile_var, &ev.env), &shape, t, chip)?
                    .into_iter()
                    .collect()
            }
            None => tile_candidates(ev, &shape, t, chip)?,
        };
        for candidate in candidates {
            if chosen.as_ref().is_none_or(|c| candidate.beats(c)) {
                chosen = Some(candidate);
            }
        }
    }
    Ok(chosen.map_or(CaseFit::Unusable, CaseFit::Cheapest))
}

/// The split axis of a case at the bound symbol values: extent `s`, `o` looped
/// positions, tile alignment `a`, on `cores` cores; the budget candidates are judged by.
struct SplitShape {
    s: i64,
    o: i64,
    a: i64,
    cores: i64,
    budget: Budget,
}

/// The candidate tiles between `t_min` and `t_max` (step 3 of the module
/// documentation), largest first.
fn candidate_tiles(shape: &SplitShape, (t_min, t_max): (i64, i64), cross_core: bool) -> Vec<i64> {
    let SplitShape { s, o, a, cores, .. } = *shape;
    let mut ts = vec![t_max];
    let mut t = t_max;
    while t > t_min {
        t = align_up(ceil_div(t, 2), a).min(s).max(t_min);
        if ts.last() != Some(&t) {
            ts.push(t);
        }
        if t == t_min {
            break;
        }
    }
    let spread = ceil_div(cores, o).max(1);
    let t_bal = align_up(ceil_div(s, spread), a).min(t_max).max(t_min);
    if !ts.contains(&t_bal) {
        ts.push(t_bal);
    }
    // The smallest tile that keeps `p` tiles per block (every block then gets
    // as much work, each tile as little as that many tiles allow), for the
    // tiles-per-block count of every candidate so far and for 1..=4.
    let mut levels: Vec<i64> = ts
        .iter()
        .map(|&t| ceil_div(o.saturating_mul(ceil_div(s, t)), cores))
        .collect();
    levels.extend(1..=4);
    for p in levels {
        let t = balanced_tile(s, o, a, p, cores).min(t_max).max(t_min);
        if !ts.contains(&t) {
            ts.push(t);
        }
    }
    if cross_core {
        // Fewer blocks per row group with more chunks each: phase 2 combines one
        // partial per block, so all of a group's cores are not always cheapest.
        for t in cross_core_tiles(s, o, a, cores) {
            let t = t.min(t_max).max(t_min);
            if !ts.contains(&t) {
                ts.push(t);
            }
        }
    }
    ts.sort_unstable_by(|x, y| y.cmp(x));
    ts
}

/// The candidate of a cross-core case with chunk size `t` (bound in `env`); `None` when
/// the row groups leave no room to share ([`cross_core_candidate`]).
fn cross_core_tile(
    cc: &autofuse_ascir::kernel::CrossCoreCost,
    (tile_var, env): (Option<&str>, &HashMap<String, i64>),
    shape: &SplitShape,
    t: i64,
    chip: &ChipProfile,
) -> Result<Option<Candidate>, String> {
    let SplitShape { s, o, cores, .. } = *shape;
    let Some((parts, tiles, cost, total)) = cross_core_candidate(cc, env, (s, t, o), cores, chip)?
    else {
        return Ok(None);
    };
    let gm = cross_core_gm_bytes(cc, tile_var, env, (s, t, o), parts)?;
    let (excess, over_cap) = shape.budget.judge(gm, total);
    Ok(Some(Candidate {
        t,
        tiles,
        per: 1,
        block_dim: tiles,
        cost,
        total,
        parts,
        excess,
        over_cap,
    }))
}

/// The candidates of tile `t` (steps 4 and 5 of the module documentation): its tiles
/// spread over the fewest blocks that keep the tiles per block on all cores
/// (`block_spreads`) and on every halving of them down to one block, each costed with
/// the hoisted and chunk-resident loads and judged by its GM bytes; a block count is
/// left out when the case keeps gather tables in UB and such a block would pick fewer
/// bytes than the tables hold (`CaseModel::keeps_tables_for`).
fn tile_candidates(
    ev: &mut Eval,
    shape: &SplitShape,
    t: i64,
    chip: &ChipProfile,
) -> Result<Vec<Candidate>, String> {
    let case = ev.case;
    let SplitShape { s, o, cores, .. } = *shape;
    let tiles = if case.reduce_split {
        o
    } else {
        o.saturating_mul(ceil_div(s, t))
    };
    let mut out = Vec::new();
    for (bd, per) in block_spreads(tiles, cores) {
        ev.with_t(t);
        if !case.keeps_tables_for(&ev.env, per)? {
            continue;
        }
        let cost = ev.cost(t, chip)?;
        // Hoisted loads: once per block, before its tiles; resident loads:
        // once per chunk (or looped position) the block enters.
        let reloads = case.reloads_per_block(per, o, ceil_div(s, t));
        let total = block_cycles(case.reduce_split, per, ceil_div(s, t), &cost, chip)
            .saturating_add(ev.once(t, chip)?)
            .saturating_add(reloads.saturating_mul(ev.chunk(t, chip)?));
        let gm = ev.gm_bytes(shape, t, bd, per)?;
        let (excess, over_cap) = shape.budget.judge(gm, total);
        out.push(Candidate {
            t,
            tiles,
            per,
            block_dim: bd,
            cost,
            total,
            parts: 0,
            excess,
            over_cap,
        });
    }
    Ok(out)
}

/// The (block dim, tiles per block) pairs the solver weighs for `tiles` tiles on
/// `cores` cores: at most `cores`, then half as many, and so on down to one block;
/// each the fewest blocks that keep its tiles per block (no idle block), without
/// repeats. More blocks are faster, fewer blocks copy a loop-invariant operand fewer
/// times (the GM budget decides between them).
pub fn block_spreads(tiles: i64, cores: i64) -> Vec<(i64, i64)> {
    if tiles <= 0 {
        return vec![(1, 0)];
    }
    let mut out: Vec<(i64, i64)> = Vec::new();
    let mut cap = cores.min(tiles).max(1);
    loop {
        let per = ceil_div(tiles, cap);
        let bd = ceil_div(tiles, per).max(1);
        if out.last().is_none_or(|&(_, p)| p != per) {
            out.push((bd, per));
        }
        if cap == 1 {
            return out;
        }
        cap = ceil_div(cap, 2);
    }
}

/// The buffer sizes, UB bytes, workspace and row cache slots of the case `ev`
/// evaluates with `candidate`'s tile, in UB of `cap` bytes.
fn solve_buffers(ev: &mut Eval, candidate: &Candidate, cap: i64) -> Result<Solved, String> {
    let case = ev.case;
    ev.with_t(candidate.t);
    let workspace = match &case.cross_core {
        Some(cc) => eval(&cc.partial.mte3_bytes, &ev.env)?.saturating_mul(candidate.tiles),
        None => 0,
    };
    let mut buffers = Vec::new();
    for (name, pos, count, bytes) in &case.buffers {
        buffers.push((name.clone(), *pos, *count, eval(bytes, &ev.env)?));
    }
    let mut ub = ev.ub(candidate.t)?;
    // The row caches take what UB the case's buffers leave (after the tile is chosen:
    // they never make a tile smaller), their smallest buffer included.
    let mut row_caches = Vec::new();
    if let Some(cache) = buffers.iter_mut().find(|b| b.0 == ROW_CACHE_BUFFER) {
        let (slots, bytes) = case.row_cache_slots(&ev.env, candidate.per, cap - ub + cache.3)?;
        ub += bytes - cache.3;
        cache.3 = bytes;
        row_caches = slots;
    }
    Ok(Solved {
        buffers,
        ub,
        workspace,
        row_caches,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower_to_ascir::lowering::lower_op;
    use crate::schedule::build::BuildSchedule;
    use autofuse_ascir::kernel::Schedule;
    use autofuse_ir::graph::{DType, TensorType};
    use std::collections::BTreeMap;

    fn t(dtype: DType, dims: &[&str]) -> TensorType {
        TensorType::with_dims(dtype, dims).unwrap()
    }

    /// Cross-core candidates: 48, 36 and 24 blocks per row group with 1..=4 chunks each
    /// (36 x 2 chunks of 57 rows covers 4096 rows), aligned; one row group per core when
    /// the row groups outnumber the cores.
    #[test]
    fn cross_core_tiles_cover_fewer_blocks_with_more_chunks() {
        let tiles = cross_core_tiles(4096, 1, 1, 48);
        assert_eq!(tiles.len(), 12);
        assert!(tiles.contains(&86) && tiles.contains(&57) && tiles.contains(&43));
        assert_eq!(cross_core_tiles(4096, 1, 8, 48)[0], 88);
        assert_eq!(cross_core_tiles(100, 60, 1, 48), vec![100, 50, 34, 25]);
    }

    fn model(
        op: &str,
        ins: &[TensorType],
        out: TensorType,
        attrs: BTreeMap<String, autofuse_ir::attr::AttrValue>,
    ) -> TilingModel {
        let g = lower_op(op, &attrs, ins, &[out], None, "k").unwrap();
        let chip = ChipProfile::lookup("ascend910b").unwrap();
        let s = Schedule::build(&g, &chip).unwrap();
        TilingModel::new(&s, &Schedule::operands_of(&g))
    }

    #[test]
    fn pointwise_tiles_fit_and_spread() {
        let m = model(
            "ascend.exp",
            &[t(DType::F32, &["s0"])],
            t(DType::F32, &["s0"]),
            BTreeMap::new(),
        );
        let chip = ChipProfile::lookup("ascend910b").unwrap();
        for n in [1i64, 7, 8, 1000, 123_457, 10_000_000] {
            let vals = HashMap::from([("s0".to_string(), n)]);
            let tiling = solve(&m, &vals, &chip).unwrap();
            assert!(tiling.ub_bytes <= tiling.ub_capacity, "{n}: {tiling:?}");
            assert!(tiling.block_dim >= 1 && tiling.block_dim <= 48);
            assert!(tiling.block_dim * tiling.tiles_per_block >= tiling.tiles_total);
            assert!(tiling.tile == n.min(tiling.tile));
            if n > 8 {
                assert_eq!(tiling.tile % 8, 0, "tiles stay 32-byte aligned");
            }
        }
        let big = solve(&m, &HashMap::from([("s0".to_string(), 10_000_000)]), &chip).unwrap();
        assert_eq!(big.block_dim, 48);
    }

    /// A broadcast row (`[s0, 64] + [1, 64]`) is invariant along the tile loop: it is
    /// hoisted (one load per block, its own buffer counted once in UB), the impl-form
    /// interpreter reads it once per block, and the model's GM bytes equal what it moves.
    #[test]
    fn invariant_loads_are_hoisted_once_per_block() {
        use autofuse_ascir::interp as ascir_interp;
        use autofuse_ir::tensor::Tensor;
        use autofuse_tiling::impl_interp as ascir_impl_interp;
        let g = lower_op(
            "ascend.add",
            &BTreeMap::new(),
            &[t(DType::F32, &["s0", "64"]), t(DType::F32, &["1", "64"])],
            &[t(DType::F32, &["s0", "64"])],
            None,
            "k",
        )
        .unwrap();
        // Small UB and 3 cores: many tiles per block.
        let chip = ChipProfile::lookup("ascend910b")
            .unwrap()
            .with_overrides(8192, 3)
            .unwrap();
        let s = Schedule::build(&g, &chip).unwrap();
        let model = TilingModel::new(&s, &Schedule::operands_of(&g));
        let bias = (0..g.nodes.len())
            .filter(|&n| g.nodes[n].op == "load")
            .nth(1)
            .unwrap();
        assert_eq!(s.hoisted(&s.cases[0]), vec![bias]);
        // Splitting the row axis: the bias varies along the split axis, no hoisting.
        assert!(s.hoisted(&s.cases[1]).is_empty());
        assert!(model.buffer_names().contains(&"hoist".to_string()));
        for rows in [1i64, 7, 1000] {
            let values = HashMap::from([("s0".to_string(), rows)]);
            let tiling = solve(&model, &values, &chip).unwrap();
            assert!(tiling.ub_bytes <= tiling.ub_capacity);
            let inputs = vec![
                Tensor::random(DType::F32, vec![rows as usize, 64], 1).unwrap(),
                Tensor::random(DType::F32, vec![1, 64], 2).unwrap(),
            ];
            let (outs, stats) = ascir_impl_interp::run(&g, &s, &tiling, &inputs, &values).unwrap();
            let expected = ascir_interp::run_with_symbols(&g, &inputs, &values).unwrap();
            assert_eq!(outs[0].data, expected[0].data);
            assert_eq!(stats.gm_elements_written, rows as u64 * 64);
            let moved = (stats.gm_elements_read + stats.gm_elements_written) as i64 * 4;
            assert_eq!(model.gm_bytes(&tiling).unwrap(), moved, "{tiling:?}");
            if rows == 1000 {
                // x and the output once, the bias once per block (of many tiles).
                assert_eq!(tiling.key, 0, "{tiling:?}");
                assert!(tiling.tiles_per_block > 1, "{tiling:?}");
                let blocks = tiling.block_dim as u64;
                assert_eq!(stats.gm_elements_read, rows as u64 * 64 + blocks * 64);
            }
        }
    }

    /// `select(cond [s0, 4096], a [1, 4096], b [1, 4096])` on 48 cores: every block
    /// loads the two 16 KiB rows `a` and `b` once, so with few rows many blocks move
    /// several times the kernel's inputs and outputs. The GM budget takes fewer blocks
    /// only within `GM_CYCLE_SLACK` of the fastest tiling's cycles: at 4 rows 32 blocks
    /// instead of 48 (3% more cycles); with more rows the fastest is kept (fewer blocks
    /// would cost more than the slack), with many rows every core works. The model's
    /// GM bytes equal what the impl-form interpreter moves.
    #[test]
    fn gm_budget_takes_fewer_blocks_within_the_cycle_slack() {
        use autofuse_ir::tensor::Tensor;
        use autofuse_tiling::impl_interp as ascir_impl_interp;
        let g = lower_op(
            "ascend.select",
            &BTreeMap::new(),
            &[
                t(DType::Bool, &["s0", "4096"]),
                t(DType::F32, &["1", "4096"]),
                t(DType::F32, &["1", "4096"]),
            ],
            &[t(DType::F32, &["s0", "4096"])],
            None,
            "k",
        )
        .unwrap();
        let chip = ChipProfile::lookup("ascend910b").unwrap();
        let s = Schedule::build(&g, &chip).unwrap();
        let model = TilingModel::new(&s, &Schedule::operands_of(&g));
        for rows in [4i64, 32, 4096] {
            let values = HashMap::from([("s0".to_string(), rows)]);
            let tiling = solve(&model, &values, &chip).unwrap();
            let inputs = vec![
                Tensor::random(DType::Bool, vec![rows as usize, 4096], 1).unwrap(),
                Tensor::random(DType::F32, vec![1, 4096], 2).unwrap(),
                Tensor::random(DType::F32, vec![1, 4096], 3).unwrap(),
            ];
            let (_, stats) = ascir_impl_interp::run(&g, &s, &tiling, &inputs, &values).unwrap();
            assert_eq!(stats.gm_elements_written, rows as u64 * 4096);
            // Bytes: the bool rows read (1 B each), the f32 rows read and written.
            let f32_read = stats.gm_elements_read as i64 - rows * 4096;
            let moved = rows * 4096 + 4 * (f32_read + rows * 4096);
            assert_eq!(model.gm_bytes(&tiling).unwrap(), moved, "{tiling:?}");
            // Inputs and output whole, each once.
            let (_, fastest, _) =
                choose(&model, &bind(&model, &values).unwrap(), &chip, Budget::NONE).unwrap();
            assert!(
                tiling.estimate <= gm_cycle_cap(fastest.total),
                "{rows} rows: {} cycles, the fastest {}",
                tiling.estimate,
                fastest.total
            );
            match rows {
                4 => assert!(tiling.block_dim < fastest.block_dim, "{tiling:?}"),
                4096 => assert_eq!(tiling.block_dim, 48, "{tiling:?}"),
                _ => {}
            }
        }
    }

    #[test]
    fn block_spreads_halve_down_to_one_block() {
        assert_eq!(
            block_spreads(32, 48),
            vec![(32, 1), (16, 2), (8, 4), (4, 8), (2, 16), (1, 32)]
        );
        // 7 tiles on caps 7, 4, 2, 1: tiles per block 1, 2, 4, 7.
        assert_eq!(block_spreads(7, 48), vec![(7, 1), (4, 2), (2, 4), (1, 7)]);
        assert_eq!(block_spreads(0, 48), vec![(1, 0)]);
    }

    /// A table broadcast over the outer axis (`[8, s0, 64] + [1, s0, 64]`, the cos/sin
    /// of a rotary embedding) varies only along the split axis `s0`: the case walks its
    /// tiles chunk-major and reloads the table once per chunk a block enters, not once
    /// per tile; the impl-form interpreter agrees with the reference, and the model's GM
    /// bytes equal what it moves.
    #[test]
    fn chunk_resident_loads_reload_once_per_chunk() {
        use autofuse_ascir::interp as ascir_interp;
        use autofuse_ascir::kernel::chunk_reloads_per_block;
        use autofuse_ir::tensor::Tensor;
        use autofuse_tiling::impl_interp as ascir_impl_interp;
        let g = lower_op(
            "ascend.add",
            &BTreeMap::new(),
            &[
                t(DType::F32, &["8", "s0", "64"]),
                t(DType::F32, &["1", "s0", "64"]),
            ],
            &[t(DType::F32, &["8", "s0", "64"])],
            None,
            "k",
        )
        .unwrap();
        // Small UB and 3 cores: the row axis is split, many tiles per block.
        let chip = ChipProfile::lookup("ascend910b")
            .unwrap()
            .with_overrides(8192, 3)
            .unwrap();
        let s = Schedule::build(&g, &chip).unwrap();
        let model = TilingModel::new(&s, &Schedule::operands_of(&g));
        let table = (0..g.nodes.len())
            .filter(|&n| g.nodes[n].op == "load")
            .nth(1)
            .unwrap();
        let rows_case = s.cases.iter().find(|c| c.split == Some(1)).unwrap();
        assert_eq!(s.chunk_resident(rows_case), vec![table]);
        assert!(s.chunk_major(rows_case));
        assert!(s.hoisted(rows_case).is_empty());
        for rows in [1i64, 5, 300] {
            let values = HashMap::from([("s0".to_string(), rows)]);
            let tiling = solve(&model, &values, &chip).unwrap();
            let inputs = vec![
                Tensor::random(DType::F32, vec![8, rows as usize, 64], 1).unwrap(),
                Tensor::random(DType::F32, vec![1, rows as usize, 64], 2).unwrap(),
            ];
            let (outs, stats) = ascir_impl_interp::run(&g, &s, &tiling, &inputs, &values).unwrap();
            let expected = ascir_interp::run_with_symbols(&g, &inputs, &values).unwrap();
            assert_eq!(outs[0].data, expected[0].data);
            let moved = (stats.gm_elements_read + stats.gm_elements_written) as i64 * 4;
            assert_eq!(model.gm_bytes(&tiling).unwrap(), moved, "{tiling:?}");
            if rows == 300 {
                assert_eq!(tiling.key, rows_case.key, "{tiling:?}");
                let chunks = ceil_div(rows, tiling.tile);
                let reloads = chunk_reloads_per_block(tiling.tiles_per_block, 8, chunks);
                assert!(reloads < tiling.tiles_per_block, "{tiling:?}");
                // x once, the table at most `reloads` chunks per block.
                let table_reads = stats.gm_elements_read - 8 * 300 * 64;
                let bound = (tiling.block_dim * reloads * tiling.tile * 64) as u64;
                assert!(table_reads <= bound, "{table_reads} > {bound}: {tiling:?}");
                assert!(table_reads < 8 * 300 * 64, "{tiling:?}");
            }
        }
    }

    /// Reductions over the outer axis of `[s0, 256]` (a column sum, max, mean): few
    /// row groups, so the cross-core twin of the split-reduction case is chosen for
    /// long columns and spreads them over many blocks; the impl-form interpreter
    /// (phase 1 partials, phase 2 combine) agrees with the reference, and the model's GM
    /// bytes equal what it moves, workspace traffic included. Short columns keep the
    /// one-core cases.
    #[test]
    fn column_reductions_split_across_cores() {
        use autofuse_ascir::interp as ascir_interp;
        use autofuse_ir::tensor::Tensor;
        use autofuse_tiling::impl_interp as ascir_impl_interp;
        let chip = ChipProfile::lookup("ascend910b").unwrap();
        for op in [
            "ascend.reduce_sum",
            "ascend.reduce_max",
            "ascend.reduce_mean",
        ] {
            let mut attrs = BTreeMap::new();
            attrs.insert(
                "axes".into(),
                autofuse_ir::attr::AttrValue::Array(vec![autofuse_ir::attr::AttrValue::Int(0)]),
            );
            attrs.insert("keep_dims".into(), autofuse_ir::attr::AttrValue::Bool(true));
            let g = lower_op(
                op,
                &attrs,
                &[t(DType::F32, &["s0", "256"])],
                &[t(DType::F32, &["1", "256"])],
                None,
                "k",
            )
            .unwrap();
            let s = Schedule::build(&g, &chip).unwrap();
            let model = TilingModel::new(&s, &Schedule::operands_of(&g));
            let cross = s
                .cases
                .iter()
                .find(|c| c.cross_core)
                .expect("a cross-core twin");
            assert!(cross.reduce_split && s.cross_core_ok(cross));
            for rows in [3i64, 256, 4096, 20000] {
                let values = HashMap::from([("s0".to_string(), rows)]);
                let tiling = solve(&model, &values, &chip).unwrap();
                if rows >= 4096 {
                    assert_eq!(tiling.key, cross.key, "{op} {rows}: {tiling:?}");
                    assert!(tiling.block_dim >= 24, "{op} {rows}: {tiling:?}");
                    assert_eq!(tiling.tiles_total, tiling.parts, "{tiling:?}");
                    assert_eq!(tiling.workspace_bytes, tiling.parts * 1024, "{tiling:?}");
                }
                if rows == 3 {
                    assert_ne!(tiling.key, cross.key, "{op} {rows}: {tiling:?}");
                }
                let inputs = vec![Tensor::random(DType::F32, vec![rows as usize, 256], 7).unwrap()];
                let (outs, stats) =
                    ascir_impl_interp::run(&g, &s, &tiling, &inputs, &values).unwrap();
                let expected = ascir_interp::run_with_symbols(&g, &inputs, &values).unwrap();
                for (a, e) in outs[0].data.iter().zip(&expected[0].data) {
                    assert!(
                        (a - e).abs() <= 1e-3 * e.abs().max(1.0),
                        "{op} {rows}: {a} vs {e}"
                    );
                }
                let moved = (stats.gm_elements_read + stats.gm_elements_written) as i64 * 4;
                assert_eq!(
                    model.gm_bytes(&tiling).unwrap(),
                    moved,
                    "{op} {rows}: {tiling:?}"
                );
            }
        }
    }

    #[test]
    fn long_rows_split_the_reduction() {
        let mut attrs = BTreeMap::new();
        attrs.insert(
            "axes".into(),
            autofuse_ir::attr::AttrValue::Array(vec![autofuse_ir::attr::AttrValue::Int(1)]),
        );
        let m = model(
            "ascend.reduce_sum",
            &[t(DType::F32, &["s0", "s1"])],
            t(DType::F32, &["s0", "1"]),
            attrs,
        );
        let chip = ChipProfile::lookup("ascend910b").unwrap();
        let ok = solve(
            &m,
            &HashMap::from([("s0".into(), 4), ("s1".into(), 1000)]),
            &chip,
        )
        .unwrap();
        assert_eq!(ok.key, 0);
        // Rows of 10^7 floats: the split-reduction case; with 4 rows its cross-core
        // twin shares each row among 12 blocks.
        let split = solve(
            &m,
            &HashMap::from([("s0".into(), 4), ("s1".into(), 10_000_000)]),
            &chip,
        )
        .unwrap();
        assert_eq!(split.key, 2);
        assert_eq!(
            (split.parts, split.tiles_total, split.block_dim),
            (12, 48, 48)
        );
        assert!(split.ub_bytes <= split.ub_capacity);
        // 48 rows fill the cores: one row group per core, no cross-core split.
        let rows = solve(
            &m,
            &HashMap::from([("s0".into(), 48), ("s1".into(), 10_000_000)]),
            &chip,
        )
        .unwrap();
        assert_eq!((rows.key, rows.tiles_total, rows.parts), (1, 48, 0));
    }

    /// A gather from a 4 KiB table (`[16, 64]` f32 picked by `[s0]` ids) has a twin that
    /// copies the table into UB once per block. The solver takes it only where a block
    /// picks at least the table's bytes: with 48 rows (one per core) every block would
    /// copy 4 KiB to use 256 bytes, so the GM case runs; with 10^5 rows the twin does.
    /// Wherever the twin runs, the model's GM bytes stay within what picking every row
    /// from GM moves.
    #[test]
    fn gather_tables_stay_in_gm_unless_a_block_picks_their_bytes() {
        let mut attrs = BTreeMap::new();
        attrs.insert("axis".into(), autofuse_ir::attr::AttrValue::Int(0));
        let m = model(
            "ascend.gather",
            &[t(DType::F32, &["16", "64"]), t(DType::I32, &["s0"])],
            t(DType::F32, &["s0", "64"]),
            attrs,
        );
        let chip = ChipProfile::lookup("ascend910b").unwrap();
        let keeps_table = |key: u32| {
            m.cases
                .iter()
                .find(|c| c.key == key)
                .is_some_and(|c| c.tables.is_some())
        };
        assert!(m.cases.iter().any(|c| c.tables.is_some()), "no twin");
        for rows in [1i64, 7, 48, 100, 1000, 100_000] {
            let values = HashMap::from([("s0".to_string(), rows)]);
            let tiling = solve(&m, &values, &chip).unwrap();
            if keeps_table(tiling.key) {
                // The table once per block, the ids and the result once: no more than
                // picking every row from GM.
                let picking = rows * (64 * 4 + 4 + 64 * 4);
                let moved = m.gm_bytes(&tiling).unwrap();
                assert!(moved <= picking, "{rows}: {moved} > {picking}: {tiling:?}");
            }
            match rows {
                48 => assert!(!keeps_table(tiling.key), "{tiling:?}"),
                100_000 => assert!(keeps_table(tiling.key), "{tiling:?}"),
                _ => {}
            }
        }
    }
}
