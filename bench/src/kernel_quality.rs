//! `autofuse-bench kernel-quality`: how good the generated kernels are under the chip
//! model, and how fused and unfused programs compare on the CPU emulation.
//!
//! For every graph (`examples/*.mlir`, `bench/quality/graphs/*.mlir`) at one or two
//! concrete shapes, in-process through the library crates:
//! 1. the pipeline with `fuse` (`autofuse::runner::prepare_module`), one g++
//!    build of the kernels against the emulation (cached), and one run of the entry graph
//!    whose kernel calls go through a hook that solves each call's tiling for the chip
//!    profile (`tiling_solver::solve`) and launches it on the emulation. Per kernel call:
//!    UB bytes of the chosen tiling / usable UB, block dim / vector cores, the cost
//!    model's cycles per pipe over the whole kernel (`tiles_per_block * per-tile cycles`
//!    of MTE2, VEC and MTE3) and its estimate (pipelined tiles), the roofline bound
//!    (the kernel's inputs and outputs moved once over the chip's HBM bandwidth) and the
//!    ratio estimate / roofline;
//! 2. the same graph without `fuse` (one kernel per lowered op), and the wall time of
//!    every kernel launch of both programs on this machine (`Instant` around each
//!    emulated launch only: no compile, no interpreter), summed per run, median over
//!    several runs, reported as unfused / fused.
//!
//! Writes `docs/benchmarks/kernel_quality.md`.

use autofuse::runner::symbols::parse_symbol_values as parse_symbols;
use autofuse::runner::{self as run, PreparedModule, RunOptions, SimBuild};
use autofuse_ascir::chip::ChipProfile;
use autofuse_ascir::interp as ascir_interp;
use autofuse_ir::graph::{Dim, TensorType};
use autofuse_ir::tensor::Tensor;
use autofuse_mlir::context::create_context;
use autofuse_passes::auto_tiling::solver;
use autofuse_tiling::tiling::Tiling;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Clock used to turn cycles into microseconds. The chip profile's bandwidth constant
/// (18 B/cycle per core) was derived from ~1.6 TB/s over 48 cores at this clock; neither
/// number is documented (`dialects/ascir/src/chip.rs`).
pub const CLOCK_HZ: f64 = 1.85e9;

/// An estimate further than this factor from the roofline (either way) is flagged.
pub const FAR: f64 = 2.0;

struct Options {
    out: PathBuf,
    graphs: Vec<PathBuf>,
    shapes: Vec<HashMap<String, i64>>,
    default_symbol: i64,
    reps: usize,
    target: String,
}

const USAGE: &str = "usage: autofuse-bench kernel-quality [--out DIR] [--graphs a.mlir,b.mlir] \
[--symbols s0=4096 (repeat for more shapes)] [--default-symbol N] [--reps N] [--target NAME]";

