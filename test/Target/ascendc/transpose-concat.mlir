// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false \
// RUN:   | %autofuse-translate --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false \
// RUN:   | %autofuse-translate --mlir-to-ascendc -o %t
// RUN: %sim_cxx -fsyntax-only -I%t/include -I%t/autofuse_pointwise_0_Concat_Relu %t/autofuse_pointwise_0_Concat_Relu/autofuse_pointwise_0_Concat_Relu.cpp
// RUN: %sim_cxx -fsyntax-only -I%t/include -I%t/autofuse_pointwise_2_Transpose_Add %t/autofuse_pointwise_2_Transpose_Add/autofuse_pointwise_2_Transpose_Add.cpp
// Golden checks of the fused concat and transpose kernels.

// concat + relu: each input is loaded with its own extent on the concat axis, the UB
// concat joins them (the concat axis is never split: one case, split of z0), relu, store.
// CHECK-LABEL: // ===== autofuse_pointwise_0_Concat_Relu/autofuse_pointwise_0_Concat_Relu.cpp
// CHECK: // Case 0: UB split of z0 (tile z0t_size), looped [], in tile [z0, z1].
// CHECK-NOT: // Case 1
// CHECK: const int64_t x1[2] = {e_z0, 13};
// CHECK: const int64_t x3[2] = {e_z0, 7};
// CHECK: const int64_t x4[2] = {e_z0, e_z1};
// CHECK: af::LoadBox(r1, gm_in0, o_z0 * (13), x1, gs, kAlign);
// CHECK: af::LoadBox(r3, gm_in1, o_z0 * (7), x3, gs, kAlign);
// CHECK: af::ConcatBox(v4, v1, v3, x4, x1, x3, 1, kAlign);
// CHECK: Relu(v5, v4, n5);
// CHECK: af::StoreBox(gm_out0, s6, o_z0 * (20), x6, gs, kAlign);
func.func @concat_relu(%x: tensor<?x13xf32>, %y: tensor<?x7xf32>) -> tensor<?x20xf32> {
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<?x13xf32>, tensor<?x7xf32>) -> tensor<?x20xf32>
  %1 = "ascend.relu"(%0) : (tensor<?x20xf32>) -> tensor<?x20xf32>
  return %1 : tensor<?x20xf32>
}

// transpose + add: x is loaded through its permuted GM strides (20, 120, 1), a strided
// DataCopyPad; no Transpose API is needed since the innermost axis stays.
// CHECK-LABEL: // ===== autofuse_pointwise_2_Transpose_Add/autofuse_pointwise_2_Transpose_Add.cpp
// CHECK: // Case 0: UB split of z0
// CHECK: const int64_t gs[3] = {20, 120, 1};
// CHECK-NEXT: af::LoadBox(r1, gm_in0, o_z0 * (20), x1, gs, kAlign);
// CHECK: Add(v4, v1, v3, n4);
// CHECK-NOT: Transpose(
// CHECK-LABEL: // ===== autofuse_pointwise_2_Transpose_Add/autofuse_pointwise_2_Transpose_Add_tiling.h
func.func @transpose_add(%x: tensor<?x6x20xf32>, %y: tensor<6x?x20xf32>) -> tensor<6x?x20xf32> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0, 2]} : (tensor<?x6x20xf32>) -> tensor<6x?x20xf32>
  %1 = "ascend.add"(%0, %y) : (tensor<6x?x20xf32>, tensor<6x?x20xf32>) -> tensor<6x?x20xf32>
  return %1 : tensor<6x?x20xf32>
}
