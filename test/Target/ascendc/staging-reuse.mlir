// RUN: %autofuse-opt %repo/examples/elementwise_chain.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false -o %t.chain.mlir
// RUN: %autofuse-translate %t.chain.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-translate %t.chain.mlir --evaluate-tiling --symbols=s0=4096 | FileCheck %s --check-prefix=CHAIN
// RUN: %autofuse-opt %repo/examples/swiglu.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false -o %t.swiglu.mlir
// RUN: %autofuse-translate %t.swiglu.mlir --evaluate-tiling --symbols=s0=4096 | FileCheck %s --check-prefix=SWIGLU
// RUN: %vendor_env %autofuse-run %repo/examples/elementwise_chain.mlir --symbols s0=37 --symbols s0=700 | FileCheck %s --check-prefix=EXEC
// RUN: %vendor_env %autofuse-run %repo/examples/swiglu.mlir --symbols s0=5 --symbols s0=300 | FileCheck %s --check-prefix=EXEC
//
// Pointwise chains keep to their queues: values computed before the stored one that
// die before the store's producer may live in the store's VECOUT staging tensor, but
// never the operand of the op that writes it (some ops are several calls that read an
// operand after writing the result: int32 abs is Muls then Max), so elementwise_chain's
// six ops need one VECCALC slot `b0`, not one per value; and its Sigmoid borrows the
// tile of `y` (read for the last time by the add) as its temporary, so `scratch` is 256
// bytes instead of a tile. At s0 = 4096 rows of 512 f32 (2048 B a row) the tile-sized
// buffers are x, y and the output double-buffered plus b0: 188160 B of UB less the
// scale's queue (2 x 32 B), its hoisted row (2048 B) and scratch (256 B) leaves 185792 B,
// 26541 B for each of 7 buffers: 12 rows fit (24576 B). 4096 / 12 -> 342 tiles, 8 on the
// busiest of 48 cores; the pipelined solver then takes the smallest tile that keeps 8
// per block, ceil(4096 / (8 x 48)) = 11 rows: 373 tiles on 47 blocks. swiglu still needs
// a tile of scratch (its sigmoid's input, gate, is read again by the mul after it).

// CHECK: Sigmoid([[V:v[0-9]+]], [[V2:v[0-9]+]], r{{[0-9]+}}.ReinterpretCast<uint8_t>(),
// CHECK-NOT: scratch.Get<uint8_t>(), static_cast<uint32_t>(n

// CHAIN: case 0 (split z0t): tile z0t_size = 11
// CHAIN-NEXT: tiles 373 over block_dim 47 (8 per block, 48 cores)
// CHAIN: q3       VECOUT   x2 22528 B
// CHAIN-NEXT: b0       VECCALC  x1 22528 B
// CHAIN-NEXT: scratch  VECCALC  x1 256 B

// SWIGLU: q2       VECOUT   x2
// SWIGLU: scratch  VECCALC  x1

// EXEC-NOT: FAIL
// EXEC: == PASS