fn default_graphs(repo: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["examples", "bench/quality/graphs"] {
        let Ok(entries) = std::fs::read_dir(repo.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

fn parse_options(args: impl Iterator<Item = String>) -> Result<Options, String> {
    let repo = run::repo_root();
    let mut options = Options {
        out: PathBuf::from("docs/benchmarks"),
        graphs: Vec::new(),
        shapes: Vec::new(),
        default_symbol: 64,
        reps: 3,
        target: autofuse_ascir::chip::DEFAULT_TARGET.to_string(),
    };
    let mut args = args;
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--out" => options.out = PathBuf::from(value()?),
            "--graphs" => {
                options.graphs = value()?
                    .split(',')
                    .filter(|s| !s.trim().is_empty())
                    .map(|s| PathBuf::from(s.trim()))
                    .collect()
            }
            "--symbols" => options.shapes.push(parse_symbols(&value()?)?),
            "--default-symbol" => {
                let v = value()?;
                options.default_symbol = v
                    .parse()
                    .ok()
                    .filter(|n: &i64| *n >= 1)
                    .ok_or_else(|| format!("bad --default-symbol '{v}'"))?
            }
            "--reps" => {
                let v = value()?;
                options.reps = v
                    .parse()
                    .ok()
                    .filter(|n: &usize| *n >= 1)
                    .ok_or_else(|| format!("bad --reps '{v}'"))?
            }
            "--target" => options.target = value()?,
            "--help" | "-h" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument '{other}'\n{USAGE}")),
        }
    }
    if options.graphs.is_empty() {
        options.graphs = default_graphs(&repo);
    }
    if options.graphs.is_empty() {
        return Err("no graphs found (examples/*.mlir, bench/quality/graphs/*.mlir)".into());
    }
    if options.shapes.is_empty() {
        options.shapes = vec![
            HashMap::from([("s0".to_string(), 256)]),
            HashMap::from([("s0".to_string(), 4096)]),
        ];
    }
    Ok(options)
}

/// Minimum cycles to move `min_bytes` through HBM at the profile's bandwidth: the
/// per-core GM->UB rate times the vector cores (18 B/cycle x 48 = 864 B/cycle on 910B).
pub fn roofline_cycles(min_bytes: u64, chip: &ChipProfile) -> f64 {
    let bandwidth = (chip.mte2_bytes_per_cycle.max(1) * chip.vector_cores.max(1)) as f64;
    min_bytes as f64 / bandwidth
}

/// HBM bandwidth of the profile in GB/s at [`CLOCK_HZ`].
pub fn hbm_gbps(chip: &ChipProfile) -> f64 {
    (chip.mte2_bytes_per_cycle * chip.vector_cores) as f64 * CLOCK_HZ / 1e9
}

/// Whether an estimate is more than [`FAR`] away from its roofline (either way).
pub fn is_far(ratio: f64) -> bool {
    ratio.is_finite() && !(1.0 / FAR..=FAR).contains(&ratio)
}

/// Median of a non-empty sample (0 when empty).
pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn us(cycles: f64) -> f64 {
    cycles / CLOCK_HZ * 1e6
}

/// `autofuse_reduce_0_Cast_Mul_...` -> `reduce_0`.
pub fn short_kernel_name(name: &str) -> String {
    let rest = name.strip_prefix("autofuse_").unwrap_or(name);
    let parts: Vec<&str> = rest.splitn(3, '_').collect();
    match parts.as_slice() {
        [kind, number, ..] if number.chars().all(|c| c.is_ascii_digit()) => {
            format!("{kind}_{number}")
        }
        _ => rest.to_string(),
    }
}

fn tensor_bytes(t: &Tensor) -> u64 {
    (t.data.len() * t.dtype.bytes()) as u64
}

/// One kernel call of a fused program at one shape.
struct KernelRow {
    graph: String,
    shape: String,
    kernel: String,
    ops: usize,
    tiling: Tiling,
    chip: ChipProfile,
    min_bytes: u64,
    /// The kernel's minimum with its block split: the distinct GM bytes every block
    /// reads (a broadcast operand once per block that uses it) plus the outputs.
    per_core_min_bytes: u64,
    measured_bytes: u64,
    /// What the emulation counted per pipe and the chip model's time of it.
    pipes: run::PipeReport,
    blocks: u64,
    /// DMA instructions every block issues whatever the tile size (the loads and stores
    /// of its smallest tile plus the loads hoisted out of its tile loop), and the
    /// kernel's input bytes; `None` for split-reduction cases (a tile is a row group).
    fixed_dmas: Option<FixedDmas>,
    in_bytes: u64,
}

/// The DMA instructions of a kernel's chosen case that no tile size removes.
#[derive(Clone, Copy, Debug)]
struct FixedDmas {
    /// Loads of one smallest tile that do not grow with it.
    loads: i64,
    /// Loads hoisted out of the tile loop (once per block), and their bytes: every
    /// block reads them whole.
    hoisted: i64,
    hoisted_bytes: i64,
    /// Stores of one smallest tile.
    stores: i64,
    /// One load per row a gather picks from a table in GM, over the whole kernel (the
    /// model's count, with no row cache hits): they grow with the tile, so they are
    /// shared out over blocks, not tiles.
    gathered_rows: i64,
    /// The least share of the kernel's work its largest block can have: blocks take
    /// whole units (a looped position times `tile_align` elements of the split axis), so
    /// some block holds `ceil(U / cores)` of the `U` units (one fewer when the last unit
    /// of the split axis may be short), never less than `1 / cores`.
    block_share: f64,
    /// The fewest tiles the largest block can take: its units over the most units one
    /// tile holds when its buffers fill UB (`solver::largest_fitting_tile`).
    min_tiles: i64,
    /// The largest tile that fits UB, in elements of the split axis.
    largest_tile: i64,
}

/// Loads and stores of one smallest tile (tile size 1, or the whole axis when the case
/// has no split) of the chosen case and its hoisted loads; `None` for a split-reduction
/// case. The loads that grow with the tile (one per gathered row, read from a table in
/// GM) are counted apart, over the whole kernel: a tile one unit longer adds them.
fn fixed_dmas(
    model: &autofuse_tiling::tiling::TilingModel,
    tiling: &Tiling,
    chip: &ChipProfile,
) -> Option<FixedDmas> {
    use autofuse_tiling::tiling::eval;
    let case = model.cases.iter().find(|c| c.key == tiling.key)?;
    if case.reduce_split {
        return None;
    }
    let mut env: HashMap<String, i64> = tiling.symbols.iter().cloned().collect();
    let loads_at = |t: i64, env: &mut HashMap<String, i64>| {
        if let Some(v) = &case.tile_var {
            env.insert(v.clone(), t);
        }
        eval(&case.cost.load_ops, env).ok()
    };
    let one = loads_at(1, &mut env)?;
    let per_unit = match &case.tile_var {
        Some(_) => (loads_at(2, &mut env)? - one).max(0),
        None => 0,
    };
    let split = eval(&case.split_size, &env).ok()?.max(1);
    let outer = eval(&case.outer, &env).ok()?.max(1);
    let units = split * outer;
    let align = if case.tile_var.is_some() {
        case.tile_align.max(1)
    } else {
        split
    };
    let work_units = outer * ((split + align - 1) / align);
    let cores = tiling.cores.max(1);
    let per_block = (work_units + cores - 1) / cores;
    let full_units = if split % align == 0 {
        per_block
    } else {
        per_block - 1
    };
    let block_share = (full_units as f64 / work_units as f64).max(1.0 / cores as f64);
    let hoisted = eval(&case.once.load_ops, &env).ok()?;
    let hoisted_bytes = eval(&case.once.mte2_bytes, &env).ok()?;
    let stores = eval(&case.cost.store_ops, &env).ok()?;
    let largest_tile = match &case.tile_var {
        Some(_) => solver::largest_fitting_tile(case, &env, chip).ok()??,
        None => split,
    };
    let units_per_tile = ((largest_tile + align - 1) / align).max(1);
    Some(FixedDmas {
        loads: one - per_unit,
        hoisted,
        hoisted_bytes,
        stores,
        gathered_rows: per_unit * units,
        block_share,
        min_tiles: (per_block + units_per_tile - 1) / units_per_tile,
        largest_tile,
    })
}

impl KernelRow {
    /// The chip model's time of what the emulation ran: the larger of the pipe timeline
    /// and the HBM bound of the bytes it moved. The bound is recomputed from the exact
    /// byte count (the driver prints cycles to 0.1, which could round an HBM-bound
    /// kernel's time just below its roofline).
    fn estimate_cycles(&self) -> f64 {
        self.pipes
            .cycles
            .max(roofline_cycles(self.measured_bytes, &self.chip))
    }

    /// [`Self::estimate_cycles`] over the roofline.
    fn estimate_ratio(&self) -> f64 {
        let roof = roofline_cycles(self.min_bytes, &self.chip);
        if roof > 0.0 {
            self.estimate_cycles() / roof
        } else {
            f64::NAN
        }
    }

    /// Busy cycles of pipe `i` (0 S, 1 V, 2 MTE2, 3 MTE3) per block.
    fn busy_per_block(&self, i: usize) -> f64 {
        self.pipes.pipes[i].busy_cycles / self.blocks.max(1) as f64
    }

    fn vector_bound(&self) -> bool {
        let v = self.busy_per_block(1);
        v > 0.0 && v >= self.busy_per_block(2) && v >= self.busy_per_block(3)
    }

    /// Share of MTE2's busy time that is DMA instruction heads.
    fn mte2_head_share(&self) -> f64 {
        let m = &self.pipes.pipes[2];
        if m.busy_cycles > 0.0 {
            m.calls as f64 * self.chip.dma_head_cycles as f64 / m.busy_cycles
        } else {
            0.0
        }
    }

    /// MTE2 is the bottleneck and more than half of it is fixed DMA cost.
    fn heads_bound(&self) -> bool {
        !self.vector_bound() && self.mte2_head_share() > 0.5
    }

    /// The bound issue 18 sets for this row: 1.6 at 256 rows, 1.25 elsewhere.
    fn bound(&self) -> f64 {
        if self.shape.contains("s0=256") {
            1.6
        } else {
            1.25
        }
    }

    /// A lower bound of the chip model's time of this kernel for any tiling that gives
    /// a block `k` equal tiles (the solver's tilings; only the tail tile of an axis is
    /// shorter), minimised over `k` from the fewest tiles the block's share takes when a
    /// tile fills UB (`min_tiles`). The block with the largest share (`block_share`:
    /// blocks take whole units of work) first reads its hoisted loads whole (`Ih`
    /// cycles at the MTE2 rate), then `I` = that share of the other inputs at the MTE2
    /// rate, and writes `O` = that share of the outputs at the MTE3 rate; every tile
    /// issues `L` loads and `M` stores, the block `Lh` hoisted loads and `G` loads of
    /// gathered rows (its share of those the emulation counted, however it is tiled), each with
    /// the DMA head `H`. A tile's vector work stands between its loads and its stores:
    /// `V = C h + D / k`, `C` calls of the vector head `h` (a tile issues the same calls
    /// whatever its rows: whole-tile calls) plus `1/k` of the block's data cycles `D`
    /// (both from the emulation's counts). The block's stores start after its first
    /// tile's loads and compute, its last tile's stores after all its loads and the
    /// last compute, and all its vector work runs between the first load and the last
    /// store:
    /// `max((Lh + L + G/k) H + Ih + I/k + V + k M H + O,
    ///      (Lh + k L + G) H + Ih + I + V + M H + O/k,
    ///      (Lh + L + G/k) H + Ih + I/k + k C h + D + M H + O/k)`.
    /// Cycles, with the loads (per tile plus hoisted) and stores of one tile.
    fn lower_bound(&self) -> Option<(f64, i64, i64, i64)> {
        let FixedDmas {
            loads,
            hoisted,
            hoisted_bytes,
            stores,
            gathered_rows,
            block_share,
            min_tiles,
            ..
        } = self.fixed_dmas?;
        let head = self.chip.dma_head_cycles as f64;
        let g =
            (self.gathered_row_loads(gathered_rows, loads, hoisted) as f64 * block_share).ceil();
        // The block's share of the tiles' inputs, and the hoisted ones whole, first.
        let rate = self.chip.mte2_bytes_per_cycle.max(1) as f64;
        let hoisted_bytes = (hoisted_bytes.max(0) as u64).min(self.in_bytes) as f64;
        let i = (self.in_bytes as f64 - hoisted_bytes) * block_share / rate;
        let ih = hoisted_bytes / rate;
        let out = self.min_bytes.saturating_sub(self.in_bytes) as f64;
        let o = out * block_share / self.chip.mte3_bytes_per_cycle.max(1) as f64;
        let (l, lh, m) = (loads as f64, hoisted as f64, stores as f64);
        let (calls_per_tile, data) = self.vector_work();
        let vec_head = self.chip.vec_head_cycles as f64;
        let fewest = min_tiles.max(1);
        let best = (fewest..=fewest.max(64))
            .map(|k| {
                let k = k as f64;
                let tile_vec = calls_per_tile * vec_head + data / k;
                let first = (lh + l + g / k) * head + ih + i / k + tile_vec + k * m * head + o;
                let last = (lh + k * l + g) * head + ih + i + tile_vec + m * head + o / k;
                let vector = (lh + l + g / k) * head
                    + ih
                    + i / k
                    + k * calls_per_tile * vec_head
                    + data
                    + m * head
                    + o / k;
                first.max(last).max(vector)
            })
            .fold(f64::INFINITY, f64::min);
        Some((best, loads + hoisted, stores, g as i64))
    }

    /// The loads of gathered rows the emulation counted: its MTE2 calls less every
    /// tile's `loads` and every block's `hoisted` ones, at most the model's one per row
    /// (`gathered_rows`). A row cache (`Schedule::row_caches`) copies a row a block
    /// picked before instead of loading it again, so the count depends on the ids.
    fn gathered_row_loads(&self, gathered_rows: i64, loads: i64, hoisted: i64) -> i64 {
        if gathered_rows <= 0 {
            return 0;
        }
        let others = self.tiling.tiles_total * loads + self.blocks as i64 * hoisted;
        (self.pipes.pipes[2].calls as i64 - others).clamp(0, gathered_rows)
    }

    /// The vector calls one tile issues and the data cycles (busy cycles less call
    /// heads) of the largest block's vector work, from the emulation's counts.
    fn vector_work(&self) -> (f64, f64) {
        let v = &self.pipes.pipes[1];
        let blocks = self.blocks.max(1) as f64;
        let tiles = self.tiling.tiles_per_block.max(1) as f64;
        let calls = v.calls as f64 / blocks;
        let data = (v.busy_cycles / blocks - calls * self.chip.vec_head_cycles as f64).max(0.0);
        (calls / tiles, data)
    }

    /// Why the row cannot reach its bound, when the lower bound says so (or, for a
    /// split-reduction case on fewer row groups than cores, what the schedule lacks).
    fn cannot_reach(&self) -> Option<String> {
        let t = &self.tiling;
        if t.parts > 0 {
            // A cross-core reduction: phase 1 (each block's share of the input, one load
            // and the partials' store at least), SyncAll, then phase 2 (the partials in
            // batches of CROSS_CORE_BATCH, one store) run one after the other.
            let head = self.chip.dma_head_cycles as f64;
            let share = self.in_bytes as f64
                / (self.chip.mte2_bytes_per_cycle.max(1) as f64 * t.block_dim.max(1) as f64);
            let batches = (t.parts + autofuse_ascir::kernel::CROSS_CORE_BATCH - 1)
                / autofuse_ascir::kernel::CROSS_CORE_BATCH;
            let lb =
                share + 2.0 * head + self.chip.sync_all_cycles as f64 + (batches + 1) as f64 * head;
            let roof = roofline_cycles(self.min_bytes, &self.chip);
            if roof <= 0.0 || lb / roof <= self.bound() {
                return None;
            }
            return Some(format!(
                "cannot reach {} because the cross-core reduction ({} blocks per row group) \
                 runs phase 1 (each block's share of {} at {} B/cycle, a load and the \
                 partials' store of {} cycles of head each), SyncAll ({} cycles) and phase 2 \
                 ({batches} batched loads of the partials and the store) one after the other: \
                 at best {lb:.0} cycles, {:.2}x the roofline ({roof:.0} cycles)",
                self.bound(),
                t.parts,
                run::human_bytes(self.in_bytes),
                self.chip.mte2_bytes_per_cycle,
                self.chip.dma_head_cycles,
                self.chip.sync_all_cycles,
                lb / roof
            ));
        }
        if self.fixed_dmas.is_none() && t.block_dim < t.cores {
            return Some(format!(
                "cannot reach {} with this schedule because its split-reduction case has \
                 {} row group(s), so {} of {} cores work, and the cross-core form (the reduced \
                 axis split over cores too) does not apply or costs more",
                self.bound(),
                t.tiles_total,
                t.block_dim,
                t.cores
            ));
        }
        let (lb, loads, stores, gathered) = self.lower_bound()?;
        let roof = roofline_cycles(self.min_bytes, &self.chip);
        if roof <= 0.0 || lb / roof <= self.bound() {
            return None;
        }
        let (calls_per_tile, vector_data) = self.vector_work();
        let gathered = if gathered > 0 {
            format!(
                " (and {gathered} loads of gathered rows, one per row its row cache did not hold)"
            )
        } else {
            String::new()
        };
        Some(format!(
            "cannot reach {} because a block's tiles issue at least {loads} loads{gathered} and {stores} \
             store(s) ({} cycles of head each), the largest block's share of {} of inputs \
             and outputs moves at {} B/cycle and each tile's vector work ({:.0} calls, {:.0} \
             data cycles per block) stands between its loads and stores: at best {:.0} \
             cycles over {}, {:.2}x the roofline ({:.0} cycles)",
            self.bound(),
            self.chip.dma_head_cycles,
            run::human_bytes(self.min_bytes),
            self.chip.mte2_bytes_per_cycle,
            calls_per_tile,
            vector_data,
            lb,
            self.tiles_per_block_range(),
            lb / roof,
            roof
        ))
    }

    /// The tile counts [`Self::lower_bound`] ranges over, in words.
    fn tiles_per_block_range(&self) -> String {
        match self.fixed_dmas {
            Some(f) if f.min_tiles > 1 => format!(
                "{} or more tiles per block (the case's buffers fit at most {} split-axis \
                 elements per tile in UB)",
                f.min_tiles, f.largest_tile
            ),
            _ => "any number of tiles per block".to_string(),
        }
    }

    fn gm_ratio(&self) -> f64 {
        if self.per_core_min_bytes > 0 {
            self.measured_bytes as f64 / self.per_core_min_bytes as f64
        } else {
            f64::NAN
        }
    }

    /// Why the estimate is where it is, from what the row knows.
    fn explain(&self) -> String {
        let mut why = Vec::new();
        let t = &self.tiling;
        if t.block_dim < t.cores {
            why.push(format!("{} of {} cores", t.block_dim, t.cores));
        }
        if self.vector_bound() {
            let v = &self.pipes.pipes[1];
            why.push(format!(
                "vector-bound ({} calls, {} repeats per block)",
                v.calls / self.blocks.max(1),
                v.instructions / self.blocks.max(1)
            ));
        } else if self.heads_bound() {
            why.push(format!(
                "DMA heads {:.0}% of MTE2 ({} loads per block)",
                self.mte2_head_share() * 100.0,
                self.pipes.pipes[2].calls / self.blocks.max(1)
            ));
        }
        if self.pipes.cycles_hbm >= self.pipes.cycles_timeline && self.pipes.cycles > 0.0 {
            why.push("HBM-bound".to_string());
        }
        if self.tiling.parts > 0 {
            // A cross-core reduction's partials: written once, read back once.
            let workspace = 2 * self.tiling.workspace_bytes.max(0) as u64;
            why.push(format!(
                "the cross-core workspace ({} of partials written and read back) adds {:.1}%",
                run::human_bytes(workspace),
                workspace as f64 / self.min_bytes.max(1) as f64 * 100.0
            ));
        } else if self.per_core_min_bytes > self.min_bytes + self.min_bytes / 200 {
            why.push(format!(
                "per-core copies of broadcast operands add {:.1}%",
                (self.per_core_min_bytes as f64 / self.min_bytes.max(1) as f64 - 1.0) * 100.0
            ));
        }
        if self.estimate_ratio() > self.bound() {
            match self.cannot_reach() {
                Some(reason) => why.push(reason),
                None => {
                    // Not proven out of reach: say what holds it above the bound.
                    let m = &self.pipes.pipes[2];
                    let blocks = self.blocks.max(1);
                    let floor = self
                        .lower_bound()
                        .map(|(lb, ..)| {
                            let roof = roofline_cycles(self.min_bytes, &self.chip);
                            format!(
                                "; the pipe lower bound over {} is {:.2}x",
                                self.tiles_per_block_range(),
                                lb / roof
                            )
                        })
                        .unwrap_or_default();
                    why.push(format!(
                        "above {}: {} tiles per block of {} split-axis elements (UB {:.0}% full), {} DMA loads \
                         per block whose heads are {:.0}% of MTE2{floor}",
                        self.bound(),
                        t.tiles_per_block,
                        t.tile,
                        100.0 * t.ub_bytes as f64 / t.ub_capacity.max(1) as f64,
                        m.calls / blocks,
                        self.mte2_head_share() * 100.0
                    ));
                }
            }
        }
        why.join("; ")
    }
}

/// Fused versus unfused on the emulation, one graph at one shape.
struct TimingRow {
    graph: String,
    shape: String,
    fused_launches: usize,
    unfused_launches: usize,
    fused_interpreted: usize,
    unfused_interpreted: usize,
    fused_s: f64,
    unfused_s: f64,
    /// Median cost of starting the emulation driver once (process start, no kernel).
    overhead_s: f64,
    fused_estimate: f64,
    unfused_estimate: f64,
    agree: Result<f64, String>,
}

/// What one run of a program's kernels produced.
struct ProgramRun {
    outputs: Vec<Tensor>,
    launch_seconds: f64,
    launches: usize,
    interpreted: usize,
    /// The chip model's cycles of every emulated launch, summed.
    estimate: f64,
    rows: Vec<KernelRow>,
}

fn shape_of(
    ty: &TensorType,
    symbols: &HashMap<String, i64>,
    default: i64,
) -> Result<Vec<usize>, String> {
    ty.dims
        .iter()
        .map(|d| match d {
            Dim::Known(e) => e
                .eval(&|name| Some(*symbols.get(name).unwrap_or(&default)))
                .map(|v| v.max(0) as usize)
                .map_err(|err| err.to_string()),
            Dim::Unknown => Ok(default.max(0) as usize),
        })
        .collect()
}

/// Runs `entry` once; kernel calls on the emulation (timed), the rest interpreted.
fn run_program(
    module: &PreparedModule,
    build: &SimBuild,
    entry: &str,
    inputs: &[Tensor],
    graph_name: &str,
    shape: &str,
    collect: bool,
) -> Result<ProgramRun, String> {
    let mut launch_seconds = 0.0;
    let mut launches = 0;
    let mut interpreted = 0;
    let mut estimate = 0.0f64;
    let mut rows = Vec::new();
    // Ops of the entry graph other than calls and constants (boundary ops, kernels
    // lifted back to their op) run in the interpreter whatever the hook does.
    interpreted += module.program.graphs.get(entry).map_or(0, |g| {
        g.nodes
            .iter()
            .filter(|n| {
                !matches!(
                    n.op.as_str(),
                    "func.call" | "ascend.constant" | "arith.constant"
                )
            })
            .count()
    });
    let outputs = {
        let mut hook = |callee: &str, operands: &[Tensor], symbols: &HashMap<String, i64>| {
            let Some(k) = module.kernels.get(callee) else {
                interpreted += 1;
                return Ok(None);
            };
            let values = ascir_interp::bind_kernel_symbols(&k.graph, operands, symbols)
                .map_err(|e| e.to_string())?;
            let tiling = match solver::solve(&k.model, &values, &k.chip) {
                Ok(t) => t,
                Err(_) => {
                    // No tiling fits these shapes: the runner interprets such calls.
                    interpreted += 1;
                    return Ok(None);
                }
            };
            let started = Instant::now();
            let (outs, launch) = run::launch(build, k, operands, symbols)?;
            launch_seconds += started.elapsed().as_secs_f64();
            launches += 1;
            estimate += launch.pipes.as_ref().map_or(0.0, |p| p.cycles);
            if collect {
                let min_bytes = operands.iter().chain(&outs).map(tensor_bytes).sum();
                let pipes = launch
                    .pipes
                    .clone()
                    .ok_or_else(|| format!("{}: the emulation reported no pipe counts", k.name))?;
                rows.push(KernelRow {
                    graph: graph_name.to_string(),
                    shape: shape.to_string(),
                    kernel: short_kernel_name(&k.name),
                    ops: k.graph.source_ops.len(),
                    chip: k.chip.clone(),
                    min_bytes,
                    per_core_min_bytes: launch.gm_read_per_core + launch.gm_written,
                    measured_bytes: launch.gm_read + launch.gm_written,
                    pipes,
                    blocks: launch.blocks,
                    fixed_dmas: fixed_dmas(&k.model, &tiling, &k.chip),
                    in_bytes: operands.iter().map(tensor_bytes).sum(),
                    tiling,
                });
            }
            Ok(Some(outs))
        };
        module.program.run_with(entry, inputs, &mut hook)?
    };
    Ok(ProgramRun {
        outputs,
        launch_seconds,
        launches,
        interpreted,
        estimate,
        rows,
    })
}

/// Median wall time of starting the driver without running a kernel.
fn launch_overhead(build: &SimBuild) -> f64 {
    let mut samples = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let ok = Command::new(&build.binary)
            .args(["none", "ascend910b", "1", "1024", "0", "0", "0"])
            .output()
            .is_ok();
        if ok {
            samples.push(started.elapsed().as_secs_f64());
        }
    }
    median(&samples)
}

