// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir=remarks=false --fuse --verify-diagnostics | FileCheck %s
// Transposes that swap the two innermost axes are loads whose data view has stride 1 on
// the second-to-last loop axis (the kernel transposes 2-D blocks in UB); they fuse only
// vertically with pointwise kernels (AF-NF008), and never so that a store transposes.

// transpose + add: one kernel over the result's nest.
// CHECK-LABEL: func.func @transpose_add
// CHECK: call @autofuse_pointwise_0_Transpose_Add(%arg0, %arg1)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Transpose_Add
// CHECK: "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1], ["4096", "1024"], ["1", "4096"]>}
// CHECK: "ascir.add"
// CHECK: "ascir.store"({{.*}}view = #ascir.view<[0, 1], ["4096", "1024"], ["1024", "1"]>}
func.func @transpose_add(%x: tensor<1024x4096xf32>, %y: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<1024x4096xf32>) -> tensor<4096x1024xf32>
  %1 = "ascend.add"(%0, %y) : (tensor<4096x1024xf32>, tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  return %1 : tensor<4096x1024xf32>
}

// -----

// A pointwise producer: the merged nest is the transpose's (the result's), so exp runs
// on the transposed tile, x is read through the swapped view and the store stays
// contiguous.
// CHECK-LABEL: func.func @exp_transpose_add
// CHECK: call @autofuse_pointwise_0_Exp_Transpose_Add(%arg0, %arg1)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Exp_Transpose_Add
// CHECK: "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1], ["s1", "s0"], ["1", "s1"]>}
// CHECK: "ascir.exp"
// CHECK: "ascir.add"
// CHECK: "ascir.store"({{.*}}view = #ascir.view<[0, 1], ["s1", "s0"], ["s0", "1"]>}
func.func @exp_transpose_add(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "ascend.exp"(%x) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = "ascend.transpose"(%0) {perm = [1, 0]} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = "ascend.add"(%1, %y) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}

// -----

// The producer's value is also returned: fusing would store it through the transposed
// view, so the pair is refused (exp is lifted back to a graph op).
// CHECK-LABEL: func.func @producer_returned
// CHECK: "ascend.exp"
// CHECK: call @autofuse_pointwise_1_Abs_Transpose_Add
func.func @producer_returned(%x: tensor<?x40xf32>, %y: tensor<40x?xf32>) -> (tensor<?x40xf32>, tensor<40x?xf32>) {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_0_Exp lifted back to ascend.exp}}
  // expected-remark@+1 {{AF-NF008 transpose-pattern: autofuse_pointwise_0_Exp and autofuse_pointwise_1_Abs_Transpose_Add not fused: the fused kernel would store value %3 with a transposed GM view (only loads transpose)}}
  %0 = "ascend.exp"(%x) : (tensor<?x40xf32>) -> tensor<?x40xf32>
  // expected-remark@+1 {{AF-NF008 transpose-pattern: autofuse_pointwise_0_Exp and autofuse_pointwise_1_Abs_Transpose_Add not fused: the fused kernel would store value %3 with a transposed GM view (only loads transpose)}}
  %1 = "ascend.abs"(%0) : (tensor<?x40xf32>) -> tensor<?x40xf32>
  %2 = "ascend.transpose"(%1) {perm = [1, 0]} : (tensor<?x40xf32>) -> tensor<40x?xf32>
  %3 = "ascend.add"(%2, %y) : (tensor<40x?xf32>, tensor<40x?xf32>) -> tensor<40x?xf32>
  return %0, %3 : tensor<?x40xf32>, tensor<40x?xf32>
}

// -----

// [b, m, n] -> [b, n, m] + reduction: no transpose + reduce (both lifted back).
// CHECK-LABEL: func.func @transpose_reduce
// CHECK: "ascend.transpose"(%arg0) {perm = [0, 2, 1]}
// CHECK: "ascend.reduce_sum"
func.func @transpose_reduce(%x: tensor<4x6x24xf16>) -> tensor<4x24x1xf16> {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_0_Transpose lifted back to ascend.transpose}}
  // expected-remark@+1 {{AF-NF008 transpose-pattern: autofuse_pointwise_0_Transpose and autofuse_reduce_1_ReduceSum not fused: autofuse_reduce_1_ReduceSum holds a reduction (a transpose fuses only with pointwise ops)}}
  %0 = "ascend.transpose"(%x) {perm = [0, 2, 1]} : (tensor<4x6x24xf16>) -> tensor<4x24x6xf16>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_reduce_1_ReduceSum lifted back to ascend.reduce_sum}}
  // expected-remark@+1 {{AF-NF008 transpose-pattern: autofuse_pointwise_0_Transpose and autofuse_reduce_1_ReduceSum not fused: autofuse_reduce_1_ReduceSum holds a reduction (a transpose fuses only with pointwise ops)}}
  %1 = "ascend.reduce_sum"(%0) {axes = [2], keep_dims = true} : (tensor<4x24x6xf16>) -> tensor<4x24x1xf16>
  return %1 : tensor<4x24x1xf16>
}
