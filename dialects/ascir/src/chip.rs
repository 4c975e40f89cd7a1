//! Chip profiles: the hardware numbers the schedule, the tiling solver and the code
//! generator respect (UB capacity, vector cores, alignment units, queue limits, the
//! element types each vector API accepts, and the constants of the cost model).
//!
//! Values come from `ascendc_api.md` §6 (UB sizes, event ids, 32 B blocks, 256 B
//! repeats), §2.4-2.5 (64 buffers per TPipe, 8 queue buffers per position) and
//! `ge_autofuse.md` §6.7 (GE's queue budget per position). Numbers the sources do not
//! give (core counts of A3 and 950, bandwidths) are marked `verified: false` and can be
//! overridden with [`ChipProfile::with_overrides`] (pass options `ub-bytes`, `cores`).
//!
//! Postcondition of every profile: `ub_usable <= ub_total`, `vector_cores >= 1`.

use autofuse_ir::graph::DType;

/// One target chip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChipProfile {
    /// Name as given to `--target` (`ascend910b`).
    pub name: &'static str,
    /// `__NPU_ARCH__` (2201 = A2/A3, 3510 = 950).
    pub npu_arch: u32,
    /// TOTAL_UB_SIZE of one vector core.
    pub ub_total: u64,
    /// UB bytes a kernel may allocate through TPipe (reserves subtracted).
    pub ub_usable: u64,
    /// Vector (AIV) cores a kernel can be launched on.
    pub vector_cores: u64,
    /// Bytes of one DataBlock: UB operands start on this boundary.
    pub block_bytes: u64,
    /// Bytes one vector repeat processes.
    pub repeat_bytes: u64,
    /// Queue buffers that may be allocated at once per TPosition (one event id each).
    pub max_queue_buffers_per_position: u64,
    /// Buffers (queue blocks + TBufs) per TPipe.
    pub max_buffers: u64,
    /// GE's queue budget per position (`max_que_num`).
    pub max_queues_per_position: u64,
    /// Whether UB numbers come from the documentation.
    pub ub_verified: bool,
    /// Whether the core count comes from a (third-party copy of a) platform file.
    pub cores_verified: bool,
    /// Cost model: GM->UB bytes per cycle and fixed cycles per DMA instruction.
    pub mte2_bytes_per_cycle: u64,
    pub mte3_bytes_per_cycle: u64,
    pub dma_head_cycles: u64,
    /// Cost model: vector bytes per cycle and fixed cycles per vector instruction.
    pub vec_bytes_per_cycle: u64,
    pub vec_head_cycles: u64,
    /// Cost model: what one more kernel launch costs the device (task dispatch, block
    /// start-up, the wait for its last block), and what one cross-core barrier
    /// (`SyncAll`, the hardware form) between two loop groups of one launch costs.
    pub launch_cycles: u64,
    pub sync_all_cycles: u64,
}

/// Names accepted by `--target`.
pub const TARGETS: &[&str] = &["ascend910b", "ascend910_93", "ascend950"];

/// The default target (Atlas A2, Ascend 910B).
pub const DEFAULT_TARGET: &str = "ascend910b";

const A2: ChipProfile = ChipProfile {
    name: "ascend910b",
    npu_arch: 2201,
    ub_total: 196_608,
    // 192 KiB - 256 B - 8 KiB Ascend C reserve (ascendc_api.md §6.1).
    ub_usable: 188_160,
    // Ascend910B1/B2 platform files (third-party copies, ascendc_api.md §6.2).
    vector_cores: 48,
    block_bytes: 32,
    repeat_bytes: 256,
    max_queue_buffers_per_position: 8,
    max_buffers: 64,
    max_queues_per_position: 4,
    ub_verified: true,
    cores_verified: true,
    // Estimates (not documented): ~1.6 TB/s HBM over 48 cores at 1.85 GHz is about
    // 18 B/cycle per core; DMA and vector instruction heads from GE's fitted tables
    // (ge_autofuse.md §7.2: MTE2 head ~880 cycles, vector head ~37 cycles).
    mte2_bytes_per_cycle: 18,
    mte3_bytes_per_cycle: 18,
    dma_head_cycles: 880,
    vec_bytes_per_cycle: 256,
    vec_head_cycles: 37,
    // Estimates (not documented): a kernel launch costs the device a few microseconds
    // (~3 us = 5550 cycles at 1.85 GHz), a hardware SyncAll about one (~1850 cycles).
    launch_cycles: 5550,
    sync_all_cycles: 1850,
};