struct Prepared {
    module: PreparedModule,
    build: SimBuild,
}

fn prepare(
    context: &melior::Context,
    text: &str,
    path: &str,
    options: &RunOptions,
) -> Result<Prepared, String> {
    let module = run::prepare_module(context, text, path, options)?;
    let build = run::build_module(&module, options, &run::Toolchain::sim(options))?;
    Ok(Prepared { module, build })
}

fn shape_label(symbols: &HashMap<String, i64>, used: &[String]) -> String {
    if used.is_empty() {
        return "static".to_string();
    }
    used.iter()
        .map(|s| format!("{s}={}", symbols.get(s).copied().unwrap_or(0)))
        .collect::<Vec<_>>()
        .join(",")
}

/// One graph: every shape, fused and unfused.
fn bench_graph(
    path: &Path,
    options: &Options,
    kernel_rows: &mut Vec<KernelRow>,
    timing_rows: &mut Vec<TimingRow>,
) -> Result<(), String> {
    let label = graph_label(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let source = path.display().to_string();
    let mut run_options = RunOptions::new(&run::repo_root());
    run_options.target = options.target.clone();
    let context = create_context();
    run_options.fuse = true;
    let fused = prepare(&context, &text, &source, &run_options)?;
    run_options.fuse = false;
    let unfused = prepare(&context, &text, &source, &run_options)?;
    let entry = fused
        .module
        .reference
        .default_entry()
        .ok_or("the module has no graph function")?
        .to_string();
    let graph = fused
        .module
        .reference
        .graphs
        .get(&entry)
        .ok_or_else(|| format!("no graph function @{entry}"))?;
    let used = argument_symbols(graph);
    let bench = GraphBench {
        options,
        label,
        entry: &entry,
        graph,
        overhead: launch_overhead(&fused.build),
        fused: &fused,
        unfused: &unfused,
    };
    let shapes: Vec<&HashMap<String, i64>> = if used.is_empty() {
        options.shapes.iter().take(1).collect()
    } else {
        options.shapes.iter().collect()
    };
    let mut seen: Vec<String> = Vec::new();
    for given in shapes {
        let mut symbols = given.clone();
        fused.module.complete_symbols(&entry, &mut symbols);
        for s in &used {
            symbols.entry(s.clone()).or_insert(options.default_symbol);
        }
        let shape = shape_label(&symbols, &used);
        // A graph without the given symbols (b, s instead of s0) runs at the same shape
        // for every `--symbols`: once is enough.
        if seen.contains(&shape) {
            continue;
        }
        seen.push(shape.clone());
        if let Some((timing, rows)) = bench.bench_shape(&symbols, shape)? {
            timing_rows.push(timing);
            kernel_rows.extend(rows);
        }
    }
    Ok(())
}

/// `<directory>/<file stem>` of a graph file, as the tables name it.
fn graph_label(path: &Path) -> String {
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let dir = path
        .parent()
        .and_then(|p| p.file_name())
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    format!("{dir}/{name}")
}

/// The symbols of the entry graph's argument shapes, sorted, each once.
fn argument_symbols(graph: &autofuse_ir::graph::Graph) -> Vec<String> {
    let mut used: Vec<String> = graph
        .arguments
        .iter()
        .filter_map(|&a| graph.ty(a))
        .flat_map(|t| {
            t.dims
                .iter()
                .filter_map(Dim::expr)
                .flat_map(|e| e.symbols())
        })
        .collect();
    used.sort();
    used.dedup();
    used
}

/// One graph compiled with and without `fuse`, and what its shapes share.
struct GraphBench<'a> {
    options: &'a Options,
    label: String,
    entry: &'a str,
    /// The entry graph of the reference program.
    graph: &'a autofuse_ir::graph::Graph,
    /// Median cost of starting the emulation driver once.
    overhead: f64,
    fused: &'a Prepared,
    unfused: &'a Prepared,
}

