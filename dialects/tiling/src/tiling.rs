//! The tiling model of a scheduled kernel and a solved tiling: per case, the expressions
//! of the split extent, the looped positions, the UB bytes of every buffer and the
//! pipe costs of one tile (`TilingModel`, built from the impl-form kernel model), and
//! what the solver chose for given symbol values (`Tiling`: case, tile size, block dim,
//! buffer sizes; the tiling-data fields the kernel reads). The solver is the algorithm
//! of `--auto-tiling` (`passes/src/auto_tiling/solver.rs`); the host tiling function
//! generated in C++ runs the same steps.
use autofuse_ascir::kernel::{
    chunk_reloads_per_block, row_cache_rows, Case, CostExprs, CrossCoreCost, RowCacheSpec,
    Schedule, TableTraffic,
};
pub use autofuse_ascir::kernel::{
    gm_cycle_cap, gm_excess, GM_BUDGET, GM_CYCLE_SLACK, ROW_CACHE_BUFFER, ROW_CACHE_MIN_BYTES,
};
use autofuse_symbolic::Expr;
use std::collections::HashMap;

/// The expressions the solver evaluates for one case.
#[derive(Clone, Debug)]
pub struct CaseModel {
    pub key: u32,
    pub tile_var: Option<String>,
    pub block_var: String,
    pub split_size: Expr,
    pub outer: Expr,
    pub tile_align: i64,
    /// Split-reduction case: a tile is a row group (all passes over all chunks), so
    /// there are `outer` tiles whatever the tile size.
    pub reduce_split: bool,
    /// (name, position, count, bytes per block).
    pub buffers: Vec<(String, &'static str, u64, Expr)>,
    pub cost: CostExprs,
    /// Work done once per block before the tile loop (loads hoisted out of it).
    pub once: CostExprs,
    /// Work done each time a block enters a new chunk (the chunk-resident loads of a
    /// full chunk); the case then walks its tiles chunk-major.
    pub chunk: CostExprs,
    pub chunk_major: bool,
    /// The case walks chunk-fastest and reloads its outer-resident loads (`chunk`) each
    /// time a block's tiles reach a new looped position.
    pub outer_resident: bool,
    /// A cross-core case (`Case::cross_core`): its phase costs. The solver picks the
    /// number of blocks sharing a row group (`cross_core_split`) and adds a `SyncAll`.
    pub cross_core: Option<CrossCoreCost>,
    /// The gathers that keep the rows they picked in the `rowcache` buffer (what UB the
    /// other buffers leave; sized after the tile is chosen, `row_cache_slots`).
    pub row_caches: Vec<RowCacheSpec>,
    /// A case keeping gather tables in UB: the tables' bytes and the bytes its gathers
    /// pick per tile. A tile size qualifies only when a block picks at least the tables'
    /// bytes (`keeps_tables_for`).
    pub tables: Option<TableTraffic>,
}

impl CaseModel {
    /// Whether a block of `per` tiles (tile bound in `env`) may copy the case's gather
    /// tables whole: only when picking its rows from GM would read at least as many
    /// bytes, so the tables in UB never cost more GM traffic than the rows they serve.
    /// Cases without tables in UB always qualify.
    pub fn keeps_tables_for(&self, env: &HashMap<String, i64>, per: i64) -> Result<bool, String> {
        let Some(t) = &self.tables else {
            return Ok(true);
        };
        Ok(eval(&t.table_bytes, env)? <= eval(&t.pick_bytes, env)?.saturating_mul(per))
    }

    /// Slots of every row cache of the case (node, slots) and the bytes of the
    /// `rowcache` buffer, for a block of `per` tiles and `left` UB bytes the other
    /// buffers leave (its `ROW_CACHE_MIN_BYTES` included); `env` binds the symbols and
    /// the tile variable.
    pub fn row_cache_slots(
        &self,
        env: &HashMap<String, i64>,
        per: i64,
        left: i64,
    ) -> Result<(Vec<(usize, i64)>, i64), String> {
        let mut needs = Vec::new();
        for r in &self.row_caches {
            needs.push((
                eval(&r.row_bytes, env)?,
                eval(&r.rows_per_tile, env)?.saturating_mul(per),
                eval(&r.table_elems, env)?,
            ));
        }
        let (rows, bytes) = row_cache_rows(left, &needs);
        Ok((
            self.row_caches.iter().map(|r| r.node).zip(rows).collect(),
            bytes,
        ))
    }