const A3: ChipProfile = ChipProfile {
    name: "ascend910_93",
    cores_verified: false,
    ..A2
};

const ASCEND950: ChipProfile = ChipProfile {
    name: "ascend950",
    npu_arch: 3510,
    ub_total: 262_144,
    // 248 KiB usable by default (ascendc_api.md §6.1).
    ub_usable: 253_952,
    vector_cores: 48,
    max_queues_per_position: 14,
    cores_verified: false,
    ..A2
};

impl ChipProfile {
    /// The profile named `name` (also accepts the sim's aliases `ascend910b1/b2`).
    pub fn lookup(name: &str) -> Result<ChipProfile, String> {
        match name {
            "ascend910b" | "ascend910b1" | "ascend910b2" => Ok(A2),
            "ascend910_93" => Ok(A3),
            "ascend950" => Ok(ASCEND950),
            other => Err(format!(
                "unknown target '{other}' (known: {})",
                TARGETS.join(", ")
            )),
        }
    }

    /// Overrides UB bytes and/or the core count (0 = keep). A UB override may only
    /// shrink the budget: the device cannot give more than it has.
    pub fn with_overrides(mut self, ub_bytes: u64, cores: u64) -> Result<ChipProfile, String> {
        if ub_bytes != 0 {
            if ub_bytes > self.ub_usable {
                return Err(format!(
                    "ub-bytes={ub_bytes} exceeds the usable UB of {} ({} bytes)",
                    self.name, self.ub_usable
                ));
            }
            if ub_bytes < 1024 {
                return Err(format!(
                    "ub-bytes={ub_bytes} is below the 1024-byte minimum"
                ));
            }
            self.ub_usable = ub_bytes;
        }
        if cores != 0 {
            if cores > 65_535 {
                return Err(format!(
                    "cores={cores} exceeds the 65535-block launch limit"
                ));
            }
            self.vector_cores = cores;
        }
        Ok(self)
    }

    /// The chip model's cycles of `instructions` GM->UB DMAs (MTE2) moving `bytes`:
    /// a fixed head per instruction plus the bytes at the per-core rate. The one
    /// definition of a DMA's time: the tiling solver, the host tiling function
    /// (`af_host::Mte2Cycles`, constants printed from this profile) and the emulation's
    /// timeline (`PipeCosts::cycles` in `sim/include/ascendc_sim/pipes.h`, constants
    /// passed from this profile by the runner in `ASCENDC_SIM_COSTS`) all price a DMA
    /// this way.
    pub fn mte2_cycles(&self, bytes: i64, instructions: i64) -> i64 {
        ceil_div(bytes, self.mte2_bytes_per_cycle as i64)
            .saturating_add((self.dma_head_cycles as i64).saturating_mul(instructions))
    }

    /// Cycles of `instructions` UB->GM DMAs (MTE3) moving `bytes` (as [`Self::mte2_cycles`]).
    pub fn mte3_cycles(&self, bytes: i64, instructions: i64) -> i64 {
        ceil_div(bytes, self.mte3_bytes_per_cycle as i64)
            .saturating_add((self.dma_head_cycles as i64).saturating_mul(instructions))
    }

    /// Cycles of `instructions` vector calls over `bytes` of operands: a fixed head per
    /// call plus one cycle per `vec_bytes_per_cycle` (one 256-byte repeat on 910B).
    pub fn vec_cycles(&self, bytes: i64, instructions: i64) -> i64 {
        ceil_div(bytes, self.vec_bytes_per_cycle as i64)
            .saturating_add((self.vec_head_cycles as i64).saturating_mul(instructions))
    }

    /// Cycles of a block that runs `tiles` tiles, each `mte2`, `vec` and `mte3` cycles on
    /// the three pipes, software-pipelined through double-buffered queues: the first
    /// tile's load, compute and store run one after the other (the pipes cannot overlap
    /// within one tile), every further tile adds its bottleneck pipe (the other pipes
    /// work on the neighbouring tiles meanwhile). One tile per block costs
    /// `mte2 + vec + mte3`; many tiles approach `tiles * max(mte2, vec, mte3)`.
    pub fn pipelined_cycles(&self, tiles: i64, mte2: i64, vec: i64, mte3: i64) -> i64 {
        if tiles <= 0 {
            return 0;
        }
        let bottleneck = mte2.max(vec).max(mte3);
        (tiles - 1)
            .saturating_mul(bottleneck)
            .saturating_add(mte2.saturating_add(vec).saturating_add(mte3))
    }

