// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir --verify-diagnostics -o /dev/null
// RUN: %autofuse-run -v %S/Inputs/gather_elements_exp.mlir --symbols s0=3 --symbols s0=50 | FileCheck %s --check-prefix=ELEMENTS

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

// -----

// gather_elements: the loop nest is the indices' (the data's rank); the table keeps its
// strides except on the gathered axis (stride 0: the index picks the element there), the
// index tile is whole and the gather picks one element per index.
// CHECK-LABEL: func.func @autofuse_pointwise_0_GatherElements
// CHECK: %[[T:.*]] = "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1], ["s0", "1"], ["7", "0"]>}
// CHECK: %[[I:.*]] = "ascir.data"(%arg1) {index = 1 : i64, view = #ascir.view<[0, 1], ["s0", "3"], ["3", "1"]>}
// CHECK: %[[L:.*]] = "ascir.load"(%[[I]])
// CHECK: "ascir.gather"(%[[T]], %[[L]]) {axis = 1 : i64
func.func @pick_per_row(%x: tensor<?x7xf32, #ascend.dims<["s0", "7"]>>, %idx: tensor<?x3xi64, #ascend.dims<["s0", "3"]>>) -> tensor<?x3xf32> {
  %0 = "ascend.gather_elements"(%x, %idx) {axis = 1 : i64} : (tensor<?x7xf32, #ascend.dims<["s0", "7"]>>, tensor<?x3xi64, #ascend.dims<["s0", "3"]>>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Off the gathered axis the indices may not be known to exceed the data.
// CHECK-LABEL: func.func @unknown_fit
// CHECK: "ascend.gather_elements"
func.func @unknown_fit(%x: tensor<4x?xf32>, %idx: tensor<2x?xi32>) -> tensor<2x?xf32> {
  // expected-remark@+1 {{AF-LW001 not lowered: gather_elements indices dim 1 ('s1') is not known to fit the data's ('s0')}}
  %0 = "ascend.gather_elements"(%x, %idx) {axis = 0 : i64} : (tensor<4x?xf32>, tensor<2x?xi32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// Both gather_elements kernels on the emulation, equal to the interpreter.
// ELEMENTS: kernel autofuse_pointwise_0_GatherElements_Exp: ops GatherElements,Exp
// ELEMENTS: kernel autofuse_pointwise_2_GatherElements_Abs: ops GatherElements,Abs
// ELEMENTS-COUNT-2: PASS
// ELEMENTS: model: 2 kernels in 1 launch(es) (0 left to the interpreter) | 0 boundary ops