    /// Most reloads of the resident loads a block of `per` tiles makes, with `outer`
    /// looped positions of `chunks` chunks each.
    pub fn reloads_per_block(&self, per: i64, outer: i64, chunks: i64) -> i64 {
        if self.chunk_major {
            chunk_reloads_per_block(per, outer, chunks)
        } else if self.outer_resident {
            chunk_reloads_per_block(per, chunks, outer)
        } else {
            0
        }
    }
}

/// The model of a whole kernel.
#[derive(Clone, Debug)]
pub struct TilingModel {
    pub kernel: String,
    pub symbols: Vec<String>,
    pub cases: Vec<CaseModel>,
    /// The kernel's inputs and outputs whole, each once (`Schedule::min_gm_bytes`):
    /// the base of the solver's GM budget (`GM_BUDGET`).
    pub min_bytes: Expr,
}

impl TilingModel {
    pub fn new(schedule: &Schedule, operands: &[Vec<usize>]) -> TilingModel {
        let cases = schedule
            .cases
            .iter()
            .map(|case: &Case| CaseModel {
                key: case.key,
                tile_var: case.tile_var.clone(),
                block_var: case.block_var.clone(),
                split_size: schedule.split_size(case),
                outer: schedule.outer_expr(case),
                tile_align: case.tile_align,
                reduce_split: case.reduce_split,
                buffers: schedule
                    .buffers(case, operands)
                    .into_iter()
                    .map(|b| (b.name, b.position, b.count, b.bytes))
                    .collect(),
                cost: schedule.cost_exprs(case),
                once: schedule.once_cost(case),
                chunk: schedule.chunk_cost(case),
                chunk_major: schedule.chunk_major(case),
                outer_resident: !schedule.outer_resident(case).is_empty(),
                cross_core: schedule.cross_core_cost(case),
                row_caches: schedule.row_caches(case),
                tables: schedule.table_traffic(case),
            })
            .collect();
        TilingModel {
            kernel: schedule.kernel.clone(),
            symbols: schedule.symbols.clone(),
            cases,
            min_bytes: schedule.min_gm_bytes(),
        }
    }

    /// GM bytes a solved tiling moves under the model: every tile's loads and stores
    /// (the tail tile of the split axis with its own extent) plus the hoisted loads once
    /// per block and the chunk-resident loads once per chunk each block enters. Stores
    /// written only from the first tile along an axis they do not vary on, and
    /// split-reduction tails, are counted as full tiles (an upper bound there); so is a
    /// gather reading its table from GM, one load per row it picks (a row cache hit
    /// saves one).
    pub fn gm_bytes(&self, tiling: &Tiling) -> Result<i64, String> {
        let case = self
            .cases
            .iter()
            .find(|c| c.key == tiling.key)
            .ok_or_else(|| format!("@{}: no case {}", self.kernel, tiling.key))?;
        let mut env: HashMap<String, i64> = tiling.symbols.iter().cloned().collect();
        let s = eval(&case.split_size, &env)?;
        let mut tile_bytes = |t: i64| -> Result<i64, String> {
            if let Some(v) = &case.tile_var {
                env.insert(v.clone(), t);
            }
            Ok(eval(&case.cost.mte2_bytes, &env)? + eval(&case.cost.mte3_bytes, &env)?)
        };
        if let Some(cc) = &case.cross_core {
            return cross_core_gm_bytes(case, cc, tiling, env, s);
        }
        let full = tile_bytes(tiling.tile)?;
        let per_tiles = if case.reduce_split || tiling.tiles_total == 0 {
            tiling.tiles_total * full
        } else {
            let t = tiling.tile.max(1);
            let chunks = ceil_div(s, t);
            let outer = tiling.tiles_total / chunks.max(1);
            let tail = tile_bytes(s - (chunks - 1) * t)?;
            outer * ((chunks - 1) * full + tail)
        };
        let mut resident = 0;
        if case.chunk_major && !case.reduce_split && tiling.tiles_total > 0 {
            let t = tiling.tile.max(1);
            let chunks = ceil_div(s, t).max(1);
            let outer = (tiling.tiles_total / chunks).max(1);
            for block in 0..tiling.block_dim {
                let first = block * tiling.tiles_per_block;
                let last = (first + tiling.tiles_per_block).min(tiling.tiles_total);
                for chunk in (first < last)
                    .then(|| first / outer..=(last - 1) / outer)
                    .into_iter()
                    .flatten()
                {
                    if let Some(v) = &case.tile_var {
                        env.insert(v.clone(), t.min(s - chunk * t));
                    }
                    resident += eval(&case.chunk.mte2_bytes, &env)?;
                }
            }
        }
        if case.outer_resident && !case.reduce_split && tiling.tiles_total > 0 {
            // Chunk-fastest walk: one reload per looped position a block reaches (the
            // resident loads do not vary along the split axis: any tile extent will do).
            let chunks = ceil_div(s, tiling.tile.max(1)).max(1);
            if let Some(v) = &case.tile_var {
                env.insert(v.clone(), tiling.tile);
            }
            let once = eval(&case.chunk.mte2_bytes, &env)?;
            for block in 0..tiling.block_dim {
                let first = block * tiling.tiles_per_block;
                let last = (first + tiling.tiles_per_block).min(tiling.tiles_total);
                if first < last {
                    resident += ((last - 1) / chunks - first / chunks + 1) * once;
                }
            }
        }
        if let Some(v) = &case.tile_var {
            env.insert(v.clone(), tiling.tile);
        }
        let once = eval(&case.once.mte2_bytes, &env)?;
        Ok(per_tiles + resident + tiling.block_dim.min(tiling.tiles_total) * once)
    }

