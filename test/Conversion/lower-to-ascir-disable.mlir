// RUN: %autofuse-opt %s --infer-symbolic-shapes "--lower-to-ascir=disable='slice,gather'" --verify-diagnostics | FileCheck %s
// RUN: not %autofuse-opt %s "--lower-to-ascir=disable=tile" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// GE's disable list: the named structural ops stay graph ops (AF-LW005); the others lower.
// CHECK-LABEL: func.func @d
// CHECK: "ascend.slice"
// CHECK: "ascend.gather"
// CHECK: call @autofuse_pointwise_{{[0-9]+}}_Concat
// BAD: error: option 'disable' names 'tile'; it takes slice, concat, gather, transpose, pad
func.func @d(%x: tensor<4x16xf32>, %t: tensor<10x16xf32>, %i: tensor<3xi32>, %y: tensor<4x2xf32>) -> (tensor<4x8xf32>, tensor<3x16xf32>, tensor<4x18xf32>) {
  // expected-remark@+1 {{AF-LW005 not lowered: 'slice' is in the disable list of --lower-to-ascir}}
  %0 = "ascend.slice"(%x) {starts = [8], ends = [16], axes = [1], steps = [1]} : (tensor<4x16xf32>) -> tensor<4x8xf32>
  // expected-remark@+1 {{AF-LW005 not lowered: 'gather' is in the disable list of --lower-to-ascir}}
  %1 = "ascend.gather"(%t, %i) {axis = 0 : i64} : (tensor<10x16xf32>, tensor<3xi32>) -> tensor<3x16xf32>
  %2 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<4x16xf32>, tensor<4x2xf32>) -> tensor<4x18xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<3x16xf32>, tensor<4x18xf32>
}