/// The first repetition's runs of both programs and the median launch times over all.
struct Repetitions {
    fused: ProgramRun,
    unfused: ProgramRun,
    fused_s: f64,
    unfused_s: f64,
}

impl GraphBench<'_> {
    /// Runs one shape fused and unfused: its timing row and the fused program's kernel
    /// rows; `None` without repetitions.
    fn bench_shape(
        &self,
        symbols: &HashMap<String, i64>,
        shape: String,
    ) -> Result<Option<(TimingRow, Vec<KernelRow>)>, String> {
        let inputs = self.inputs(symbols)?;
        let Some(reps) = self.repeat(&inputs, &shape)? else {
            return Ok(None);
        };
        let (f, u) = (reps.fused, reps.unfused);
        let agree = if f.outputs.len() != u.outputs.len() {
            Err("different output counts".to_string())
        } else {
            f.outputs
                .iter()
                .zip(&u.outputs)
                .try_fold(0.0f64, |worst, (a, b)| {
                    autofuse::runner::execute::compare(b, a).map(|e| worst.max(e))
                })
        };
        eprintln!(
            "{:<40} {shape:<10} fused {:>3} launches {:>8.3} s | unfused {:>3} launches {:>8.3} s",
            self.label, f.launches, reps.fused_s, u.launches, reps.unfused_s
        );
        let timing = TimingRow {
            graph: self.label.clone(),
            shape,
            fused_launches: f.launches,
            unfused_launches: u.launches,
            fused_interpreted: f.interpreted,
            unfused_interpreted: u.interpreted,
            fused_s: reps.fused_s,
            unfused_s: reps.unfused_s,
            overhead_s: self.overhead,
            fused_estimate: f.estimate,
            unfused_estimate: u.estimate,
            agree,
        };
        Ok(Some((timing, f.rows)))
    }

    /// The entry graph's inputs at `symbols`. Gather ids spread over their table's
    /// rows, as `autofuse-run` draws them (`random_inputs`): `Tensor::random`'s 16 small
    /// integers would make every block re-read the same few rows. Other inputs as
    /// `Tensor::random` with seed = index.
    fn inputs(&self, symbols: &HashMap<String, i64>) -> Result<Vec<Tensor>, String> {
        let graph = self.graph;
        let spread = autofuse::runner::execute::random_inputs(graph, symbols, 0).ok();
        graph
            .arguments
            .iter()
            .enumerate()
            .map(|(i, &arg)| {
                let ty = graph.ty(arg).ok_or("argument without a tensor type")?;
                if let Some(t) = spread.as_ref().and_then(|v| v.get(i)) {
                    return Ok(t.clone());
                }
                Tensor::random(
                    ty.dtype,
                    shape_of(ty, symbols, self.options.default_symbol)?,
                    i as u64,
                )
                .map_err(|e| e.to_string())
            })
            .collect()
    }

    /// Runs both programs `--reps` times, alternating which goes first so that neither
    /// side always runs on a warm cache; the first fused run collects the kernel rows.
    fn repeat(&self, inputs: &[Tensor], shape: &str) -> Result<Option<Repetitions>, String> {
        let mut fused_times = Vec::new();
        let mut unfused_times = Vec::new();
        let mut first: Option<(ProgramRun, ProgramRun)> = None;
        for rep in 0..self.options.reps {
            let run = |side: &Prepared, collect: bool| {
                run_program(
                    &side.module,
                    &side.build,
                    self.entry,
                    inputs,
                    &self.label,
                    shape,
                    collect,
                )
            };
            let (f, u) = if rep % 2 == 0 {
                let f = run(self.fused, rep == 0)?;
                (f, run(self.unfused, false)?)
            } else {
                let u = run(self.unfused, false)?;
                (run(self.fused, false)?, u)
            };
            fused_times.push(f.launch_seconds);
            unfused_times.push(u.launch_seconds);
            if first.is_none() {
                first = Some((f, u));
            }
        }
        Ok(first.map(|(fused, unfused)| Repetitions {
            fused,
            unfused,
            fused_s: median(&fused_times),
            unfused_s: median(&unfused_times),
        }))
    }
}

