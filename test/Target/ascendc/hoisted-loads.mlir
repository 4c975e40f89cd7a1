// RUN: %autofuse-opt %repo/examples/layer_norm.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --sink-constants --schedule --auto-tiling=remarks=false -o %t.mlir
// RUN: %autofuse-translate %t.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-translate %t.mlir --evaluate-tiling --symbols=s0=4096 > %t.4096.txt
// RUN: %autofuse-translate %t.mlir --evaluate-tiling --symbols=s0=300 > %t.300.txt
// RUN: FileCheck %s --check-prefix=EVAL --input-file %t.4096.txt
// RUN: %autofuse-run -v %repo/examples/layer_norm.mlir --symbols s0=4096 --symbols s0=300 --report-json %t.json | FileCheck %s --check-prefix=E2E
// RUN: python3 %S/Inputs/gm_bytes_check.py %t.json 1.05 %t.4096.txt %t.300.txt | FileCheck %s --check-prefix=BYTES
//
// Loads whose view does not vary along the tile loop (layer_norm's gamma and beta rows)
// are loaded once per block into the `hoist` TBuf, before the tile loop; every tile reads
// them there. Its scalar constants (1/N, eps) are no loads at all: --sink-constants makes
// them scalars of the kernel, and the emitter uses Muls/Adds with them. The split-reduction
// case (Case1) keeps loading per chunk. The emulation's GM bytes equal the model's, within
// 1.05x of the minimum.

// CHECK-LABEL: __aicore__ inline void Case0(
// CHECK: TBuf<TPosition::VECCALC> hoist;
// CHECK-NEXT: pipe.InitBuffer(hoist, t.hoist_size);
// CHECK: const int64_t last = af_min(first + t.z0Tb_size, t.tiles_total);
// CHECK-NEXT: if (first >= last) return;
// CHECK-NEXT: // Loads invariant along the tile loop: once per block, not once per tile.
// CHECK: LocalTensor<float> [[GAMMA:r[0-9]+]] = hoist.Get<uint8_t>()[static_cast<uint32_t>({{[0-9]+}})].ReinterpretCast<float>();
// CHECK-NEXT: const int64_t x{{[0-9]+}}[2] = {1, e_z1};
// CHECK-NEXT: const int64_t gs[2] = {0, 1};
// CHECK-NEXT: af::LoadBox([[GAMMA]], gm_in1, 0,
// CHECK: LocalTensor<float> [[BETA:r[0-9]+]] = hoist.Get<uint8_t>()
// CHECK-NEXT: const int64_t x{{[0-9]+}}[2] = {1, e_z1};
// CHECK-NEXT: const int64_t gs[2] = {0, 1};
// CHECK-NEXT: af::LoadBox([[BETA]], gm_in2, 0,
// CHECK-NEXT: }
// CHECK-NEXT: af::SyncAllPipes();
// CHECK-NEXT: }
// CHECK-NEXT: for (int64_t tile_id = first; tile_id < last; ++tile_id) {
// Inside the loop only x is loaded; gamma and beta are read from the hoist buffer.
// CHECK: af::LoadBox(r1, gm_in0, o_z0 * (1024), x1, gs, kAlign);
// CHECK-NOT: gm_in1
// CHECK: LocalTensor<float> [[GAMMA]] = hoist.Get<uint8_t>()
// CHECK-NOT: gm_in1
// CHECK: LocalTensor<float> [[BETA]] = hoist.Get<uint8_t>()
// The mean divides by 1024 as a Muls by its exact reciprocal; eps is an Adds.
// CHECK: Muls(v{{[0-9]+}}, v{{[0-9]+}}, static_cast<float>(0.0009765625), n{{[0-9]+}});
// CHECK: Adds(v{{[0-9]+}}, v{{[0-9]+}}, static_cast<float>(9.99999974e-6), n{{[0-9]+}});
// CHECK-NOT: gm_in1
// CHECK-NOT: gm_in2
// CHECK-LABEL: __aicore__ inline void Case1(
// CHECK: af::LoadBox(r{{[0-9]+}}, gm_in1, o_z1 * (1),
// Host: the once-per-block work is part of the cost model.
// CHECK: af_host::Work Case0Once(
// CHECK: return af_host::Work{8192, 0, 0, 2, 0, 2, 0};
// CHECK: {0, 1, 0, Case0Split, Case0Outer, Case0Ub, Case0Work, Case0Once, 0, Case0Chunk},

// EVAL: case 0 (split z0t)
// EVAL: hoist VECCALC x1 8192 B
// EVAL: GM bytes (model): {{[0-9]+}} (8192 B of hoisted loads once per block)

// E2E: -- inputs [4096, 1024] [1024] [1024]
// E2E: PASS
// E2E: -- inputs [300, 1024] [1024] [1024]
// E2E: PASS
// E2E: == PASS

// BYTES: run 0: measured {{[0-9]+}} B = model
// BYTES-NEXT: run 1: measured {{[0-9]+}} B = model
// BYTES-NEXT: measured / minimum 1.0{{[0-4][0-9]*}} <= 1.05
