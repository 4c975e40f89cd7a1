// RUN: %autofuse-opt %repo/examples/rotary_embedding.mlir --infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false -o %t.mlir
// RUN: %autofuse-translate %t.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-translate %t.mlir --evaluate-tiling --symbols=b=2,s=77 > %t.77.txt
// RUN: %autofuse-translate %t.mlir --evaluate-tiling --symbols=b=1,s=600 > %t.600.txt
// RUN: FileCheck %s --check-prefix=EVAL --input-file %t.77.txt
// RUN: %autofuse-run -v %repo/examples/rotary_embedding.mlir --symbols b=2,s=77 --symbols b=1,s=600 --report-json %t.json | FileCheck %s --check-prefix=E2E
// RUN: python3 %S/Inputs/gm_bytes_check.py --minimum=kernels_per_core_minimum --every-run %t.json 1.01 %t.77.txt %t.600.txt | FileCheck %s --check-prefix=BYTES
//
// The rotary embedding's cos/sin tables ([s, 128]) are broadcast over batch and heads.
// When the sequence axis is split (Case2), they vary only along the split axis: the
// case walks its tiles chunk-major (the heads vary fastest) and keeps the tables in the
// `hoist` buffer, reloading them only when a tile enters a new chunk (V -> MTE2 before
// overwriting, MTE2 -> V before the tile's compute). Only x goes through a queue per
// tile. The emulation's GM bytes equal the model's, and every core reads each table row
// it needs once (measured / kernels' minimum with per-core copies <= 1.01).

// CHECK-LABEL: __aicore__ inline void Case2(
// CHECK: TBuf<TPosition::VECCALC> hoist;
// CHECK: const int64_t outer_tiles = chunks > 0 ? t.tiles_total / chunks : 0;
// CHECK-NEXT: int64_t resident_chunk = -1;
// CHECK-NEXT: for (int64_t tile_id = first; tile_id < last; ++tile_id) {
// CHECK-NEXT: int64_t rest = tile_id % outer_tiles;
// CHECK-NEXT: const int64_t chunk = tile_id / outer_tiles;
// CHECK: if (chunk != resident_chunk) {
// CHECK-NEXT: if (resident_chunk >= 0) af::SyncAllPipes();
// CHECK: hoist.Get<uint8_t>()[static_cast<uint32_t>(0)]
// CHECK: af::LoadBox(r{{[0-9]+}}, gm_in1, o_z2 * (128),
// CHECK: hoist.Get<uint8_t>()[static_cast<uint32_t>(256*z2t_size)]
// CHECK: af::LoadBox(r{{[0-9]+}}, gm_in2, o_z2 * (128),
// CHECK: af::SyncAllPipes();
// CHECK-NEXT: resident_chunk = chunk;
// CHECK-NEXT: }
// CHECK-NEXT: // CopyIn: GM -> VECIN
// CHECK-NEXT: {
// CHECK-NEXT: LocalTensor<half> r1 = q0.AllocTensor<half>();
// CHECK-NOT: gm_in1
// CHECK-NOT: gm_in2
// CHECK: q0.EnQue(r1);
// CHECK-NEXT: }
// CHECK-NEXT: // Compute: vector unit
// CHECK-NOT: gm_in1
// CHECK-NOT: gm_in2
// CHECK: }  // namespace
// Host: the per-chunk reload is part of the cost model of Case2 only.
// CHECK: af_host::Work Case2Chunk(
// CHECK-NEXT: (void)sym;
// CHECK: return af_host::Work{512*z2t_size, 0, 0, 2, 0, 2*z2t_size, 0};
// CHECK: {0, 1, 0, Case0Split, Case0Outer, Case0Ub, Case0Work, Case0Once, 0, Case0Chunk},
// CHECK-NEXT: {1, 1, 0, Case1Split, Case1Outer, Case1Ub, Case1Work, Case1Once, 0, Case1Chunk},
// CHECK-NEXT: {2, 1, 0, Case2Split, Case2Outer, Case2Ub, Case2Work, Case2Once, 1, Case2Chunk},

// EVAL: case 2 (split z2t)
// EVAL: hoist VECCALC x1

// E2E: -- inputs [2, 32, 77, 128] [77, 128] [77, 128]
// E2E: PASS
// E2E: -- inputs [1, 32, 600, 128] [600, 128] [600, 128]
// E2E: PASS
// E2E: == PASS

// BYTES: run 0: measured {{[0-9]+}} B = model
// BYTES-NEXT: run 1: measured {{[0-9]+}} B = model
// BYTES-NEXT: measured / kernels_per_core_minimum 1.00{{[0-9]*}} <= 1.01
// BYTES-NEXT: measured / kernels_per_core_minimum 1.00{{[0-9]*}} <= 1.01
