// RUN: %autofuse-opt %repo/examples/attention_scores.mlir --infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir --fuse --sink-constants --schedule --auto-tiling=remarks=false -o %t.mlir
// RUN: %autofuse-translate %t.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-translate %t.mlir --evaluate-tiling --symbols=b=5,s=64 > %t.5.txt
// RUN: %autofuse-translate %t.mlir --evaluate-tiling --symbols=b=64,s=64 > %t.64.txt
// RUN: FileCheck %s --check-prefix=EVAL --input-file %t.64.txt
// RUN: %autofuse-run -v %repo/examples/attention_scores.mlir --symbols b=5,s=64 --symbols b=64,s=64 --report-json %t.json | FileCheck %s --check-prefix=E2E
// RUN: python3 %S/Inputs/gm_bytes_check.py --minimum=kernels_per_core_minimum --every-run %t.json 1.005 %t.5.txt %t.64.txt | FileCheck %s --check-prefix=BYTES
//
// The padding mask [b, 1, 1, key] is broadcast over heads and queries. When the heads are
// split (Case1, the batch looped) it does not vary along the split axis: the tiles walk
// chunk-fastest, so a block's consecutive tiles of one batch row read the same mask row.
// The case keeps it in the `hoist` buffer and reloads it only when the looped position
// changes (V -> MTE2 before overwriting, MTE2 -> V before the tile's compute); the scores
// go through a queue per tile. The emulation's GM bytes equal the model's, and no more
// than each core must read (measured / kernels' minimum with per-core copies <= 1.005).

// CHECK-LABEL: __aicore__ inline void Case1(
// CHECK: TBuf<TPosition::VECCALC> hoist;
// CHECK: int64_t resident_outer = -1;
// CHECK-NEXT: for (int64_t tile_id = first; tile_id < last; ++tile_id) {
// CHECK-NEXT: int64_t rest = tile_id;
// CHECK-NEXT: const int64_t chunk = rest % chunks;
// CHECK-NEXT: rest /= chunks;
// CHECK-NEXT: (void)chunk;
// CHECK-NEXT: const int64_t outer_pos = rest;
// CHECK: if (outer_pos != resident_outer) {
// CHECK-NEXT: if (resident_outer >= 0) af::SyncAllPipes();
// CHECK: af::LoadBox(r{{[0-9]+}}, gm_in1, o_z0 * (af_sym_s),
// CHECK: af::SyncAllPipes();
// CHECK-NEXT: resident_outer = outer_pos;
// CHECK-NEXT: }
// CHECK-NEXT: // CopyIn: GM -> VECIN
// CHECK-NOT: gm_in1
// CHECK: // Compute: vector unit
// CHECK-NOT: gm_in1
// CHECK: __aicore__ inline void Case2(
// Host: Case1 and Case2 reload per looped position (2), the others neither (0).
// CHECK: {0, {{[0-9]+}}, 0, Case0Split, Case0Outer, Case0Ub, Case0Work, Case0Once, 0, Case0Chunk},
// CHECK-NEXT: {1, {{[0-9]+}}, 0, Case1Split, Case1Outer, Case1Ub, Case1Work, Case1Once, 2, Case1Chunk},
// CHECK-NEXT: {2, {{[0-9]+}}, 0, Case2Split, Case2Outer, Case2Ub, Case2Work, Case2Once, 2, Case2Chunk},

// EVAL: case 1 (split z1t)
// EVAL: tiles 768 over block_dim 48 (16 per block, 48 cores)

// E2E: -- inputs [5, 64, 12, 64] [5, 1, 1, 64]
// E2E: PASS
// E2E: -- inputs [64, 64, 12, 64] [64, 1, 1, 64]
// E2E: PASS
// E2E: == PASS

// BYTES: run 0: measured {{[0-9]+}} B = model
// BYTES-NEXT: run 1: measured {{[0-9]+}} B = model
// BYTES-NEXT: measured / kernels_per_core_minimum 1.00{{[0-9]*}} <= 1.005
// BYTES-NEXT: measured / kernels_per_core_minimum 1.00{{[0-9]*}} <= 1.005
