// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir=remarks=false --fuse --verify-diagnostics | FileCheck %s
// Concats fuse vertically with pointwise producers and consumers; GE's concat rules
// refuse the rest (AF-NF009) and the single ops are lifted back (with their axis).

// concat + relu: one kernel, the relu computes on the concatenated tile.
// CHECK-LABEL: func.func @concat_relu
// CHECK: call @autofuse_pointwise_0_Concat_Relu(%arg0, %arg1)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Concat_Relu
// CHECK: %[[C:.*]] = "ascir.concat"
// CHECK: "ascir.relu"(%[[C]])
func.func @concat_relu(%x: tensor<?x13xf32>, %y: tensor<?x7xf32>) -> tensor<?x20xf32> {
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<?x13xf32>, tensor<?x7xf32>) -> tensor<?x20xf32>
  %1 = "ascend.relu"(%0) : (tensor<?x20xf32>) -> tensor<?x20xf32>
  return %1 : tensor<?x20xf32>
}

// -----

// Pointwise producers feeding the concat compute on their part of the concat axis.
// CHECK-LABEL: func.func @producers
// CHECK: call @autofuse_pointwise_0_Exp_Abs_Concat(%arg1, %arg0)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Exp_Abs_Concat
// CHECK-SAME: ascir.axes = [#ascir.axis<0 : i64, "z0", "4", "original", []>, #ascir.axis<1 : i64, "z1", "7", "original", []>, #ascir.axis<2 : i64, "z2", "9", "original", []>]
// CHECK-DAG: "ascir.exp"({{.*}}) {sched_axis = [0, 1, 2], view = #ascir.view<[0, 1, 2], ["4", "5", "9"], ["45", "9", "1"]>}
// CHECK-DAG: "ascir.abs"({{.*}}) {sched_axis = [0, 1, 2], view = #ascir.view<[0, 1, 2], ["4", "2", "9"], ["18", "9", "1"]>}
// CHECK: "ascir.concat"
func.func @producers(%x: tensor<4x5x9xf16>, %y: tensor<4x2x9xf16>) -> tensor<4x7x9xf16> {
  %0 = "ascend.exp"(%x) : (tensor<4x5x9xf16>) -> tensor<4x5x9xf16>
  %1 = "ascend.abs"(%y) : (tensor<4x2x9xf16>) -> tensor<4x2x9xf16>
  %2 = "ascend.concat"(%0, %1) {axis = 1 : i64} : (tensor<4x5x9xf16>, tensor<4x2x9xf16>) -> tensor<4x7x9xf16>
  return %2 : tensor<4x7x9xf16>
}

// -----

// A chain of concats along one axis (an n-ary concat) is one kernel.
// CHECK-LABEL: func.func @concat_concat
// CHECK: call @autofuse_pointwise_0_Concat_Concat(%arg0, %arg1, %arg2)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Concat_Concat
// CHECK: %[[AB:.*]] = "ascir.concat"{{.*}}view = #ascir.view<[0, 1], ["4", "8"], ["8", "1"]>}
// CHECK: "ascir.concat"(%[[AB]], {{.*}}view = #ascir.view<[0, 1], ["4", "10"], ["10", "1"]>}
func.func @concat_concat(%x: tensor<4x3xf32>, %y: tensor<4x5xf32>, %z: tensor<4x2xf32>) -> tensor<4x10xf32> {
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
  %1 = "ascend.concat"(%0, %z) {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x10xf32>
  return %1 : tensor<4x10xf32>
}

// -----

// Concats along two axes do not share a kernel.
// CHECK-LABEL: func.func @two_axes
// CHECK: "ascend.concat"(%arg0, %arg1) {axis = 1 : i64}
// CHECK: "ascend.concat"
func.func @two_axes(%x: tensor<4x3x8xf32>, %y: tensor<4x5x8xf32>, %z: tensor<4x8x2xf32>) -> tensor<4x8x10xf32> {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_0_Concat lifted back to ascend.concat}}
  // expected-remark@+1 {{AF-NF009 concat-pattern: autofuse_pointwise_0_Concat and autofuse_pointwise_1_Concat not fused: the fused kernel would concatenate along two axes}}
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<4x3x8xf32>, tensor<4x5x8xf32>) -> tensor<4x8x8xf32>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_1_Concat lifted back to ascend.concat}}
  // expected-remark@+1 {{AF-NF009 concat-pattern}}
  %1 = "ascend.concat"(%0, %z) {axis = 2 : i64} : (tensor<4x8x8xf32>, tensor<4x8x2xf32>) -> tensor<4x8x10xf32>
  return %1 : tensor<4x8x10xf32>
}