/// A short computed summary of both tables.
fn findings(kernels: &[KernelRow], timings: &[TimingRow]) -> String {
    let mut out = String::from("Findings of this run:\n\n");
    let ratios: Vec<f64> = kernels.iter().map(KernelRow::estimate_ratio).collect();
    let flagged: Vec<&KernelRow> = kernels
        .iter()
        .filter(|r| is_far(r.estimate_ratio()))
        .collect();
    let _ = writeln!(
        out,
        "- median estimate / roofline over all kernel rows: {};",
        fmt_ratio(median(&ratios))
    );
    if !flagged.is_empty() {
        let heads = flagged.iter().filter(|r| r.heads_bound()).count();
        let vector = flagged.iter().filter(|r| r.vector_bound()).count();
        let _ = writeln!(
            out,
            "- {} rows are more than {FAR}x away from the roofline: {heads} MTE2-bound with more \
             than half of MTE2 in DMA instruction heads, {vector} vector-bound;",
            flagged.len()
        );
    }
    let gm: Vec<f64> = kernels.iter().map(KernelRow::gm_ratio).collect();
    let worst = gm
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .fold(0.0f64, f64::max);
    let _ = writeln!(
        out,
        "- GM measured / minimum with per-core copies: median {}, worst {};",
        fmt_ratio(median(&gm)),
        fmt_ratio(worst)
    );
    let both: Vec<&TimingRow> = timings
        .iter()
        .filter(|t| t.fused_launches > 0 && t.unfused_launches > 0 && t.fused_s > 0.0)
        .collect();
    if !both.is_empty() {
        let cpu: Vec<f64> = both.iter().map(|t| t.unfused_s / t.fused_s).collect();
        let model: Vec<f64> = both
            .iter()
            .filter(|t| t.fused_estimate > 0.0)
            .map(|t| t.unfused_estimate / t.fused_estimate)
            .collect();
        let (lo, hi) = cpu
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        let _ = writeln!(
            out,
            "- fused versus unfused on the emulation: unfused / fused median {} (from {} to {}) \
             over {} runs, against a median of {} for the cost model's estimates;",
            fmt_ratio(median(&cpu)),
            fmt_ratio(lo),
            fmt_ratio(hi),
            both.len(),
            fmt_ratio(median(&model))
        );
    }
    let skipped = timings.len() - both.len();
    if skipped > 0 {
        let _ = writeln!(
            out,
            "- {skipped} run(s) have no emulated kernel on one side (every op of it runs in the \
             interpreter, e.g. a boundary op or a kernel lifted back to its op): no ratio."
        );
    }
    out.push('\n');
    out
}

