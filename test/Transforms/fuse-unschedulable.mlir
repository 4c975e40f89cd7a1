// RUN: %autofuse-opt %s --infer-symbolic-shapes --lower-to-ascir --fuse=lifting=false 2>&1 | FileCheck %s
// RUN: %autofuse-opt %s --infer-symbolic-shapes --lower-to-ascir --fuse=lifting=false,target=ascend950 2>&1 | FileCheck %s
// RUN: not %autofuse-opt %s --lower-to-ascir --fuse=target=ascend310 2>&1 | FileCheck %s --check-prefix=BADTARGET
// AF-NF011: fusion asks the schedule whether it can express the fused kernel and
// refuses the pair when not, with the schedule's own reason. Here two selects of int64
// data where one reads the other (the sign mask of an exported int64 BitShift): each
// alone only moves bits between its loads and its store, but fused the inner select's
// int64 result would be a vector operand of the outer one, which the schedule does not
// express; before this rule the fused kernel was left to the interpreter (AF-SC001).
// The int64 attention mask cast to bool and flattened (BERT's export) was the example
// before int64 -> bool casts went through f32: it now fuses into one kernel.

// CHECK: remark: AF-NF011 unschedulable: autofuse_pointwise_0_Select and autofuse_pointwise_1_Select not fused: 64-bit element types are not scheduled
// CHECK-LABEL: func.func @select_chain
// CHECK: %[[INNER:.*]] = call @autofuse_pointwise_0_Select(%arg0, %arg2, %arg3)
// CHECK: call @autofuse_pointwise_1_Select(%arg1, %[[INNER]], %arg4)
// CHECK-LABEL: func.func @mask_flat
// CHECK: call @autofuse_pointwise_{{[0-9]+}}_Cast_Reshape(%arg0)
// CHECK-NOT: AF-NF011
// BADTARGET: unknown target 'ascend310'
func.func @select_chain(%c: tensor<4x8xi1>, %d: tensor<4x8xi1>, %x: tensor<4x8xi64>, %y: tensor<4x8xi64>, %z: tensor<4x8xi64>) -> tensor<4x8xi64> {
  %0 = "ascend.select"(%c, %x, %y) : (tensor<4x8xi1>, tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
  %1 = "ascend.select"(%d, %0, %z) : (tensor<4x8xi1>, tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
  return %1 : tensor<4x8xi64>
}

func.func @mask_flat(%m: tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>) -> tensor<?xi1, #ascend.dims<["batch*seq"]>> {
  %0 = "ascend.cast"(%m) : (tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>) -> tensor<?x?xi1, #ascend.dims<["batch", "seq"]>>
  %1 = "ascend.reshape"(%0) : (tensor<?x?xi1, #ascend.dims<["batch", "seq"]>>) -> tensor<?xi1, #ascend.dims<["batch*seq"]>>
  return %1 : tensor<?xi1, #ascend.dims<["batch*seq"]>>
}