    /// Every buffer name (the same in every case).
    pub fn buffer_names(&self) -> Vec<String> {
        self.cases
            .first()
            .map(|c| c.buffers.iter().map(|b| b.0.clone()).collect())
            .unwrap_or_default()
    }

    /// Whether some case keeps gathered rows in a row cache.
    pub fn has_row_caches(&self) -> bool {
        self.cases.iter().any(|c| !c.row_caches.is_empty())
    }

    /// Every gather node some case gives a row cache, in node order (one `rc<node>_rows`
    /// field each).
    pub fn row_cache_nodes(&self) -> Vec<usize> {
        let mut nodes: Vec<usize> = self
            .cases
            .iter()
            .flat_map(|c| c.row_caches.iter().map(|r| r.node))
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }
}

/// The tiling-data field holding the slots of gather `node`'s row cache.
pub fn row_cache_field(node: usize) -> String {
    format!("rc{node}_rows")
}

/// GM bytes of a cross-core tiling: phase 1 loads every chunk of every row group once
/// (the tail chunk with its own extent) and writes one workspace record per unit;
/// phase 2 reads every record back and writes the outputs once per row group.
fn cross_core_gm_bytes(
    case: &CaseModel,
    cc: &CrossCoreCost,
    tiling: &Tiling,
    mut env: HashMap<String, i64>,
    s: i64,
) -> Result<i64, String> {
    if tiling.tiles_total == 0 || tiling.parts < 1 {
        return Ok(0);
    }
    let t = tiling.tile.max(1);
    let chunks = ceil_div(s, t);
    let groups = tiling.tiles_total / tiling.parts;
    let mut at = |extent: i64, w: &CostExprs| -> Result<i64, String> {
        if let Some(v) = &case.tile_var {
            env.insert(v.clone(), extent);
        }
        Ok(eval(&w.mte2_bytes, &env)? + eval(&w.mte3_bytes, &env)?)
    };
    let chunk_bytes = (chunks - 1) * at(t, &cc.chunk)? + at(s - (chunks - 1) * t, &cc.chunk)?;
    let partial = at(t, &cc.partial)?;
    let combine = at(t, &cc.combine)?;
    let fin = at(t, &cc.fin)?;
    Ok(groups * (chunk_bytes + tiling.parts * (partial + combine) + fin))
}

/// Estimated cycles of one tile per pipe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PipeCost {
    pub mte2: i64,
    pub vec: i64,
    pub mte3: i64,
}

impl PipeCost {
    pub fn tile(&self) -> i64 {
        self.mte2.max(self.vec).max(self.mte3)
    }
}

/// A solved tiling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tiling {
    pub kernel: String,
    pub key: u32,
    pub tile: i64,
    pub tiles_total: i64,
    pub tiles_per_block: i64,
    pub block_dim: i64,
    pub ub_bytes: i64,
    pub ub_capacity: i64,
    pub cores: i64,
    /// The buffers of the chosen case.
    pub buffers: Vec<SolvedBuffer>,
    /// Cycles of one tile per pipe, and the estimated kernel time (cycles).
    pub per_tile: PipeCost,
    pub estimate: i64,
    /// Symbol values the tiling was solved for.
    pub symbols: Vec<(String, i64)>,
    /// Cross-core cases: blocks sharing each row group (`rcore_parts`) and the bytes of
    /// the workspace their partials take; 0 otherwise.
    pub parts: i64,
    pub workspace_bytes: i64,
    /// Slots of each row cache of the chosen case (gather node, slots); its `rowcache`
    /// buffer is in `buffers`.
    pub row_caches: Vec<(usize, i64)>,
}