fn fmt_ratio(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.2}")
    } else {
        "-".into()
    }
}

/// The report `kernel_quality.md`: the chip constants, the per-kernel and the
/// fused-versus-unfused tables with their findings, graphs that did not run, and what
/// the columns mean.
fn markdown(
    options: &Options,
    chip: &ChipProfile,
    kernels: &[KernelRow],
    timings: &[TimingRow],
    failures: &[(String, String)],
) -> String {
    let mut md = intro(options, chip);
    md.push_str(&chip_constants(chip));
    md.push_str(&kernel_table(kernels));
    md.push_str(&bound_counts(kernels));
    md.push_str(&findings(kernels, timings));
    md.push_str(&timing_table(timings));
    if !failures.is_empty() {
        let _ = writeln!(md, "\n## Graphs that did not run\n");
        for (g, why) in failures {
            let first = why.lines().next().unwrap_or("");
            let _ = writeln!(md, "- `{g}`: {first}");
        }
    }
    md.push_str(COLUMNS);
    md
}

/// The title, what the run covered (graphs, shapes, target, repetitions) and how to
/// reproduce it.
fn intro(options: &Options, chip: &ChipProfile) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Kernel quality under the chip model\n");
    let _ = writeln!(
        md,
        "Generated by `autofuse-bench kernel-quality` (`bench/src/kernel_quality.rs`); one run \
         on this machine. Graphs: `examples/*.mlir` and `bench/quality/graphs/*.mlir`; \
         dynamic graphs at {} (other symbols {}), static graphs at their own shape. Target \
         `{}`; {} repetitions per timing.\n",
        options
            .shapes
            .iter()
            .map(|s| {
                let mut v: Vec<String> = s.iter().map(|(k, v)| format!("{k}={v}")).collect();
                v.sort();
                format!("`{}`", v.join(","))
            })
            .collect::<Vec<_>>()
            .join(" and "),
        options.default_symbol,
        chip.name,
        options.reps
    );
    let _ = writeln!(md, "Reproduce: `cargo build --release -p autofuse-bench && target/release/autofuse-bench kernel-quality`.\n");
    md
}

