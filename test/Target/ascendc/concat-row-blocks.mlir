// RUN: %autofuse-opt %S/Inputs/concat_rows.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false \
// RUN:   | %autofuse-translate --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-run -v %S/Inputs/concat_rows.mlir --entry rows --symbols s1=5 --symbols s1=100003 --vendor-headers %vendor_headers | FileCheck %s --check-prefix=ROWS
// RUN: %autofuse-run -v %S/Inputs/concat_rows.mlir --entry heads --symbols s0=2,s1=3 --symbols s0=3,s1=40001 --vendor-headers %vendor_headers | FileCheck %s --check-prefix=HEADS
// RUN: %autofuse-run -v %S/Inputs/concat_rows.mlir --entry wide --vendor-headers %vendor_headers | FileCheck %s --check-prefix=WIDE
// RUN: %autofuse-run -v %S/Inputs/concat_rows.mlir --entry pad_rows --symbols s0=2,s1=7 --symbols s0=2,s1=77777 --vendor-headers %vendor_headers | FileCheck %s --check-prefix=PAD
// RUN: %autofuse-run -v %S/Inputs/concat_rows.mlir --entry bias_part --symbols s0=3 --symbols s0=1000 --vendor-headers %vendor_headers | FileCheck %s --check-prefix=BIAS
// RUN: %autofuse-run -v %S/Inputs/concat_rows.mlir --entry edge_rows --symbols s0=1,s1=3 --symbols s0=4,s1=50001 --vendor-headers %vendor_headers | FileCheck %s --check-prefixes=EDGE,EDGER
// RUN: %autofuse-run -v %S/Inputs/concat_rows.mlir --entry edge_cols --symbols s0=2,s1=1 --symbols s0=37,s1=45 --symbols s0=3,s1=70001 --vendor-headers %vendor_headers | FileCheck %s --check-prefix=EDGE

// Concats (and constant pads, concats of fills) whose rows, the axes after the concat
// axis, may be longer than UB holds (GE's GM-concat template). Besides the cases whose
// tiles hold whole rows, the schedule adds one that also cuts the innermost axis into
// blocks of a fixed length (the largest power of two whose one-row tile fits UB): each
// tile is one block of rows of the parts, so no tile holds a whole row, and the host
// tiling function picks it by tiling key only when rows are long. A static row that
// fits one block gets no such case (@wide: its rows of 5000 fit a tile whole).
// CHECK-LABEL: // ===== autofuse_pointwise_7_Pad/autofuse_pointwise_7_Pad.cpp
// CHECK: // Case 0: UB split of z0 (tile z0t_size), looped [], in tile [z0, z1].
// CHECK: // Case 1: UB split of z0 (tile z0t_size), looped [], in tile [z0, z1]; z1 in blocks of 4096 (concat rows cut into blocks: GM concat).
// CHECK-LABEL: // ===== autofuse_pointwise_0_Concat_Exp/autofuse_pointwise_0_Concat_Exp.cpp
// CHECK: // Case 1: UB split of z0 (tile z0t_size), looped [], in tile [z0, z1]; z1 in blocks of 4096 (concat rows cut into blocks: GM concat).
// CHECK-LABEL: // ===== autofuse_pointwise_2_Neg_Concat_Add/autofuse_pointwise_2_Neg_Concat_Add.cpp
// CHECK: // Case 1: UB split of z1 (tile z1t_size), looped [z0], in tile [z1, z2].
// CHECK: // Case 2: UB split of z1 (tile z1t_size), looped [z0], in tile [z1, z2]; z2 in blocks of 8192 (concat rows cut into blocks: GM concat).
// CHECK-LABEL: // ===== autofuse_pointwise_5_Concat_Relu/autofuse_pointwise_5_Concat_Relu.cpp
// CHECK: // Case 1: UB split of z1 (tile z1t_size), looped [z0], in tile [z1, z2].
// CHECK-NOT: // Case 2

// Each run is equal to the interpreter on the emulation and on the vendor headers; short
// rows take a whole-row case, rows of 100003 f32 (391 KiB) the blocked one, at the
// minimum GM bytes.
// ROWS: -- inputs [2, 5] [3, 5]
// ROWS: case 0
// ROWS: vendor path: 1 kernel(s) run, max error {{.*}}: PASS
// ROWS: -- inputs [2, 100003] [3, 100003]
// ROWS: case 1
// ROWS: vendor path: 1 kernel(s) run, max error {{.*}}: PASS
// ROWS: model: 1 kernels (0 left to the interpreter) | 0 boundary ops | {{.*}} (1.000x) over 2 run(s)
// ROWS: == PASS

// A concat along a middle axis with a fused producer of one part and a consumer
// reading a third input, f16 rows of 40001 (unaligned: the last block is partial).
// HEADS: -- inputs [2, 2, 3] [2, 3, 3] [2, 5, 3]
// HEADS: case 1
// HEADS: -- inputs [3, 2, 40001] [3, 3, 40001] [3, 5, 40001]
// HEADS: case 2
// HEADS: vendor path: 1 kernel(s) run, max error {{.*}}: PASS
// HEADS: model: 1 kernels (0 left to the interpreter) | 0 boundary ops | {{.*}} (1.000x) over 2 run(s)
// HEADS: == PASS

// WIDE: case 1
// WIDE: vendor path: 1 kernel(s) run, max error {{.*}}: PASS
// WIDE: == PASS

// A pad of the outer axis by 1 and 2 rows of 1.5: the fills are parts of the concat.
// PAD: -- inputs [2, 7]
// PAD: case 0
// PAD: -- inputs [2, 77777]
// PAD: case 1
// PAD: vendor path: 1 kernel(s) run, max error {{.*}}: PASS
// PAD: model: 1 kernels (0 left to the interpreter) | 0 boundary ops | {{.*}} (1.000x) over 2 run(s)
// PAD: == PASS

// Parts computed by a broadcast: a bias added to one part (broadcast over its rows),
// and edge pads, whose repeated border rows (columns) are one row (column) of the input
// broadcast within their part. The row pad's border broadcasts fuse into its concat
// kernel.
// BIAS: kernel autofuse_pointwise_8_Add_Concat: ops Add,Concat
// BIAS-COUNT-2: vendor path: 1 kernel(s) run, max error {{.*}}: PASS
// BIAS: model: 1 kernels (0 left to the interpreter) | 0 boundary ops
// BIAS: == PASS
// EDGER: kernel autofuse_pointwise_11_Concat_BroadcastTo_Concat_Sigmoid: ops Concat,BroadcastTo,Concat,Sigmoid
// EDGER-COUNT-2: vendor path: 1 kernel(s) run, max error {{.*}}: PASS
// EDGE: (0 left to the interpreter) | 0 boundary ops
// EDGE: == PASS
