// RUN: %autofuse-opt %s --infer-symbolic-shapes | FileCheck %s
// Dynamic dims of a convolution's input become symbols; the result dims are floor
// divisions of them, and the elementwise tail inherits them.

// CHECK-LABEL: func.func @conv_tail
// CHECK: "ascend.conv"{{.*}} -> tensor<?x16x?xf32, #ascend.dims<["s0", "16", "floor((s1-1)/2)+1"]>>
// CHECK: "ascend.avg_pool"{{.*}} -> tensor<?x16x?xf32, #ascend.dims<["s0", "16", "floor((floor((s1-1)/2)-1)/2)+1"]>>
// CHECK: "ascend.relu"{{.*}} -> tensor<?x16x?xf32, #ascend.dims<["s0", "16", "floor((floor((s1-1)/2)-1)/2)+1"]>>
func.func @conv_tail(%x: tensor<?x8x?xf32>, %w: tensor<16x8x3xf32>) -> tensor<?x16x?xf32> {
  %c = "ascend.conv"(%x, %w) {strides = [2], dilations = [1], pads = [1, 1], groups = 1 : i64} : (tensor<?x8x?xf32>, tensor<16x8x3xf32>) -> tensor<?x16x?xf32>
  %p = "ascend.avg_pool"(%c) {kernel_shape = [2], strides = [2], dilations = [1], pads = [0, 0], ceil_mode = false, count_include_pad = false} : (tensor<?x16x?xf32>) -> tensor<?x16x?xf32>
  %r = "ascend.relu"(%p) : (tensor<?x16x?xf32>) -> tensor<?x16x?xf32>
  return %r : tensor<?x16x?xf32>
}