/// The chip profile's constants the figures depend on, with how far each is verified.
fn chip_constants(chip: &ChipProfile) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "## Chip constants ({})\n", chip.name);
    let _ = writeln!(md, "| constant | value | status |\n|---|---:|---|");
    let _ = writeln!(
        md,
        "| usable UB per vector core | {} B | documented (ascendc_api.md §6.1) |",
        chip.ub_usable
    );
    let _ = writeln!(
        md,
        "| vector cores | {} | {} |",
        chip.vector_cores,
        if chip.cores_verified {
            "third-party copies of the platform files"
        } else {
            "**unverified**"
        }
    );
    let _ = writeln!(
        md,
        "| GM->UB (MTE2) and UB->GM (MTE3) bytes per cycle per core | {} / {} | **unverified estimate** |",
        chip.mte2_bytes_per_cycle, chip.mte3_bytes_per_cycle
    );
    let _ = writeln!(
        md,
        "| HBM bandwidth used for the roofline | {} B/cycle = {:.0} GB/s | **unverified** (MTE2 rate x cores) |",
        chip.mte2_bytes_per_cycle * chip.vector_cores,
        hbm_gbps(chip)
    );
    let _ = writeln!(
        md,
        "| DMA instruction head | {} cycles | **unverified** (GE's fitted tables) |",
        chip.dma_head_cycles
    );
    let _ = writeln!(
        md,
        "| vector bytes per cycle / instruction head | {} B / {} cycles | **unverified** (GE's fitted tables) |",
        chip.vec_bytes_per_cycle, chip.vec_head_cycles
    );
    let _ = writeln!(
        md,
        "| clock (cycles -> µs in this report only) | {:.2} GHz | **unverified** |\n",
        CLOCK_HZ / 1e9
    );
    md
}

/// The per-kernel table: one row per kernel call of the fused programs.
fn kernel_table(kernels: &[KernelRow]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "## Per kernel\n");
    let _ = writeln!(
        md,
        "| graph | shape | kernel (ops) | UB used / usable | cores used / available | V calls / repeats per block | MTE2 / V / MTE3 busy µs per block | estimate µs | solver's estimate µs | minimum bytes | roofline µs | estimate / roofline | GM measured / minimum with per-core copies | note |"
    );
    let _ = writeln!(
        md,
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    for r in kernels {
        let t = &r.tiling;
        let roof = roofline_cycles(r.min_bytes, &r.chip);
        let blocks = r.blocks.max(1);
        let v = &r.pipes.pipes[1];
        let _ = writeln!(
            md,
            "| {} | {} | {} ({}) | {} / {} ({:.0}%) | {} / {} | {} / {} | {:.1} / {:.1} / {:.1} | {:.1} | {:.1} | {} | {:.1} | {} | {} | {} |",
            r.graph,
            r.shape,
            r.kernel,
            r.ops,
            t.ub_bytes,
            t.ub_capacity,
            100.0 * t.ub_bytes as f64 / t.ub_capacity.max(1) as f64,
            r.blocks,
            t.cores,
            v.calls / blocks,
            v.instructions / blocks,
            us(r.busy_per_block(2)),
            us(r.busy_per_block(1)),
            us(r.busy_per_block(3)),
            us(r.estimate_cycles()),
            us(t.estimate as f64),
            run::human_bytes(r.min_bytes),
            us(roof),
            fmt_ratio(r.estimate_ratio()),
            fmt_ratio(r.gm_ratio()),
            r.explain()
        );
    }
    md
}

/// How many kernel rows exceed issue 18's bounds on estimate / roofline (1.6 at
/// `s0=256`, 1.25 elsewhere), fall below 1, or move more GM bytes than their minimum.
fn bound_counts(kernels: &[KernelRow]) -> String {
    let over = |limit: f64, shape: &str| {
        let rows: Vec<&KernelRow> = kernels
            .iter()
            .filter(|r| r.shape.contains(shape) && r.estimate_ratio() > limit)
            .collect();
        let cannot = rows.iter().filter(|r| r.cannot_reach().is_some()).count();
        format!(
            "{} ({cannot} of them cannot reach it, see their notes)",
            rows.len()
        )
    };
    let others = kernels
        .iter()
        .filter(|r| !r.shape.contains("s0=") && r.estimate_ratio() > 1.25)
        .count();
    let mut md = String::new();
    let _ = writeln!(
        md,
        "\nRows at `s0=4096` above 1.25: {}; rows at `s0=256` above 1.6: {}; other rows (static \
         shapes, `b`/`s` graphs) above 1.25: {others}; rows below 1.0: {}; \
         rows whose GM measured / minimum with per-core copies exceeds 1.005: {}.\n",
        over(1.25, "s0=4096"),
        over(1.6, "s0=256"),
        kernels.iter().filter(|r| r.estimate_ratio() < 1.0).count(),
        kernels.iter().filter(|r| r.gm_ratio() > 1.005).count()
    );
    md
}

/// The fused-versus-unfused table of launch times on the emulation, and what starting
/// the driver costs.
fn timing_table(timings: &[TimingRow]) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "## Fused versus unfused on the CPU emulation (this machine)\n"
    );
    let _ = writeln!(
        md,
        "| graph | shape | launches fused / unfused | interpreted fused / unfused | fused ms | unfused ms | unfused / fused | same, less driver start | model estimate unfused / fused | outputs agree |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for t in timings {
        let net = |s: f64, n: usize| (s - n as f64 * t.overhead_s).max(1e-9);
        let both = t.fused_launches > 0 && t.unfused_launches > 0;
        let ratio = |x: f64| if both { fmt_ratio(x) } else { "-".into() };
        let _ = writeln!(
            md,
            "| {} | {} | {} / {} | {} / {} | {:.1} | {:.1} | {} | {} | {} | {} |",
            t.graph,
            t.shape,
            t.fused_launches,
            t.unfused_launches,
            t.fused_interpreted,
            t.unfused_interpreted,
            t.fused_s * 1e3,
            t.unfused_s * 1e3,
            ratio(t.unfused_s / t.fused_s),
            ratio(net(t.unfused_s, t.unfused_launches) / net(t.fused_s, t.fused_launches)),
            if t.fused_estimate > 0.0 {
                fmt_ratio(t.unfused_estimate / t.fused_estimate)
            } else {
                "-".into()
            },
            match &t.agree {
                Ok(e) => format!("yes (max err {e:.1e})"),
                Err(why) => format!("NO: {why}"),
            }
        );
    }
    if let Some(t) = timings.first() {
        let _ = writeln!(
            md,
            "\nStarting the emulation driver once (process start, no kernel) takes about {:.1} ms here; \
             every launch pays it, so the column \"less driver start\" subtracts it per launch.",
            t.overhead_s * 1e3
        );
    }
    md
}

const COLUMNS: &str = r#"
## What the columns mean

Per kernel (one row per kernel call of the fused program, run on the emulation with the
tiling `tiling_solver::solve` picks for that call's shapes, the same solver the generated
host code runs):

- **UB used / usable**: bytes of every buffer of the chosen tiling case (queues counted
  with their buffer count, padding included) against the profile's usable UB.
