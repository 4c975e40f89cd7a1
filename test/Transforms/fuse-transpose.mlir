// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir=remarks=false --fuse --verify-diagnostics | FileCheck %s
// Transposes that keep the innermost axis are loads with permuted strides; they fuse
// only vertically with pointwise kernels (GE's transpose strategy, AF-NF008).

// transpose + add: one kernel; x is read through the permuted view.
// CHECK-LABEL: func.func @transpose_add
// CHECK: call @autofuse_pointwise_0_Transpose_Add(%arg0, %arg1)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Transpose_Add
// CHECK: "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1, 2], ["6", "s0", "20"], ["20", "120", "1"]>}
// CHECK: "ascir.add"
// CHECK: "ascir.output"
// CHECK-NEXT: return
func.func @transpose_add(%x: tensor<?x6x20xf32>, %y: tensor<6x?x20xf32>) -> tensor<6x?x20xf32> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0, 2]} : (tensor<?x6x20xf32>) -> tensor<6x?x20xf32>
  %1 = "ascend.add"(%0, %y) : (tensor<6x?x20xf32>, tensor<6x?x20xf32>) -> tensor<6x?x20xf32>
  return %1 : tensor<6x?x20xf32>
}

// -----

// A pointwise producer feeding a transpose: the store walks the result with permuted strides.
// CHECK-LABEL: func.func @exp_transpose
// CHECK: call @autofuse_pointwise_0_Exp_Transpose(%arg0)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Exp_Transpose
// CHECK: "ascir.exp"
// CHECK: "ascir.store"
func.func @exp_transpose(%x: tensor<4x6x20xf16>) -> tensor<6x4x20xf16> {
  %0 = "ascend.exp"(%x) : (tensor<4x6x20xf16>) -> tensor<4x6x20xf16>
  %1 = "ascend.transpose"(%0) {perm = [1, 0, 2]} : (tensor<4x6x20xf16>) -> tensor<6x4x20xf16>
  return %1 : tensor<6x4x20xf16>
}

// -----

// A transpose that keeps the innermost axis is a strided load: it fuses with reductions,
// broadcasts and siblings like any load.
// CHECK-LABEL: func.func @strided_transpose_reduce
// CHECK: call @autofuse_reduce_0_Transpose_Add_ReduceSum(%arg0, %arg1)
func.func @strided_transpose_reduce(%x: tensor<4x6x20xf32>, %b: tensor<20xf32>) -> tensor<6x4x1xf32> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0, 2]} : (tensor<4x6x20xf32>) -> tensor<6x4x20xf32>
  %1 = "ascend.add"(%0, %b) : (tensor<6x4x20xf32>, tensor<20xf32>) -> tensor<6x4x20xf32>
  %2 = "ascend.reduce_sum"(%1) {axes = [2], keep_dims = true} : (tensor<6x4x20xf32>) -> tensor<6x4x1xf32>
  return %2 : tensor<6x4x1xf32>
}

// -----

// No transpose in UB + reduction: both ops are lifted back (the transpose with its perm).
// CHECK-LABEL: func.func @transpose_reduce
// CHECK: "ascend.transpose"(%arg0) {perm = [1, 0]}
// CHECK: "ascend.reduce_sum"
func.func @transpose_reduce(%x: tensor<16x24xf32>) -> tensor<24x1xf32> {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_0_Transpose lifted back to ascend.transpose}}
  // expected-remark@+1 {{AF-NF008 transpose-pattern: autofuse_pointwise_0_Transpose and autofuse_reduce_1_ReduceSum not fused: autofuse_reduce_1_ReduceSum holds a reduction (a transpose fuses only with pointwise ops)}}
  %0 = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<16x24xf32>) -> tensor<24x16xf32>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_reduce_1_ReduceSum lifted back to ascend.reduce_sum}}
  // expected-remark@+1 {{AF-NF008 transpose-pattern}}
  %1 = "ascend.reduce_sum"(%0) {axes = [1], keep_dims = true} : (tensor<24x16xf32>) -> tensor<24x1xf32>
  return %1 : tensor<24x1xf32>
}

// -----

// No transpose in UB + broadcast (A2/A3).
// CHECK-LABEL: func.func @transpose_broadcast
// CHECK: "ascend.transpose"(%arg0) {perm = [1, 0]}
// CHECK: "ascend.add"
func.func @transpose_broadcast(%x: tensor<16x24xf32>, %b: tensor<16xf32>) -> tensor<24x16xf32> {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_0_Transpose lifted back to ascend.transpose}}
  // expected-remark@+1 {{AF-NF008 transpose-pattern: autofuse_pointwise_0_Transpose and autofuse_pointwise_1_Add not fused: autofuse_pointwise_1_Add broadcasts (a transpose does not fuse with broadcasts)}}
  %0 = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<16x24xf32>) -> tensor<24x16xf32>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_1_Add lifted back to ascend.add}}
  // expected-remark@+1 {{AF-NF008 transpose-pattern}}
  %1 = "ascend.add"(%0, %b) : (tensor<24x16xf32>, tensor<16xf32>) -> tensor<24x16xf32>
  return %1 : tensor<24x16xf32>
}

// -----

// No horizontal fusion of a transpose in UB with a sibling.
// CHECK-LABEL: func.func @siblings
// CHECK: "ascend.transpose"
// CHECK: "ascend.exp"
func.func @siblings(%x: tensor<16x24xf32>) -> (tensor<24x16xf32>, tensor<16x24xf32>) {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_0_Transpose lifted back to ascend.transpose}}
  // expected-remark@+1 {{AF-NF008 transpose-pattern: autofuse_pointwise_0_Transpose and autofuse_pointwise_1_Exp not fused: a transpose fuses only vertically (producer to consumer)}}
  %0 = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<16x24xf32>) -> tensor<24x16xf32>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_1_Exp lifted back to ascend.exp}}
  // expected-remark@+1 {{AF-NF008 transpose-pattern}}
  %1 = "ascend.exp"(%x) : (tensor<16x24xf32>) -> tensor<16x24xf32>
  return %0, %1 : tensor<24x16xf32>, tensor<16x24xf32>
}