    /// The name of the sim profile (`sim/include/ascendc_sim/state.h`) with the same
    /// UB and arch.
    pub fn sim_profile(&self) -> &'static str {
        self.name
    }

    /// Whether vector API `api` (Ascend C name) accepts element type `dtype` on this
    /// chip (ascendc_api.md §4.2 for 2201; 950 widens most integer and bf16 support).
    pub fn api_supports(&self, api: &str, dtype: DType) -> bool {
        use DType::*;
        let float = matches!(dtype, F32 | F16);
        let arith = float || matches!(dtype, I32 | I16);
        let wide = self.npu_arch == 3510;
        match api {
            "Add" | "Sub" | "Mul" | "Max" | "Min" | "Adds" | "Muls" | "Maxs" | "Mins" => {
                arith || (wide && dtype == BF16)
            }
            "Div" | "Exp" | "Ln" | "Sqrt" | "Abs" | "LeakyRelu" | "Sigmoid" | "Tanh" | "Erf"
            | "Sin" | "Cos" | "ReduceSum" | "ReduceMax" | "ReduceMin" | "Select" => float,
            "Relu" => float || dtype == I32,
            "And" | "Or" | "Not" => dtype == I16,
            "Compare" | "Compares" => float || dtype == I32,
            "Duplicate" | "Brcb" => dtype.bytes() == 2 || dtype.bytes() == 4,
            "DataCopy" | "DataCopyPad" | "Cast" => true,
            _ => false,
        }
    }
}

fn ceil_div(a: i64, b: i64) -> i64 {
    if b <= 0 {
        return 0;
    }
    (a + b - 1).div_euclid(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_consistent() {
        for name in TARGETS {
            let p = ChipProfile::lookup(name).unwrap();
            assert!(p.ub_usable <= p.ub_total);
            assert!(p.vector_cores >= 1);
            assert_eq!(p.name, *name);
        }
        assert_eq!(
            ChipProfile::lookup("ascend910b").unwrap().ub_usable,
            188_160
        );
        assert!(ChipProfile::lookup("ascend310").is_err());
    }

    #[test]
    fn overrides_only_shrink_ub() {
        let p = ChipProfile::lookup(DEFAULT_TARGET).unwrap();
        assert_eq!(p.clone().with_overrides(4096, 8).unwrap().ub_usable, 4096);
        assert!(p.clone().with_overrides(1 << 20, 0).is_err());
        assert_eq!(p.with_overrides(0, 0).unwrap().vector_cores, 48);
    }

    #[test]
    fn pipe_cycles_follow_the_constants() {
        let p = ChipProfile::lookup(DEFAULT_TARGET).unwrap();
        // One DMA of 1024 bytes: 880 + ceil(1024 / 18) = 880 + 57 cycles.
        assert_eq!(p.mte2_cycles(1024, 1), 937);
        assert_eq!(p.mte3_cycles(0, 2), 1760);
        // Two vector calls over 1000 bytes: 2 * 37 + ceil(1000 / 256) = 78 cycles.
        assert_eq!(p.vec_cycles(1000, 2), 78);
        // One tile: the three pipes one after the other; four tiles: three more of the
        // bottleneck (MTE2, 100 cycles).
        assert_eq!(p.pipelined_cycles(1, 100, 20, 50), 170);
        assert_eq!(p.pipelined_cycles(4, 100, 20, 50), 470);
        assert_eq!(p.pipelined_cycles(0, 100, 20, 50), 0);
    }

    #[test]
    fn dtype_gating_follows_the_sheet() {
        let p = ChipProfile::lookup(DEFAULT_TARGET).unwrap();
        assert!(p.api_supports("Div", DType::F16));
        assert!(!p.api_supports("Div", DType::I32));
        assert!(!p.api_supports("Exp", DType::BF16));
        assert!(p.api_supports("Add", DType::I32));
    }
}
