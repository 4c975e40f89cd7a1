// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir --verify-diagnostics -o /dev/null
// RUN: %autofuse-run -v %S/Inputs/concat_outermost.mlir --symbols s0=3,s1=5 --symbols s0=701,s1=333 --vendor-headers %vendor_headers | FileCheck %s --check-prefix=ROWS
// RUN: %autofuse-run -v %S/Inputs/concat_outermost.mlir --entry flat --symbols s0=3,s1=5 --symbols s0=7001,s1=3331 --vendor-headers %vendor_headers | FileCheck %s --check-prefix=FLAT

// A binary concat: the loop nest is the result's; each operand is read with its own
// extent on the concat axis (a part of it) and its own strides; ascir.concat joins the
// two views where their repeats differ from the result's.
// CHECK-LABEL: func.func @last_axis
// CHECK: call @autofuse_pointwise_0_Concat(%arg0, %arg1)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Concat
// CHECK-SAME: ascir.axes = [#ascir.axis<0 : i64, "z0", "s0", "original", []>, #ascir.axis<1 : i64, "z1", "20", "original", []>]
// CHECK: %[[D0:.*]] = "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1], ["s0", "13"], ["13", "1"]>}
// CHECK: %[[L0:.*]] = "ascir.load"(%[[D0]]) {offset = "0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "13"], ["13", "1"]>}
// CHECK: %[[D1:.*]] = "ascir.data"(%arg1) {index = 1 : i64, view = #ascir.view<[0, 1], ["s0", "7"], ["7", "1"]>}
// CHECK: %[[L1:.*]] = "ascir.load"(%[[D1]])
// CHECK: %[[C:.*]] = "ascir.concat"(%[[L0]], %[[L1]]) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "20"], ["20", "1"]>}
// CHECK: "ascir.store"(%[[C]]) {offset = "0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "20"], ["20", "1"]>}
func.func @last_axis(%x: tensor<?x13xf32>, %y: tensor<?x7xf32>) -> tensor<?x20xf32> {
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<?x13xf32>, tensor<?x7xf32>) -> tensor<?x20xf32>
  return %0 : tensor<?x20xf32>
}

// -----

// A middle axis with symbolic parts; a negative axis counts from the end.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Concat
// CHECK: "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1, 2], ["4", "s0", "9"], ["9*s0", "9", "1"]>}
// CHECK: "ascir.data"(%arg1) {index = 1 : i64, view = #ascir.view<[0, 1, 2], ["4", "s1", "9"], ["9*s1", "9", "1"]>}
// CHECK: "ascir.concat"{{.*}}view = #ascir.view<[0, 1, 2], ["4", "s0+s1", "9"], ["9*s0+9*s1", "9", "1"]>}
func.func @middle_axis(%x: tensor<4x?x9xf16>, %y: tensor<4x?x9xf16>) -> tensor<4x?x9xf16> {
  %0 = "ascend.concat"(%x, %y) {axis = -2 : i64} : (tensor<4x?x9xf16>, tensor<4x?x9xf16>) -> tensor<4x?x9xf16>
  return %0 : tensor<4x?x9xf16>
}

// -----

// A concat along the outermost non-unit axis is lowered too: its tiles split the
// concat axis (docs/fusion.md); so is one whose slab exceeds a tile, and one whose row
// (the axes after the concat axis) is longer than a tile holds: its schedule also has a
// case cutting rows into blocks (concat-row-blocks.mlir runs such rows).
// CHECK-LABEL: func.func @outermost
// CHECK: call @autofuse_pointwise_0_Concat(%arg0, %arg1)
// CHECK: call @autofuse_pointwise_1_Concat(%arg2, %arg3)
// CHECK: call @autofuse_pointwise_2_Concat(%arg4, %arg5)
// CHECK-NOT: "ascend.concat"
// CHECK-LABEL: func.func @autofuse_pointwise_0_Concat
// CHECK: "ascir.concat"{{.*}}view = #ascir.view<[0, 1, 2], ["1", "s0+3", "8"]
func.func @outermost(%x: tensor<1x?x8xf32>, %y: tensor<1x3x8xf32>, %a: tensor<2x2048xf32>, %b: tensor<2x1xf32>, %p: tensor<2x1x2049xf32>, %q: tensor<2x1x2049xf32>) -> (tensor<1x?x8xf32>, tensor<2x2049xf32>, tensor<2x2x2049xf32>) {
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<1x?x8xf32>, tensor<1x3x8xf32>) -> tensor<1x?x8xf32>
  %1 = "ascend.concat"(%a, %b) {axis = 1 : i64} : (tensor<2x2048xf32>, tensor<2x1xf32>) -> tensor<2x2049xf32>
  %2 = "ascend.concat"(%p, %q) {axis = 1 : i64} : (tensor<2x1x2049xf32>, tensor<2x1x2049xf32>) -> tensor<2x2x2049xf32>
  return %0, %1, %2 : tensor<1x?x8xf32>, tensor<2x2049xf32>, tensor<2x2x2049xf32>
}

// Outermost concats on the emulation and the vendor path, equal to the interpreter, at
// the minimum GM bytes (the bias row is read once per core).
// ROWS: kernel autofuse_pointwise_0_Exp_Concat_Add: ops Exp,Concat,Add
// ROWS-COUNT-2: vendor path: 1 kernel(s) run, max error {{.*}} (vs sim {{.*}}): PASS
// ROWS: model: 1 kernels (0 left to the interpreter) | 0 boundary ops | {{.*}} | with per-core copies {{.*}} (1.000x)
// FLAT: kernel autofuse_pointwise_{{[0-9]+}}_Concat_Concat_Relu: ops Concat,Concat,Relu
// FLAT-COUNT-2: vendor path: 1 kernel(s) run, max error {{.*}} (vs sim {{.*}}): PASS
// FLAT: model: 1 kernels (0 left to the interpreter) | 0 boundary ops | {{.*}} (1.000x) over 2 run(s) | with per-core copies {{.*}} (1.000x)