// -----

// A concat feeds a reducing consumer (a norm over concatenated features) in one kernel;
// a producer's reduction does not feed a concat.
// CHECK-LABEL: func.func @concat_reduce
// CHECK: call @autofuse_reduce_0_Concat_ReduceSum(%arg0, %arg1)
// CHECK: "ascend.reduce_max"
// CHECK: "ascend.concat"
func.func @concat_reduce(%x: tensor<4x3xf32>, %y: tensor<4x5xf32>, %z: tensor<4x6xf32>, %w: tensor<4x5xf32>) -> (tensor<4x1xf32>, tensor<4x6xf32>) {
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
  %1 = "ascend.reduce_sum"(%0) {axes = [1], keep_dims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_reduce_2_ReduceMax lifted back to ascend.reduce_max}}
  // expected-remark@+1 {{AF-NF009 concat-pattern: autofuse_reduce_2_ReduceMax and autofuse_pointwise_3_Concat not fused: autofuse_reduce_2_ReduceMax holds a reduction (a concat fuses only with reducing consumers)}}
  %2 = "ascend.reduce_max"(%z) {axes = [1], keep_dims = true} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_3_Concat lifted back to ascend.concat}}
  // expected-remark@+1 {{AF-NF009 concat-pattern}}
  %3 = "ascend.concat"(%2, %w) {axis = 1 : i64} : (tensor<4x1xf32>, tensor<4x5xf32>) -> tensor<4x6xf32>
  return %1, %3 : tensor<4x1xf32>, tensor<4x6xf32>
}

// -----

// A concat absorbs consumers that broadcast (a bias over the joined axis).
// CHECK-LABEL: func.func @concat_broadcast
// CHECK: call @autofuse_pointwise_0_Concat_Add
// CHECK-LABEL: func.func @autofuse_pointwise_0_Concat_Add
// CHECK: %[[C:.*]] = "ascir.concat"
// CHECK: %[[B:.*]] = "ascir.broadcast"
// CHECK: "ascir.add"(%[[C]], %[[B]])
func.func @concat_broadcast(%x: tensor<4x3xf32>, %y: tensor<4x5xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
  %1 = "ascend.add"(%0, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A producer of a part of the concat axis may broadcast within its part (the bias
// over the rows of x; concat-row-blocks.mlir runs it, and an edge pad's repeated
// border row).
// CHECK-LABEL: func.func @producer_broadcast
// CHECK: call @autofuse_pointwise_0_Add_Concat(%arg0, %arg1, %arg2)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Add_Concat
// CHECK: %[[B:.*]] = "ascir.broadcast"
// CHECK: %[[A:.*]] = "ascir.add"({{.*}}%[[B]]
// CHECK: "ascir.concat"(%[[A]],
func.func @producer_broadcast(%x: tensor<4x3xf32>, %b: tensor<3xf32>, %y: tensor<4x5xf32>) -> tensor<4x8xf32> {
  %0 = "ascend.add"(%x, %b) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %1 = "ascend.concat"(%0, %y) {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// No horizontal fusion of a concat with a sibling.
// CHECK-LABEL: func.func @siblings
// CHECK: "ascend.concat"
// CHECK: "ascend.exp"
func.func @siblings(%x: tensor<4x3xf32>, %y: tensor<4x5xf32>) -> (tensor<4x8xf32>, tensor<4x3xf32>) {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_0_Concat lifted back to ascend.concat}}
  // expected-remark@+1 {{AF-NF009 concat-pattern: autofuse_pointwise_0_Concat and autofuse_pointwise_1_Exp not fused: a concat fuses only vertically (producer to consumer)}}
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_1_Exp lifted back to ascend.exp}}
  // expected-remark@+1 {{AF-NF009 concat-pattern}}
  %1 = "ascend.exp"(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x3xf32>
}
