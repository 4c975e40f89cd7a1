// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir --verify-diagnostics -o /dev/null

// An embedding lookup: the loop nest is the result's ([ids dims] + [row]); the ids are
// a tile over their own axes (repeat 1 on the row axis), the table stays in GM (stride 0
// on the id axes: the index picks the row) and ascir.gather copies the rows.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Gather
// CHECK: %[[T:.*]] = "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1, 2], ["1", "1", "64"], ["0", "0", "1"]>}
// CHECK: %[[I:.*]] = "ascir.data"(%arg1) {index = 1 : i64, view = #ascir.view<[0, 1, 2], ["b", "s", "1"], ["s", "1", "0"]>}
// CHECK: %[[L:.*]] = "ascir.load"(%[[I]])
// CHECK: %[[G:.*]] = "ascir.gather"(%[[T]], %[[L]]) {axis = 0 : i64, sched_axis = [0, 1, 2], view = #ascir.view<[0, 1, 2], ["b", "s", "64"], ["64*s", "64", "1"]>}
// CHECK: "ascir.store"(%[[G]])
func.func @embedding(%table: tensor<1000x64xf32>, %ids: tensor<?x?xi32, #ascend.dims<["b", "s"]>>) -> tensor<?x?x64xf32> {
  %0 = "ascend.gather"(%table, %ids) {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<?x?xi32, #ascend.dims<["b", "s"]>>) -> tensor<?x?x64xf32>
  return %0 : tensor<?x?x64xf32>
}

// -----

// A middle axis: the outer and inner table dims keep their strides.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Gather
// CHECK: "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1, 2], ["4", "1", "8"], ["80", "0", "1"]>}
// CHECK: "ascir.data"(%arg1) {index = 1 : i64, view = #ascir.view<[0, 1, 2], ["1", "3", "1"], ["0", "1", "0"]>}
func.func @middle(%x: tensor<4x10x8xf16>, %ids: tensor<3xi32>) -> tensor<4x3x8xf16> {
  %0 = "ascend.gather"(%x, %ids) {axis = 1 : i64} : (tensor<4x10x8xf16>, tensor<3xi32>) -> tensor<4x3x8xf16>
  return %0 : tensor<4x3x8xf16>
}

// -----

// Along the innermost axis (single elements) and with i64 indices (read by the scalar
// unit only, so they stay i64 in UB) gathers lower too.
// CHECK-LABEL: func.func @innermost_and_i64
// CHECK: call @autofuse_pointwise_{{[0-9]+}}_Gather(%arg0, %arg1)
// CHECK: call @autofuse_pointwise_{{[0-9]+}}_Gather(%arg0, %arg2)
// CHECK-LABEL: func.func @autofuse_pointwise_1_Gather
// CHECK: "ascir.load"({{.*}}) -> tensor<3x1xi64>
func.func @innermost_and_i64(%x: tensor<4x10xf32>, %i: tensor<3xi32>, %j: tensor<3xi64>) -> (tensor<4x3xf32>, tensor<3x10xf32>) {
  %0 = "ascend.gather"(%x, %i) {axis = 1 : i64} : (tensor<4x10xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  %1 = "ascend.gather"(%x, %j) {axis = 0 : i64} : (tensor<4x10xf32>, tensor<3xi64>) -> tensor<3x10xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<3x10xf32>
}