/// A buffer of a solved case: (name, position, count, bytes per block).
pub type SolvedBuffer = (String, &'static str, u64, i64);

pub fn eval(e: &Expr, env: &HashMap<String, i64>) -> Result<i64, String> {
    e.eval_map(env)
        .map_err(|err| format!("cannot evaluate '{e}': {err}"))
}

pub fn ceil_div(a: i64, b: i64) -> i64 {
    if b <= 0 {
        return 0;
    }
    (a + b - 1) / b
}

pub fn align_up(a: i64, b: i64) -> i64 {
    ceil_div(a, b) * b
}

impl Tiling {
    /// A human-readable report (the tiling evaluator's output).
    pub fn report(&self, model: &TilingModel) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let case = model.cases.iter().find(|c| c.key == self.key);
        let syms: Vec<String> = self
            .symbols
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = writeln!(out, "kernel @{} ({})", self.kernel, syms.join(", "));
        let _ = writeln!(
            out,
            "  case {} ({}): tile {} = {}",
            self.key,
            case.and_then(|c| c.tile_var.as_deref())
                .map_or("no split".to_string(), |v| format!(
                    "split {}",
                    v.trim_end_matches("_size")
                )),
            case.and_then(|c| c.tile_var.as_deref()).unwrap_or("-"),
            self.tile
        );
        let _ = writeln!(
            out,
            "  tiles {} over block_dim {} ({} per block, {} cores)",
            self.tiles_total, self.block_dim, self.tiles_per_block, self.cores
        );
        if self.parts > 0 {
            let _ = writeln!(
                out,
                "  cross-core: {} blocks per row group, workspace {} bytes of partials",
                self.parts, self.workspace_bytes
            );
        }
        let _ = writeln!(
            out,
            "  UB {} / {} bytes ({:.1}%)",
            self.ub_bytes,
            self.ub_capacity,
            100.0 * self.ub_bytes as f64 / self.ub_capacity.max(1) as f64
        );
        for (name, pos, count, bytes) in &self.buffers {
            let _ = writeln!(out, "    {name:<8} {pos:<8} x{count} {bytes} B");
        }
        for (node, slots) in &self.row_caches {
            let _ = writeln!(
                out,
                "  row cache of gather {node}: {slots} rows (the UB the buffers leave)"
            );
        }
        let _ = writeln!(
            out,
            "  per tile (cycles, estimate): MTE2 {} VEC {} MTE3 {}; kernel ~{} cycles",
            self.per_tile.mte2, self.per_tile.vec, self.per_tile.mte3, self.estimate
        );
        if let Some(c) = case {
            let mut env: HashMap<String, i64> = self.symbols.iter().cloned().collect();
            if let Some(v) = &c.tile_var {
                env.insert(v.clone(), self.tile);
            }
            let once = eval(&c.once.mte2_bytes, &env).unwrap_or(0);
            if let Ok(bytes) = model.gm_bytes(self) {
                let _ = writeln!(
                    out,
                    "  GM bytes (model): {bytes} ({once} B of hoisted loads once per block)"
                );
            }
        }
        out
    }

    /// The tiling-data fields as (name, C type, value), in struct order.
    pub fn fields(&self, model: &TilingModel) -> Vec<(String, &'static str, i64)> {
        tiling_field_names(model)
            .into_iter()
            .map(|(name, ty)| {
                let value = self.field_value(model, &name);
                (name, ty, value)
            })
            .collect()
    }

    fn field_value(&self, model: &TilingModel, name: &str) -> i64 {
        match name {
            "block_dim" => self.block_dim,
            "tiling_key" => self.key as i64,
            "tiles_total" => self.tiles_total,
            "rcore_parts" => self.parts,
            "workspace_bytes" => self.workspace_bytes,
            _ => {
                if let Some((_, v)) = self.symbols.iter().find(|(s, _)| s == name) {
                    return *v;
                }
                let case = model.cases.iter().find(|c| c.key == self.key);
                if case.and_then(|c| c.tile_var.as_deref()) == Some(name) {
                    return self.tile;
                }
                if case.map(|c| c.block_var.as_str()) == Some(name) {
                    return self.tiles_per_block;
                }
                if let Some(b) = name.strip_suffix("_size") {
                    if let Some((_, _, _, bytes)) = self.buffers.iter().find(|x| x.0 == b) {
                        return *bytes;
                    }
                }
                if let Some(&(_, slots)) = self
                    .row_caches
                    .iter()
                    .find(|(n, _)| row_cache_field(*n) == name)
                {
                    return slots;
                }
                0
            }
        }
    }
}

