// RUN: %autofuse-opt %s --infer-symbolic-shapes --lower-to-ascir --fuse=report=%t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: %autofuse-opt %s --infer-symbolic-shapes --lower-to-ascir --fuse=lifting=false | FileCheck %s --check-prefix=KEPT
// Kernels that hold one op after fusion go back to that ascend op (GE's lifting), with
// the attributes read back from the kernel; their AscGraphs are removed. With
// lifting=false they stay calls. (The four ops share no tensor, so nothing fuses.)

// CHECK-LABEL: func.func @lone_ops
// CHECK: "ascend.reduce_sum"(%arg0) {axes = [1], keep_dims = false} : (tensor<?x8x4xf32, #ascend.dims<["s0", "8", "4"]>>) -> tensor<?x4xf32, #ascend.dims<["s0", "4"]>>
// CHECK: "ascend.leaky_relu"(%arg1) {alpha = 2.000000e-01 : f32}
// CHECK: "ascend.unsqueeze"(%arg2) {axes = [0]} : (tensor<8xf32>) -> tensor<1x8xf32>
// CHECK: "ascend.cast"(%arg3) : (tensor<8xf32>) -> tensor<8xf16>
// CHECK-NOT: call
// CHECK-NOT: func.func @autofuse
// REPORT: "lifted_to": "ascend.reduce_sum"
// REPORT: "lifted_to": "ascend.leaky_relu"
// REPORT: "lifted_to": "ascend.unsqueeze"
// REPORT: "lifted_to": "ascend.cast"
// REPORT: "kernels_after": 0,
// REPORT-NEXT: "kernels_before": 4,
// REPORT-NEXT: "lifted": 4,
// REPORT: "unfused_for_lifting": []
// KEPT: call @autofuse_reduce_0_ReduceSum(%arg0)
// KEPT: call @autofuse_pointwise_1_LeakyRelu(%arg1)
// KEPT: call @autofuse_pointwise_2_Unsqueeze(%arg2)
// KEPT: call @autofuse_pointwise_3_Cast(%arg3)
func.func @lone_ops(%x: tensor<?x8x4xf32>, %y: tensor<8xf32>, %z: tensor<8xf32>, %w: tensor<8xf32>) -> (tensor<?x4xf32>, tensor<8xf32>, tensor<1x8xf32>, tensor<8xf16>) {
  %0 = "ascend.reduce_sum"(%x) {axes = [1], keep_dims = false} : (tensor<?x8x4xf32>) -> tensor<?x4xf32>
  %1 = "ascend.leaky_relu"(%y) {alpha = 0.2 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "ascend.unsqueeze"(%z) {axes = [0]} : (tensor<8xf32>) -> tensor<1x8xf32>
  %3 = "ascend.cast"(%w) : (tensor<8xf32>) -> tensor<8xf16>
  return %0, %1, %2, %3 : tensor<?x4xf32>, tensor<8xf32>, tensor<1x8xf32>, tensor<8xf16>
}

// A fused kernel with one compute op (reshape + exp) is split and lifted too; the
// report names it.
// CHECK-LABEL: func.func @view_and_one_op
// CHECK: %[[R:.*]] = "ascend.reshape"(%arg0)
// CHECK: "ascend.exp"(%[[R]])
// CHECK-NOT: call
// REPORT: "unfused_for_lifting": [
// REPORT-NEXT: "autofuse_pointwise_4_Reshape_Exp"
// KEPT: call @autofuse_pointwise_4_Reshape_Exp(%arg0)
func.func @view_and_one_op(%x: tensor<4x6xf32>) -> tensor<24xf32> {
  %0 = "ascend.reshape"(%x) : (tensor<4x6xf32>) -> tensor<24xf32>
  %1 = "ascend.exp"(%0) : (tensor<24xf32>) -> tensor<24xf32>
  return %1 : tensor<24xf32>
}
