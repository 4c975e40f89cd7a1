// RUN: %autofuse-opt %repo/examples/elementwise_chain.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false -o %t.chain.mlir
// RUN: %autofuse-translate %t.chain.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-translate %t.chain.mlir --evaluate-tiling --symbols=s0=4096 | FileCheck %s --check-prefix=CHAIN
// RUN: %autofuse-opt %repo/examples/swiglu.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false -o %t.swiglu.mlir
// RUN: %autofuse-translate %t.swiglu.mlir --evaluate-tiling --symbols=s0=4096 | FileCheck %s --check-prefix=SWIGLU
// RUN: %vendor_env %autofuse-run %repo/examples/elementwise_chain.mlir --symbols s0=37 --symbols s0=700 | FileCheck %s --check-prefix=EXEC
// RUN: %vendor_env %autofuse-run %repo/examples/swiglu.mlir --symbols s0=5 --symbols s0=300 | FileCheck %s --check-prefix=EXEC
//
// Pointwise chains keep to their queues: the values computed before the stored one
// (mul, add, abs, sub, relu of elementwise_chain; sigmoid and the first mul of swiglu)
// live in the store's VECOUT staging tensor, each written over the previous one in
// place, so no VECCALC slot `b0` is allocated; and elementwise_chain's Sigmoid borrows
// the tile of `y` (read for the last time by the add) as its temporary, so `scratch` is
// 256 bytes instead of a tile. At s0 = 4096 rows of 512 f32 (2048 B a row) the
// tile-sized buffers are x, y and the output, double-buffered: 188160 B of UB less the
// scale's queue (2 x 32 B), its hoisted row (2048 B) and scratch (256 B) leaves
// 185792 B, 30965 B per buffer: 15 rows (30720 B; 16 rows need 32768 B). 4096 / 15 ->
// 274 tiles, 6 per block on 46 blocks. swiglu still needs a tile of scratch (its
// sigmoid's input, gate, is read again by the mul after it).

// CHECK: Sigmoid([[V:v[0-9]+]], [[V2:v[0-9]+]], r{{[0-9]+}}.ReinterpretCast<uint8_t>(),
// CHECK-NOT: scratch.Get<uint8_t>(), static_cast<uint32_t>(n

// CHAIN: case 0 (split z0t): tile z0t_size = 15
// CHAIN-NEXT: tiles 274 over block_dim 46 (6 per block, 48 cores)
// CHAIN: q3       VECOUT   x2 30720 B
// CHAIN-NOT: b0
// CHAIN: scratch  VECCALC  x1 256 B

// SWIGLU: q2       VECOUT   x2
// SWIGLU-NOT: b0
// SWIGLU: scratch  VECCALC  x1

// EXEC-NOT: FAIL
// EXEC: == PASS
