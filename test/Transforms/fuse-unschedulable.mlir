// RUN: %autofuse-opt %s --infer-symbolic-shapes --lower-to-ascir --fuse=lifting=false 2>&1 | FileCheck %s
// RUN: %autofuse-opt %s --infer-symbolic-shapes --lower-to-ascir --fuse=lifting=false,target=ascend950 2>&1 | FileCheck %s
// RUN: not %autofuse-opt %s --lower-to-ascir --fuse=target=ascend310 2>&1 | FileCheck %s --check-prefix=BADTARGET
// AF-NF011: fusion asks the schedule whether it can express the fused kernel and
// refuses the pair when not, with the schedule's own reason. Here an int64 attention
// mask cast to bool and flattened (BERT's export): the fused kernel would carry the
// int64 values through the flattening view, which the schedule does not express, so
// before this rule the whole kernel was left to the interpreter (AF-SC001).

// CHECK: remark: AF-NF011 unschedulable: autofuse_pointwise_0_Cast and autofuse_pointwise_1_Reshape not fused: 64-bit element types are not scheduled
// CHECK-LABEL: func.func @mask_flat
// CHECK: %[[MASK:.*]] = call @autofuse_pointwise_0_Cast(%arg0)
// CHECK: call @autofuse_pointwise_1_Reshape(%[[MASK]])
// BADTARGET: unknown target 'ascend310'
func.func @mask_flat(%m: tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>) -> tensor<?xi1, #ascend.dims<["batch*seq"]>> {
  %0 = "ascend.cast"(%m) : (tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>) -> tensor<?x?xi1, #ascend.dims<["batch", "seq"]>>
  %1 = "ascend.reshape"(%0) : (tensor<?x?xi1, #ascend.dims<["batch", "seq"]>>) -> tensor<?xi1, #ascend.dims<["batch*seq"]>>
  return %1 : tensor<?xi1, #ascend.dims<["batch*seq"]>>
}