/// The fields of a kernel's tiling-data struct, in order: header, symbols, tile and
/// block sizes of every case, buffer sizes (GE's order, ge_autofuse.md §7.4).
pub fn tiling_field_names(model: &TilingModel) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = vec![
        ("block_dim".into(), "uint32_t"),
        ("tiling_key".into(), "uint32_t"),
    ];
    for s in &model.symbols {
        out.push((s.clone(), "int64_t"));
    }
    out.push(("tiles_total".into(), "int64_t"));
    for case in &model.cases {
        if let Some(v) = &case.tile_var {
            if !out.iter().any(|(n, _)| n == v) {
                out.push((v.clone(), "int64_t"));
            }
        }
        if !out.iter().any(|(n, _)| n == &case.block_var) {
            out.push((case.block_var.clone(), "int64_t"));
        }
    }
    for b in model.buffer_names() {
        out.push((format!("{b}_size"), "uint32_t"));
    }
    for n in model.row_cache_nodes() {
        out.push((row_cache_field(n), "int64_t"));
    }
    if model.cases.iter().any(|c| c.cross_core.is_some()) {
        // Cross-core cases: blocks per row group, and the workspace the partials need.
        out.push(("rcore_parts".into(), "int64_t"));
        out.push(("workspace_bytes".into(), "int64_t"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work(mte2: Expr, mte3: Expr) -> CostExprs {
        let zero = Expr::constant(0);
        CostExprs {
            mte2_bytes: mte2,
            mte3_bytes: mte3,
            vec_bytes: zero.clone(),
            load_ops: zero.clone(),
            store_ops: zero.clone(),
            dma_rows: zero.clone(),
            vec_ops: zero,
        }
    }

    /// GM bytes of a cross-core tiling, by hand: a column sum of `[s0, 256]` f32 in
    /// chunks of `t` rows (a chunk loads `t * 1024` bytes), one 1024-byte partial per
    /// unit written and read back, one 1024-byte store per row group.
    #[test]
    fn cross_core_gm_bytes_count_the_workspace() {
        let t = Expr::symbol("z0t_size");
        let kb = Expr::constant(1024);
        let zero = Expr::constant(0);
        let case = CaseModel {
            key: 2,
            tile_var: Some("z0t_size".into()),
            block_var: "z0Tb_size".into(),
            split_size: Expr::symbol("s0"),
            outer: Expr::constant(1),
            tile_align: 1,
            reduce_split: true,
            buffers: Vec::new(),
            cost: work(zero.clone(), zero.clone()),
            once: work(zero.clone(), zero.clone()),
            chunk: work(zero.clone(), zero.clone()),
            chunk_major: false,
            outer_resident: false,
            cross_core: Some(CrossCoreCost {
                chunk: work(t * kb.clone(), zero.clone()),
                partial: work(zero.clone(), kb.clone()),
                combine: work(kb.clone(), zero.clone()),
                batch: work(zero.clone(), zero.clone()),
                fin: work(zero.clone(), kb),
            }),
            row_caches: Vec::new(),
            tables: None,
        };
        let model = TilingModel {
            kernel: "k".into(),
            symbols: vec!["s0".into()],
            cases: vec![case],
            min_bytes: Expr::constant(0),
        };
        // 4096 rows in chunks of 43: 96 chunks, the last of 11 rows; 48 parts.
        let tiling = Tiling {
            kernel: "k".into(),
            key: 2,
            tile: 43,
            tiles_total: 48,
            tiles_per_block: 1,
            block_dim: 48,
            ub_bytes: 0,
            ub_capacity: 0,
            cores: 48,
            buffers: Vec::new(),
            per_tile: PipeCost::default(),
            estimate: 0,
            symbols: vec![("s0".into(), 4096)],
            parts: 48,
            workspace_bytes: 48 * 1024,
            row_caches: Vec::new(),
        };
        let input = 4096 * 1024;
        let workspace = 2 * 48 * 1024;
        assert_eq!(model.gm_bytes(&tiling).unwrap(), input + workspace + 1024);
        let fields = tiling.fields(&model);
        assert!(fields.contains(&("rcore_parts".into(), "int64_t", 48)));
        assert!(fields.contains(&("workspace_bytes".into(), "int64_t", 48 * 1024)));
    }
}
