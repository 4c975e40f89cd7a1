// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir "--fuse=disable=reduce lifting=false" 2>/dev/null | FileCheck %s
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir "--fuse=disable=reduce lifting=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --fuse 2>/dev/null | FileCheck %s --check-prefix=ON
// RUN: not %autofuse-opt %s --infer-symbolic-shapes --lower-to-ascir "--fuse=disable=tile" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// GE's disable list at the fusion level: the reduction stays a kernel of its own (its
// producer and consumer still fuse with anything else), every refusal says why.
// CHECK-LABEL: func.func @norm
// CHECK-NEXT: call @autofuse_pointwise_0_Exp(
// CHECK-NEXT: call @autofuse_reduce_1_ReduceSum(
// CHECK-NEXT: call @autofuse_pointwise_2_Div(
// REMARK: remark: AF-NF010 kind-disabled: autofuse_pointwise_0_Exp and autofuse_reduce_1_ReduceSum not fused: 'autofuse_reduce_1_ReduceSum' holds a reduce op and the disable option names reduce
// Without the option the three are one kernel.
// ON-LABEL: func.func @norm
// ON-NEXT: call @autofuse_reduce_{{[0-9]+}}_Exp_ReduceSum_Div(
// BAD: error: option 'disable' names 'tile'; it takes reduce, concat, transpose, gather, slice, pad
func.func @norm(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %e = "ascend.exp"(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %s = "ascend.reduce_sum"(%e) {axes = [1], keep_dims = true} : (tensor<?x64xf32>) -> tensor<?x1xf32>
  %d = "ascend.div"(%e, %s) : (tensor<?x64xf32>, tensor<?x1xf32>) -> tensor<?x64xf32>
  return %d : tensor<?x64xf32>
}
