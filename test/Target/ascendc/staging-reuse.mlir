// RUN: %autofuse-opt %repo/examples/elementwise_chain.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false -o %t.chain.mlir
// RUN: %autofuse-translate %t.chain.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-translate %t.chain.mlir --evaluate-tiling --symbols=s0=4096 | FileCheck %s --check-prefix=CHAIN
// RUN: %autofuse-opt %repo/examples/gelu_bias.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --sink-constants --schedule --auto-tiling=remarks=false -o %t.gelu.mlir
// RUN: %autofuse-translate %t.gelu.mlir --mlir-to-ascendc -o - | FileCheck %s --check-prefix=GELU
// RUN: %autofuse-opt %repo/examples/swiglu.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false -o %t.swiglu.mlir
// RUN: %autofuse-translate %t.swiglu.mlir --evaluate-tiling --symbols=s0=4096 | FileCheck %s --check-prefix=SWIGLU
// RUN: %autofuse-opt %S/Inputs/in_place_values.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false | %autofuse-translate --mlir-to-ascendc -o - | FileCheck %s --check-prefix=ABS
// RUN: %autofuse-opt %repo/bench/quality/graphs/transpose_add.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --sink-constants --schedule --auto-tiling=remarks=false | %autofuse-translate --mlir-to-ascendc -o - | FileCheck %s --check-prefix=TRANSPOSE
// RUN: %autofuse-opt %repo/bench/quality/graphs/rec_block.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --sink-constants --schedule --auto-tiling=remarks=false | %autofuse-translate --mlir-to-ascendc -o - | FileCheck %s --check-prefix=SPLIT
// RUN: %vendor_env %autofuse-run -v %repo/examples/elementwise_chain.mlir --symbols s0=37 --symbols s0=700 | FileCheck %s --check-prefix=EXEC
// RUN: %vendor_env %autofuse-run -v %repo/examples/layer_norm.mlir --symbols s0=37 --ub-bytes 8192 | FileCheck %s --check-prefix=EXEC
// RUN: %vendor_env %autofuse-run -v %repo/examples/gelu_bias.mlir --symbols s0=3 --symbols s0=250 | FileCheck %s --check-prefix=EXEC
// RUN: %vendor_env %autofuse-run -v %repo/examples/swiglu.mlir --symbols s0=5 --symbols s0=300 | FileCheck %s --check-prefix=EXEC
// RUN: %vendor_env %autofuse-run -v %S/Inputs/in_place_values.mlir --symbols s0=37 --symbols s0=300 | FileCheck %s --check-prefix=EXEC
//
// Pointwise chains keep to their queues. An elementwise value whose operand dies at it
// is computed over that operand (`writes_in_place`): in its VECCALC slot, in the load's
// VECIN tensor holding it, or in the store's VECOUT staging tensor (kernels without
// split-reduction cases). Values computed
// before the stored one may live in the staging tensor while it is free, the last of
// them read by the store's producer, which writes over it. Ops that read an operand
// after writing their result never write over it (int32 abs is Muls then Max).
//
// elementwise_chain: y + x * scale lands in y's tensor (y dies at the add) and the
// chain abs, sub, relu stays there; the Sigmoid writes the staging tensor and borrows
// x's tile (x read last by the sub) as its temporary, so `scratch` is 256 bytes and no
// VECCALC slot holds a tile. At s0 = 4096 rows of 512 f32 (2048 B a row) the tile-sized
// buffers are x, y and the output double-buffered: 188160 B of UB less the scale's queue
// (2 x 32 B), its hoisted row (2048 B) and scratch (256 B) leaves 185792 B, 30965 B for
// each of 6 buffers: 15 rows fit (30720 B). 4096 / 15 -> 274 tiles, 6 on the busiest of
// 48 cores; the smallest tile that keeps 6 per block, ceil(4096 / (6 x 48)) = 15 rows:
// 274 tiles on 46 blocks.

// CHECK: LocalTensor<float> v7 = [[Y:r[0-9]+]];
// CHECK: LocalTensor<float> v8 = [[Y]];
// CHECK-NEXT: Add(v8, v5, v7, n8);
// CHECK: LocalTensor<float> v11 = [[Y]];
// CHECK: Sigmoid(v12, v11, r{{[0-9]+}}.ReinterpretCast<uint8_t>(),
// CHECK-NOT: scratch.Get<uint8_t>(), static_cast<uint32_t>(n

// CHAIN: case 0 (split z0t): tile z0t_size = 15
// CHAIN-NEXT: tiles 274 over block_dim 46 (6 per block, 48 cores)
// CHAIN: q3       VECOUT   x2 30720 B
// CHAIN-NEXT: scratch  VECCALC  x1 256 B
// CHAIN-NOT: b0

// gelu_bias: x + bias in x's tensor, the tanh chain in the staging tensor, 0.5 * (x +
// bias) back in x's tensor, and their product (the stored value) over the chain.
// GELU-LABEL: Case0(
// GELU-NOT: TBuf<TPosition::VECCALC> b0;
// GELU: LocalTensor<float> v5 = [[X:r[0-9]+]];
// GELU: LocalTensor<float> v6 = [[S:s[0-9]+]];
// GELU: LocalTensor<float> v15 = [[S]];
// GELU: LocalTensor<float> v17 = [[X]];
// GELU: LocalTensor<float> v18 = [[S]];
// GELU-NEXT: Mul(v18, v17, v15, n18);

// swiglu still needs a tile of scratch (its sigmoid's input, gate, is read again by
// the mul after it, and no input tile is dead by then).
// SWIGLU: q2       VECOUT   x2
// SWIGLU: scratch  VECCALC  x1

// A transposing load's tile layout is computed in the staging tensor too (Transpose
// reads only its raw queue tensor), and the add writes over it: no VECCALC slot.
// TRANSPOSE-NOT: TBuf<TPosition::VECCALC> b0;
// TRANSPOSE: LocalTensor<float> v1 = [[S:s[0-9]+]];
// TRANSPOSE-NEXT: af::TransposeBlock(v1, r1,
// TRANSPOSE: LocalTensor<float> v4 = [[S]];
// TRANSPOSE-NEXT: Add(v4, v1, v3, n4);

// In kernels with split-reduction cases, values that vary along the split reduced axis
// (computed per chunk, in every pass that reads them) still go over their dying load's
// tensor: rec_block's x * gate in x's, emb * w in emb's (case 1, the last pass).
// SPLIT-LABEL: // Case 1:
// SPLIT: // Pass 1: chunks of z1.
// SPLIT: LocalTensor<float> r1 = q0.DeQue<float>();
// SPLIT-NEXT: LocalTensor<float> r3 = q1.DeQue<float>();
// SPLIT: LocalTensor<float> v8 = r1;
// SPLIT: LocalTensor<float> v12 = r3;

// ABS: Muls([[ABS:v[0-9]+]], [[SRC:v[0-9]+]], static_cast<int32_t>(-1)
// ABS-NEXT: PipeBarrier<PIPE_V>();
// ABS-NEXT: Max([[ABS]], [[ABS]], [[SRC]],

// EXEC-NOT: FAIL
// EXEC: == PASS
