// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false \
// RUN:   | %autofuse-translate --split-input-file --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-run -v %s --entry reverse_axes_add --symbols s0=3 --symbols s0=37 | FileCheck %s --check-prefix=EMU
// RUN: %autofuse-run -v %s --entry rotate_axes_exp --symbols s0=1 --symbols s0=130 | FileCheck %s --check-prefix=EMU
// RUN: %autofuse-run -v %s --entry heads_to_keys --symbols s0=2,s1=70 --symbols s0=1,s1=9 | FileCheck %s --check-prefix=EMU
// Transposes that move the innermost axis anywhere: the schedule orders the loop nest so
// that the operand's contiguous dim is the loop just outside the innermost one (axes it
// moves across keep their order), loads 2-D source blocks and transposes them in UB;
// the store writes contiguous rows with permuted outer strides.

// [2, 1, 0]: result axes (z0 = 40, z1 = 6, z2 = s0); the operand is contiguous along z0,
// so the nest is (z1, z0, z2).
// CHECK-LABEL: // ===== autofuse_pointwise_0_Transpose_Add/autofuse_pointwise_0_Transpose_Add.cpp
// CHECK: // Loop axes (normalized): z1 = 6, z0 = 40, z2 = s0;
// CHECK: (loads transpose in UB)
// CHECK: af::TransposeBlock(
// CHECK: Add(
// CHECK: af::StoreBox(
func.func @reverse_axes_add(%x: tensor<?x6x40xf32>, %y: tensor<40x6x?xf32>) -> tensor<40x6x?xf32> {
  %0 = "ascend.transpose"(%x) {perm = [2, 1, 0]} : (tensor<?x6x40xf32>) -> tensor<40x6x?xf32>
  %1 = "ascend.add"(%0, %y) : (tensor<40x6x?xf32>, tensor<40x6x?xf32>) -> tensor<40x6x?xf32>
  return %1 : tensor<40x6x?xf32>
}

// -----

// [2, 0, 1] of f16 behind a pointwise producer: result (z0 = 24, z1 = s0, z2 = 5), the
// operand contiguous along z0.
// CHECK-LABEL: // ===== autofuse_pointwise_0_Exp_Transpose_Abs/autofuse_pointwise_0_Exp_Transpose_Abs.cpp
// CHECK: // Loop axes (normalized): z1 = s0, z0 = 24, z2 = 5;
// CHECK: af::TransposeBlock(
func.func @rotate_axes_exp(%x: tensor<?x5x24xf16>) -> tensor<24x?x5xf16> {
  %0 = "ascend.exp"(%x) : (tensor<?x5x24xf16>) -> tensor<?x5x24xf16>
  %1 = "ascend.transpose"(%0) {perm = [2, 0, 1]} : (tensor<?x5x24xf16>) -> tensor<24x?x5xf16>
  %2 = "ascend.abs"(%1) : (tensor<24x?x5xf16>) -> tensor<24x?x5xf16>
  return %2 : tensor<24x?x5xf16>
}

// -----

// Keys of attention heads, [b, s, h, d] -> [b, h, d, s] (perm [0, 2, 3, 1]), plus a bias
// of the result's shape: the nest moves the operand's contiguous d outside s.
// CHECK-LABEL: // ===== autofuse_pointwise_0_Transpose_Add/autofuse_pointwise_0_Transpose_Add.cpp
// CHECK: (loads transpose in UB)
// CHECK: af::TransposeBlock(
func.func @heads_to_keys(%k: tensor<?x?x4x16xf32>, %bias: tensor<?x4x16x?xf32>) -> tensor<?x4x16x?xf32> {
  %0 = "ascend.transpose"(%k) {perm = [0, 2, 3, 1]} : (tensor<?x?x4x16xf32>) -> tensor<?x4x16x?xf32>
  %1 = "ascend.add"(%0, %bias) : (tensor<?x4x16x?xf32>, tensor<?x4x16x?xf32>) -> tensor<?x4x16x?xf32>
  return %1 : tensor<?x4x16x?xf32>
}

// One kernel per graph on the emulation, equal to the interpreter at every shape.
// EMU: build: {{[0-9]+}} kernel(s)
// EMU-NOT: interpreted
// EMU: PASS
// EMU: PASS
// EMU: model: 1 kernels (0 left to the interpreter)
// EMU: == PASS
