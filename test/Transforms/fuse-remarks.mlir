// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir=remarks=false --fuse --verify-diagnostics | FileCheck %s
// Refused pairs get a remark with a stable reason code at both kernels (docs/fusion.md);
// kernels left with one op are lifted back to graph ops.

// AF-NF001: the two consumers read different results of one producer (an external
// call) and share no tensor.
// CHECK-LABEL: func.func @no_shared_buffer
// CHECK: "ascend.exp"
// CHECK: "ascend.abs"
func.func private @top2(tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
func.func @no_shared_buffer(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a, %b = call @top2(%x) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_0_Exp lifted back to ascend.exp}}
  // expected-remark@+1 {{AF-NF001 no-shared-buffer: autofuse_pointwise_0_Exp and autofuse_pointwise_1_Abs not fused: they read different results of a common producer and share no tensor}}
  %c = "ascend.exp"(%a) : (tensor<8xf32>) -> tensor<8xf32>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_1_Abs lifted back to ascend.abs}}
  // expected-remark@+1 {{AF-NF001 no-shared-buffer: autofuse_pointwise_0_Exp and autofuse_pointwise_1_Abs not fused}}
  %d = "ascend.abs"(%b) : (tensor<8xf32>) -> tensor<8xf32>
  return %c, %d : tensor<8xf32>, tensor<8xf32>
}

// -----

// AF-NF002: exp feeds add directly and through matmul; fusing them would put the
// matmul inside a cycle.
// CHECK-LABEL: func.func @cycle
// CHECK: "ascend.exp"
// CHECK: "ascend.matmul"
// CHECK: "ascend.add"
func.func @cycle(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_0_Exp lifted back to ascend.exp}}
  // expected-remark@+1 {{AF-NF002 cycle: autofuse_pointwise_0_Exp and autofuse_pointwise_1_Add not fused: a path from one to the other passes through 'ascend.matmul'}}
  %e = "ascend.exp"(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = "ascend.matmul"(%e, %w) {transpose_a = false, transpose_b = false} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_1_Add lifted back to ascend.add}}
  // expected-remark@+1 {{AF-NF002 cycle}}
  %s = "ascend.add"(%e, %m) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

// AF-NF005: the reshape kernel reads [6, 4] as [4, 6]: neither row length divides the
// other, so no loop nest walks both (a reshape that merges or splits dims refines the
// axes instead: fuse-reshape.mlir); the reshape still fuses with the exp and neg after it.
// CHECK-LABEL: func.func @axis_mismatch
// CHECK: %[[A:.*]] = "ascend.abs"
// CHECK: call @autofuse_pointwise_1_Reshape_Exp_Neg(%[[A]])
func.func @axis_mismatch(%x: tensor<6x4xf32>) -> tensor<4x6xf32> {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_0_Abs lifted back to ascend.abs}}
  // expected-remark@+1 {{AF-NF005 axis-mismatch: autofuse_pointwise_0_Abs and autofuse_pointwise_1_Reshape_Exp_Neg not fused: through the shared tensor tensor<6x4xf32>: a loop axis of extent 4 and stride 6 walks no dim of the 2-d tensor [6, 4]}}
  %0 = "ascend.abs"(%x) : (tensor<6x4xf32>) -> tensor<6x4xf32>
  // expected-remark@+1 {{AF-NF005 axis-mismatch}}
  %1 = "ascend.reshape"(%0) : (tensor<6x4xf32>) -> tensor<4x6xf32>
  %2 = "ascend.exp"(%1) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %3 = "ascend.neg"(%2) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %3 : tensor<4x6xf32>
}

// -----

// AF-NF005: the row sum over s1 and an add over [s0, s2] have loop nests where each
// has an axis the other lacks (s1 and s2 are not known to be equal; see
// fuse-hints.mlir for the same graph with hints).
// CHECK-LABEL: func.func @unrelated_axes
// CHECK: "ascend.reduce_sum"
// CHECK: "ascend.add"
func.func @unrelated_axes(%x: tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>, %w: tensor<?x?xf32, #ascend.dims<["s0", "s2"]>>) -> tensor<?x?xf32, #ascend.dims<["s0", "s2"]>> {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_reduce_0_ReduceSum lifted back to ascend.reduce_sum}}
  // expected-remark@+1 {{AF-NF005 axis-mismatch: autofuse_reduce_0_ReduceSum and autofuse_pointwise_1_Add not fused: the loop nests (z0:s0, z1:s1) and (z0:s0, z1:s2) do not map onto one}}
  %0 = "ascend.reduce_sum"(%x) {axes = [1], keep_dims = true} : (tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>) -> tensor<?x1xf32, #ascend.dims<["s0", "1"]>>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_1_Add lifted back to ascend.add}}
  // expected-remark@+1 {{AF-NF005 axis-mismatch}}
  %1 = "ascend.add"(%0, %w) : (tensor<?x1xf32, #ascend.dims<["s0", "1"]>>, tensor<?x?xf32, #ascend.dims<["s0", "s2"]>>) -> tensor<?x?xf32, #ascend.dims<["s0", "s2"]>>
  return %1 : tensor<?x?xf32, #ascend.dims<["s0", "s2"]>>
}

// -----

// AF-NF006: a row sum then a column max of the result reduce different axes of one
// loop nest. Both are lifted back with their attributes.
// CHECK-LABEL: func.func @tiling_groups
// CHECK: "ascend.reduce_sum"(%arg0) {axes = [1], keep_dims = true}
// CHECK: "ascend.reduce_max"(%{{.*}}) {axes = [0], keep_dims = true}
func.func @tiling_groups(%x: tensor<?x8xf32>) -> tensor<1x1xf32> {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_reduce_0_ReduceSum lifted back to ascend.reduce_sum}}
  // expected-remark@+1 {{AF-NF006 tiling-group-conflict: autofuse_reduce_0_ReduceSum and autofuse_reduce_1_ReduceMax not fused: tiling groups ()(z0)(z1) and ()(z1)(z0) do not merge: the reductions reduce different axes}}
  %0 = "ascend.reduce_sum"(%x) {axes = [1], keep_dims = true} : (tensor<?x8xf32>) -> tensor<?x1xf32>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_reduce_1_ReduceMax lifted back to ascend.reduce_max}}
  // expected-remark@+1 {{AF-NF006 tiling-group-conflict}}
  %1 = "ascend.reduce_max"(%0) {axes = [0], keep_dims = true} : (tensor<?x1xf32>) -> tensor<1x1xf32>
  return %1 : tensor<1x1xf32>
}
