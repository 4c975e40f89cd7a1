// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir --verify-diagnostics -o /dev/null

// A transpose that keeps the innermost axis is a load whose GM view walks the operand
// with permuted strides (GE carries transposes as load strides): the loop nest is the
// result's, result axis i steps through operand dim perm[i].
// CHECK-LABEL: func.func @keeps_innermost
// CHECK: call @autofuse_pointwise_0_Transpose(%arg0)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Transpose
// CHECK-SAME: ascir.axes = [#ascir.axis<0 : i64, "z0", "6", "original", []>, #ascir.axis<1 : i64, "z1", "s0", "original", []>, #ascir.axis<2 : i64, "z2", "20", "original", []>]
// CHECK-SAME: ascir.ops = ["Transpose"]
// CHECK: %[[D:.*]] = "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1, 2], ["6", "s0", "20"], ["20", "120", "1"]>}
// CHECK: %[[L:.*]] = "ascir.load"(%[[D]]) {offset = "0", sched_axis = [0, 1, 2], view = #ascir.view<[0, 1, 2], ["6", "s0", "20"], ["20*s0", "20", "1"]>}
// CHECK: %[[S:.*]] = "ascir.store"(%[[L]]) {offset = "0", sched_axis = [0, 1, 2], view = #ascir.view<[0, 1, 2], ["6", "s0", "20"], ["20*s0", "20", "1"]>}
// CHECK: "ascir.output"(%[[S]])
func.func @keeps_innermost(%x: tensor<?x6x20xf32>) -> tensor<6x?x20xf32> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0, 2]} : (tensor<?x6x20xf32>) -> tensor<6x?x20xf32>
  return %0 : tensor<6x?x20xf32>
}

// -----

// Unit dims walk nothing (repeat 1, stride 0); the innermost non-unit dim must stay
// innermost, so moving a unit dim behind it is still a strided copy.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Transpose
// CHECK: "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1, 2, 3], ["3", "4", "5", "1"], ["5", "15", "1", "0"]>}
func.func @unit_dims(%x: tensor<4x3x5x1xf16>) -> tensor<3x4x5x1xf16> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0, 2, 3]} : (tensor<4x3x5x1xf16>) -> tensor<3x4x5x1xf16>
  return %0 : tensor<3x4x5x1xf16>
}

// -----

// Swapping the two innermost non-unit axes is lowered too: the load walks the result
// nest with stride 1 on the second-to-last axis and the operand's row length on the
// innermost one (the kernel transposes 2-D blocks in UB with the Transpose API).
// CHECK-LABEL: func.func @swaps_innermost
// CHECK: call @autofuse_pointwise_0_Transpose(%arg0)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Transpose
// CHECK: %[[D:.*]] = "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1], ["8", "s0"], ["1", "8"]>}
// CHECK: "ascir.load"(%[[D]]) {offset = "0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["8", "s0"], ["s0", "1"]>}
// CHECK: "ascir.store"({{.*}}view = #ascir.view<[0, 1], ["8", "s0"], ["s0", "1"]>}
func.func @swaps_innermost(%x: tensor<?x8xf32>) -> tensor<8x?xf32> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<?x8xf32>) -> tensor<8x?xf32>
  return %0 : tensor<8x?xf32>
}

// -----

// [b, m, n] -> [b, n, m] on f16, and outer axes permuted as well ([1, 0, 3, 2]).
// CHECK-LABEL: func.func @autofuse_pointwise_0_Transpose
// CHECK: "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1, 2], ["s0", "7", "5"], ["35", "1", "7"]>}
func.func @batched_021(%x: tensor<?x5x7xf16>) -> tensor<?x7x5xf16> {
  %0 = "ascend.transpose"(%x) {perm = [0, 2, 1]} : (tensor<?x5x7xf16>) -> tensor<?x7x5xf16>
  return %0 : tensor<?x7x5xf16>
}

// -----

// CHECK-LABEL: func.func @autofuse_pointwise_0_Transpose
// CHECK: "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1, 2, 3], ["4", "3", "6", "5"], ["30", "120", "1", "6"]>}
func.func @outer_and_inner(%x: tensor<3x4x5x6xf32>) -> tensor<4x3x6x5xf32> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0, 3, 2]} : (tensor<3x4x5x6xf32>) -> tensor<4x3x6x5xf32>
  return %0 : tensor<4x3x6x5xf32>
}

// -----

// Any other move of the innermost axis is a load too (the schedule orders the loop nest
// so that the operand's contiguous dim is the second innermost loop, then transposes in
// UB); types the UB Transpose is not used for stay graph ops.
// CHECK-LABEL: func.func @moves_innermost_far
// CHECK: call @autofuse_pointwise_0_Transpose(%arg0)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Transpose
// CHECK: "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1, 2], ["8", "3", "2"], ["1", "8", "24"]>}
func.func @moves_innermost_far(%x: tensor<2x3x8xf32>) -> tensor<8x3x2xf32> {
  %0 = "ascend.transpose"(%x) {perm = [2, 1, 0]} : (tensor<2x3x8xf32>) -> tensor<8x3x2xf32>
  return %0 : tensor<8x3x2xf32>
}

// -----

// bf16 moves as the 16-bit patterns of f16 (a transpose only moves bits).
// CHECK-LABEL: func.func @moves_innermost_bf16
// CHECK: call @autofuse_pointwise_0_Transpose(%arg0)
func.func @moves_innermost_bf16(%x: tensor<?x8xbf16>) -> tensor<8x?xbf16> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<?x8xbf16>) -> tensor<8x?xbf16>
  return %0 : tensor<8x?xbf16>
}

// -----

// CHECK-LABEL: func.func @moves_innermost_i32
// CHECK: "ascend.transpose"
// CHECK-NOT: call @
func.func @moves_innermost_i32(%x: tensor<?x8xi32>) -> tensor<8x?xi32> {
  // expected-remark@+1 {{AF-LW001 not lowered: a transpose of i32 that moves the innermost axis is not lowered (the UB Transpose is used for f32, f16 and bf16 only)}}
  %0 = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<?x8xi32>) -> tensor<8x?xi32>
  return %0 : tensor<8x?xi32>
}
