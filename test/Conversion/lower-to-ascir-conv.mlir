// RUN: %autofuse-opt %s --infer-symbolic-shapes --lower-to-ascir | FileCheck %s
// RUN: %autofuse-opt %s --infer-symbolic-shapes --lower-to-ascir --verify-diagnostics -o /dev/null
// Convolutions and windowed pools stay boundary ops with a reason remark; the
// elementwise tail between them lowers to a kernel.

// CHECK-LABEL: func.func @conv_pool
// CHECK: "ascend.conv"
// CHECK: call @autofuse_pointwise_0_Add
// CHECK: "ascend.max_pool"
// CHECK: "ascend.conv_transpose"
// CHECK: "ascend.avg_pool"
func.func @conv_pool(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>, %b: tensor<4x1x1xf32>, %wt: tensor<4x2x2x2xf32>) -> tensor<1x2x4x4xf32> {
  // expected-remark@+1 {{AF-LW002 not lowered: 'conv' is a boundary op and runs as a library kernel}}
  %c = "ascend.conv"(%x, %w) {strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1], groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %a = "ascend.add"(%c, %b) : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  // expected-remark@+1 {{AF-LW002 not lowered: 'max_pool' is a boundary op and runs as a library kernel (strided windows do not map to AscIR loops)}}
  %m = "ascend.max_pool"(%a) {kernel_shape = [2, 2], strides = [2, 2], dilations = [1, 1], pads = [0, 0, 0, 0], ceil_mode = false} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // expected-remark@+1 {{AF-LW002 not lowered: 'conv_transpose' is a boundary op and runs as a library kernel}}
  %t = "ascend.conv_transpose"(%m, %wt) {strides = [2, 2], dilations = [1, 1], pads = [0, 0, 0, 0], output_padding = [0, 0], groups = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<4x2x2x2xf32>) -> tensor<1x4x8x8xf32>
  // expected-remark@+1 {{AF-LW002 not lowered: 'avg_pool' is a boundary op and runs as a library kernel (strided windows do not map to AscIR loops)}}
  %p = "ascend.avg_pool"(%t) {kernel_shape = [2, 2], strides = [2, 2], dilations = [1, 1], pads = [0, 0, 0, 0], ceil_mode = false, count_include_pad = false} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %s = "ascend.slice"(%p) {starts = [0], ends = [2], axes = [1], steps = [1]} : (tensor<1x4x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %s : tensor<1x2x4x4xf32>
}
