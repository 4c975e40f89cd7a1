// RUN: %autofuse-opt %s --decompose | FileCheck %s
// One transpose K^T read by two vectorized matmuls folds into both and is erased once
// (it was listed twice and, with the producers of every rewritten op also erased, freed
// twice: the flaky "double free" of the integration tests).
// CHECK-LABEL: func.func @shared_kt
// CHECK-NOT: ascend.transpose
// CHECK-COUNT-2: "ascend.reduce_sum"
// CHECK-NOT: ascend.transpose
// CHECK: return
func.func @shared_kt(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %p: tensor<2x4x8xf32>) -> (tensor<2x4x6xf32>, tensor<2x4x6xf32>) {
  %kt = "ascend.transpose"(%k) {perm = [0, 2, 1]} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
  %s = "ascend.matmul"(%q, %kt) {transpose_a = false, transpose_b = false} : (tensor<2x4x8xf32>, tensor<2x8x6xf32>) -> tensor<2x4x6xf32>
  %t = "ascend.matmul"(%p, %kt) {transpose_a = false, transpose_b = false} : (tensor<2x4x8xf32>, tensor<2x8x6xf32>) -> tensor<2x4x6xf32>
  return %s, %t : tensor<2x4x6xf32>, tensor<2x4x6xf32>
}