- **cores used / available**: the blocks the launch ran against the profile's vector
  cores. Fewer than all cores means there were fewer tiles (or row groups) than cores.
- **V calls / repeats per block**: vector API calls and instructions (repeats) the
  emulation counted, over the blocks (`sim/include/ascendc_sim/pipes.h`).
- **MTE2 / V / MTE3 busy µs per block**: the chip model's time of those instructions per
  pipe (a DMA: an 880-cycle head plus bytes / 18 B per cycle; a vector call: a 37-cycle
  head plus one cycle per 256 B repeat), averaged over the blocks.
- **estimate µs**: the chip model's kernel time from the emulation's instruction
  timeline: every instruction starts when its pipe is free and everything it is ordered
  after (flags, queues, barriers) has ended; the kernel ends with its last core, and is
  never shorter than the GM bytes it moved over the HBM bandwidth all cores share.
- **solver's estimate µs**: the tiling solver's closed-form cost of the chosen tiling
  (the first tile's `MTE2 + VEC + MTE3`, then `max(MTE2, VEC, MTE3)` per further tile
  of a block, plus the hoisted and resident loads; docs/tiling.md), for comparison.
- **minimum bytes**: the kernel's inputs and outputs, each moved once.
- **roofline µs**: minimum bytes / HBM bandwidth of the profile (MTE2 bytes per cycle per
  core times the vector cores), the time no kernel can beat under the profile. The
  estimate cannot fall below it (its HBM bound uses the measured bytes, never fewer).
- **estimate / roofline**: 1 is a kernel that runs at the bandwidth bound.
- **GM measured / minimum with per-core copies**: bytes the emulation counted (every
  DataCopy to and from GM) over the kernel's minimum with its block split: every block
  reads each GM byte it needs once (a broadcast gamma, beta or bias row once per block
  that uses it; L2 serves those copies on the chip) and the outputs are written once.
- **note**: why a row is where it is: idle cores, vector-bound tiles (with their call
  counts), DMA instruction heads dominating small tiles, HBM-bound launches, and how much
  the per-core copies add to the kernel's own minimum. A row above issue 18's bound (1.6
  at `s0=256`, 1.25 elsewhere) says "cannot reach" when a lower bound of the chip model
  already exceeds it for every number `k` of equal tiles per block that the case's
  buffers allow (at least the block's share over the largest tile that fits UB): the
  block with the largest share reads its hoisted loads whole, then moves at least its
  share of the other inputs (MTE2) and of the outputs (MTE3), every tile issues its
  loads and stores with their DMA heads, and a tile's vector work (its calls, each with
  its head, and `1/k` of the block's vector data cycles, from the emulation's counts)
  stands between its loads and its stores; the stores start after the first tile's
  loads and compute, the last tile's stores after all loads and the last compute, and
  all vector work runs between the first load and the last store
  (`KernelRow::lower_bound`; not given for split-reduction cases, which say what their
  schedule lacks instead). Such a proof holds for the kernel's schedule and buffers, not
  for every possible kernel: a row whose buffers could shrink can still improve.

Fused versus unfused: the same graph compiled with and without `fuse` (unfused = one
kernel per lowered op). "launches" counts kernel calls run on the emulation;
"interpreted" counts kernel calls the emulation cannot run (unscheduled kernels, no
tiling fits) plus the non-constant ops of the entry graph left to the interpreter
(boundary ops such as a transpose not lowered to AscIR, and kernels of one op that
`fuse` lifts back to their op). Both programs are built once with g++ against
`sim/include` (cached), then the entry graph runs on seeded random inputs. Only the kernel launches are timed
(`std::time::Instant` around each emulated launch; compile, build and interpreted ops are
excluded); the table gives the median over the repetitions of the summed launch time per
run. Each emulated launch is one process run of the driver that reads its inputs from and
writes its outputs to files, so it includes process start and file I/O: more kernels
(unfused) pay more of both, as they would pay launch and GM round trips on a device. The
"model estimate" column is the sum of the chip model's times of every emulated launch, for
comparison with the measured CPU ratio. This is a sanity ratio of the emulation on a
shared 2-core CPU, not a device prediction: with other builds running, single ratios
moved by up to 2x between two runs of this benchmark (the median over rows moved by
less than 5%). "outputs agree" compares the fused and unfused
outputs with the dtype-aware tolerance of `autofuse-run`.

Half-precision graphs: the emulation implements `half` arithmetic in software
(`sim/include/ascendc_sim/float16.h`), so vector work dominates their CPU time on both
sides and their CPU ratio stays closer to 1 than the model's; the CPU ratio says little
about the device there.
"#;

/// Entry point of the subcommand (arguments after `kernel-quality`).
pub fn run(args: impl Iterator<Item = String>) -> Result<(), String> {
    let options = parse_options(args)?;
    let chip = ChipProfile::lookup(&options.target)?;
    let mut kernels = Vec::new();
    let mut timings = Vec::new();
    let mut failures = Vec::new();
    for path in &options.graphs {
        if let Err(e) = bench_graph(path, &options, &mut kernels, &mut timings) {
            eprintln!("{}: {}", path.display(), e.lines().next().unwrap_or(""));
            failures.push((path.display().to_string(), e));
        }
    }
    let md = markdown(&options, &chip, &kernels, &timings, &failures);
    std::fs::create_dir_all(&options.out).map_err(|e| format!("{}: {e}", options.out.display()))?;
    let file = options.out.join("kernel_quality.md");
    std::fs::write(&file, md).map_err(|e| format!("{}: {e}", file.display()))?;
    eprintln!("wrote {}", file.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roofline_uses_the_aggregate_bandwidth() {
        let chip = ChipProfile::lookup("ascend910b").unwrap();
        // 18 B/cycle x 48 cores = 864 B/cycle.
        assert_eq!(roofline_cycles(864 * 1000, &chip), 1000.0);
        assert_eq!(roofline_cycles(0, &chip), 0.0);
        let small = chip.clone().with_overrides(0, 8).unwrap();
        assert_eq!(roofline_cycles(144 * 10, &small), 10.0);
        assert!((hbm_gbps(&chip) - 1598.4).abs() < 0.1);
    }

    #[test]
    fn far_ratios_and_medians() {
        assert!(is_far(2.5) && is_far(0.4));
        assert!(!is_far(1.0) && !is_far(2.0) && !is_far(0.5));
        assert!(!is_far(f64::NAN));
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn names_and_symbols() {
        assert_eq!(
            short_kernel_name("autofuse_reduce_0_Cast_Mul_ReduceSum"),
            "reduce_0"
        );
        assert_eq!(short_kernel_name("custom"), "custom");
        let s = parse_symbols("s0=4, s1=8").unwrap();
        assert_eq!((s["s0"], s["s1"]), (4, 8));
        assert!(parse_symbols("s0").is_err());
        assert!(parse_symbols("s0=-1").is_err());
        assert!(parse_symbols("s0=x").is_err());
    }
}
