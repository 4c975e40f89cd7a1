// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir --verify-diagnostics -o /dev/null

// A binary op with a broadcast operand: data/load per operand, one single-axis
// broadcast after the load, the op, store and output, all over one loop nest.
// CHECK-LABEL: func.func @binary
// CHECK: %[[R:.*]] = call @autofuse_pointwise_0_Add(%arg0, %arg1)
// CHECK: return %[[R]]
// CHECK-LABEL: func.func @autofuse_pointwise_0_Add
// CHECK-SAME: ascir.axes = [#ascir.axis<0 : i64, "z0", "s0", "original", []>, #ascir.axis<1 : i64, "z1", "16", "original", []>]
// CHECK-SAME: ascir.ops = ["Add"], ascir.sizes = ["s0"]
// CHECK: %[[D0:.*]] = "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>}
// CHECK: %[[L0:.*]] = "ascir.load"(%[[D0]])
// CHECK: %[[D1:.*]] = "ascir.data"(%arg1) {index = 1 : i64, view = #ascir.view<[0, 1], ["1", "16"], ["0", "1"]>}
// CHECK: %[[L1:.*]] = "ascir.load"(%[[D1]]) {offset = "0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["1", "16"], ["0", "1"]>}
// CHECK: %[[B:.*]] = "ascir.broadcast"(%[[L1]]) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>}
// CHECK: %[[A:.*]] = "ascir.add"(%[[L0]], %[[B]])
// CHECK: %[[S:.*]] = "ascir.store"(%[[A]])
// CHECK: %[[O:.*]] = "ascir.output"(%[[S]]) {index = 0 : i64
// CHECK: return %[[O]]
func.func @binary(%x: tensor<?x16xf32>, %b: tensor<16xf32>) -> tensor<?x16xf32> {
  %0 = "ascend.add"(%x, %b) : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// Unary, compare, select and cast lower; compares produce i1 nodes.
// CHECK-LABEL: func.func @families
// CHECK: call @autofuse_pointwise_0_Exp
// CHECK: call @autofuse_pointwise_1_Gt
// CHECK: call @autofuse_pointwise_2_Select
// CHECK: call @autofuse_pointwise_3_Cast
// CHECK: call @autofuse_pointwise_4_LeakyRelu
// CHECK-LABEL: func.func @autofuse_pointwise_1_Gt
// CHECK: "ascir.gt"({{.*}}) -> tensor<8xi1>
// CHECK-LABEL: func.func @autofuse_pointwise_2_Select
// CHECK: "ascir.select"({{.*}}) {{.*}} : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-LABEL: func.func @autofuse_pointwise_3_Cast
// CHECK: "ascir.cast"({{.*}}) {{.*}} : (tensor<8xf32>) -> tensor<8xf16>
// CHECK-LABEL: func.func @autofuse_pointwise_4_LeakyRelu
// CHECK: "ascir.leaky_relu"({{.*}}) {alpha = 2.000000e-01 : f32
func.func @families(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf16>, tensor<8xf32>) {
  %0 = "ascend.exp"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "ascend.gt"(%0, %y) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %2 = "ascend.select"(%1, %0, %y) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = "ascend.cast"(%2) : (tensor<8xf32>) -> tensor<8xf16>
  %4 = "ascend.leaky_relu"(%2) {alpha = 0.2 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  return %3, %4 : tensor<8xf16>, tensor<8xf32>
}

// -----

// Reductions keep dims: the reduced axis has repeat 1 and stride 0; an f16 sum
// accumulates in f32 between two casts.
// CHECK-LABEL: func.func @autofuse_reduce_0_ReduceSum
// CHECK: %[[C:.*]] = "ascir.cast"(%{{.*}}) {{.*}} -> tensor<?x?xf32>
// CHECK: %[[S:.*]] = "ascir.sum"(%[[C]]) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>} : (tensor<?x?xf32>) -> tensor<?x1xf32>
// CHECK: "ascir.cast"(%[[S]]) {{.*}} -> tensor<?x1xf16>
// CHECK: "ascir.output"{{.*}} -> tensor<?xf16, #ascend.dims<["s0"]>>
func.func @reduce(%x: tensor<?x?xf16>) -> tensor<?xf16> {
  %0 = "ascend.reduce_sum"(%x) {axes = [1], keep_dims = false} : (tensor<?x?xf16>) -> tensor<?xf16>
  return %0 : tensor<?xf16>
}

// -----

// bf16 arithmetic goes through f32 on the v1 chip.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Mul
// CHECK: "ascir.cast"{{.*}} -> tensor<4xf32>
// CHECK: "ascir.cast"{{.*}} -> tensor<4xf32>
// CHECK: "ascir.mul"{{.*}} -> tensor<4xf32>
// CHECK: "ascir.cast"{{.*}} -> tensor<4xbf16>
func.func @bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = "ascend.mul"(%x, %x) : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// broadcast_to and reshape need no compute node; a reshape reads the operand's bytes
// under the result's shape.
// CHECK-LABEL: func.func @autofuse_pointwise_0_BroadcastTo
// CHECK: "ascir.load"
// CHECK-NEXT: "ascir.broadcast"{{.*}}view = #ascir.view<[0, 1], ["3", "4"], ["4", "1"]>
// CHECK-NEXT: "ascir.store"
// CHECK-LABEL: func.func @autofuse_pointwise_1_Reshape
// CHECK: "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0], ["12"], ["1"]>}
// CHECK-NEXT: "ascir.load"
// CHECK-NEXT: "ascir.store"
func.func @views(%x: tensor<1x4xf32>) -> tensor<12xf32> {
  %0 = "ascend.broadcast_to"(%x) : (tensor<1x4xf32>) -> tensor<3x4xf32>
  %1 = "ascend.reshape"(%0) : (tensor<3x4xf32>) -> tensor<12xf32>
  return %1 : tensor<12xf32>
}

// -----

// Ops without a lowering stay in the graph with a reason-coded remark; constants stay
// silently (they become kernel inputs).
// CHECK-LABEL: func.func @kept
// CHECK: "ascend.constant"
// CHECK: "ascend.matmul"
// CHECK: "ascend.transpose"
// CHECK: call @autofuse_pointwise_0_Abs
// CHECK: "ascend.softmax"
// CHECK: "ascend.abs"
// CHECK: call @autofuse_pointwise_1_Add
func.func @kept(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %i: tensor<4xi64>, %a16: tensor<4x8xi32>) -> (tensor<4x4xf32>, tensor<4xi64>, tensor<8x4xi32>) {
  %c = "ascend.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  // expected-remark@+1 {{AF-LW002 not lowered: 'matmul' is a boundary op and runs as a library kernel}}
  %0 = "ascend.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  // expected-remark@+1 {{AF-LW001 not lowered: a transpose of i32 that moves the innermost axis is not lowered (the UB Transpose is used for f32, f16 and bf16 only)}}
  %t = "ascend.transpose"(%a16) {perm = [1, 0]} : (tensor<4x8xi32>) -> tensor<8x4xi32>
  %1 = "ascend.abs"(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-remark@+1 {{AF-LW001 not lowered: composite 'softmax' must be decomposed first (--decompose)}}
  %2 = "ascend.softmax"(%1) {axis = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-remark@+1 {{AF-LW003 not lowered: 'abs' on i64 is not computable on the vector unit of ascend910b}}
  %3 = "ascend.abs"(%i) : (tensor<4xi64>) -> tensor<4xi64>
  %4 = "ascend.add"(%2, %c) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %4, %3, %t : tensor<4x4xf32>, tensor<4xi64>, tensor<8x4xi32>
}

// -----

// A cast that widens to i64 is lowered (one Cast that only the store reads), but i64
// arithmetic is not: the vector unit has no 64-bit integers.
// CHECK-LABEL: func.func @widen_to_i64
// CHECK: call @autofuse_pointwise_0_Cast(%arg0) : (tensor<4xi32>) -> tensor<4xi64>
// CHECK: "ascend.add"
// CHECK-LABEL: func.func @autofuse_pointwise_0_Cast
// CHECK: "ascir.cast"({{.*}}) {{.*}} : (tensor<4xi32>) -> tensor<4xi64>
func.func @widen_to_i64(%i: tensor<4xi32>) -> tensor<4xi64> {
  %0 = "ascend.cast"(%i) : (tensor<4xi32>) -> tensor<4xi64>
  // expected-remark@+1 {{AF-LW003 not lowered: 'add' on i64 is not computable on the vector unit of ascend910b}}
  %1 = "ascend.add"(%0, %0) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %1 : tensor<4xi64>
}

// -----

// A select of i64 data is lowered when each branch is a tile of the result's shape or
// a constant holding one int32 value (a scalar the kernel materializes); a branch
// broadcast from anything else (a graph value, a constant beyond int32) would need a
// broadcast of 64-bit data, which no kernel emits: the select stays a graph op.
// CHECK-LABEL: func.func @select_i64_branches
// CHECK: call @autofuse_pointwise_{{[0-9]+}}_Select(%arg0, %arg2, %{{.*}})
// CHECK-NOT: call @autofuse_pointwise_{{[0-9]+}}_Select
// CHECK: return
func.func @select_i64_branches(%c: tensor<3x50xi1>, %s: tensor<i64>, %y: tensor<3x50xi64>) -> (tensor<3x50xi64>, tensor<3x50xi64>, tensor<3x50xi64>) {
  %big = "ascend.constant"() {value = dense<1099511627776> : tensor<i64>} : () -> tensor<i64>
  %k = "ascend.constant"() {value = dense<-3> : tensor<i64>} : () -> tensor<i64>
  // expected-remark@+1 {{AF-LW003 not lowered: a select of i64 whose branch 1 is broadcast (not a constant int32 value) would broadcast 64-bit data, which no kernel does}}
  %a = "ascend.select"(%c, %s, %y) : (tensor<3x50xi1>, tensor<i64>, tensor<3x50xi64>) -> tensor<3x50xi64>
  // expected-remark@+1 {{AF-LW003 not lowered: a select of i64 whose branch 2 is broadcast (not a constant int32 value) would broadcast 64-bit data, which no kernel does}}
  %b = "ascend.select"(%c, %y, %big) : (tensor<3x50xi1>, tensor<3x50xi64>, tensor<i64>) -> tensor<3x50xi64>
  %d = "ascend.select"(%c, %y, %k) : (tensor<3x50xi1>, tensor<3x50xi64>, tensor<i64>) -> tensor<3x50xi64>
  return %a, %b, %d : tensor<3x50xi64>, tensor<3x50xi64>, tensor<3x50xi64>
}
