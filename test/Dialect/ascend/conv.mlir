// RUN: %autofuse-opt %s | %autofuse-opt | FileCheck %s
// RUN: %autofuse-opt %s --mlir-print-op-generic | %autofuse-opt | FileCheck %s
// Round trip of the convolution and pooling ops; each result type is the one the
// shape rule computes (the verifier checks it), static and symbolic.

// CHECK-LABEL: func.func @static
func.func @static(%x: tensor<2x6x11x13xf32>, %w: tensor<8x3x3x4xf32>, %wt: tensor<6x2x3x3xf32>) -> tensor<2x8x6x3xf32> {
  // (11+1+1-3)/2+1 = 6, (13+0+2-7)/3+1 = 3
  // CHECK: "ascend.conv"(%{{.*}}, %{{.*}}) {dilations = [1, 2], groups = 2 : i64, pads = [1, 0, 1, 2], strides = [2, 3]} : (tensor<2x6x11x13xf32>, tensor<8x3x3x4xf32>) -> tensor<2x8x6x3xf32>
  %c = "ascend.conv"(%x, %w) {strides = [2, 3], dilations = [1, 2], pads = [1, 0, 1, 2], groups = 2 : i64} : (tensor<2x6x11x13xf32>, tensor<8x3x3x4xf32>) -> tensor<2x8x6x3xf32>
  // 2*(11-1)+1+3-1-0 = 23, 1*(13-1)+0+3-0-1 = 14; 2 per group x 3 groups
  // CHECK: "ascend.conv_transpose"(%{{.*}}, %{{.*}}) {{.*}} -> tensor<2x6x23x14xf32>
  %t = "ascend.conv_transpose"(%x, %wt) {strides = [2, 1], dilations = [1, 1], pads = [1, 0, 0, 1], output_padding = [1, 0], groups = 3 : i64} : (tensor<2x6x11x13xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x23x14xf32>
  // floor: (11-3)/2+1 = 5; ceil: ceil((13-3)/4)+1 = 4, the last window starts at 12 < 13
  // CHECK: "ascend.max_pool"(%{{.*}}) {{.*}} -> tensor<2x6x5x4xf32>
  %m = "ascend.max_pool"(%x) {kernel_shape = [3, 3], strides = [2, 4], dilations = [1, 1], pads = [0, 0, 0, 0], ceil_mode = true} : (tensor<2x6x11x13xf32>) -> tensor<2x6x5x4xf32>
  // CHECK: "ascend.avg_pool"(%{{.*}}) {ceil_mode = false, count_include_pad = false, {{.*}}} : (tensor<2x6x11x13xf32>) -> tensor<2x6x11x13xf32>
  %a = "ascend.avg_pool"(%x) {kernel_shape = [3, 3], strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1], ceil_mode = false, count_include_pad = false} : (tensor<2x6x11x13xf32>) -> tensor<2x6x11x13xf32>
  return %c : tensor<2x8x6x3xf32>
}

// Symbolic dims: output sizes are floor divisions of the symbols; pads may be shape
// expressions (what auto_pad SAME gives on a symbolic dim).
// CHECK-LABEL: func.func @symbolic
func.func @symbolic(%x: tensor<?x80x?xf32, #ascend.dims<["b", "80", "t"]>>, %w: tensor<16x80x3xf32>) -> tensor<?x16x?xf32, #ascend.dims<["b", "16", "floor((t-1)/2)+1"]>> {
  // CHECK: "ascend.conv"{{.*}} -> tensor<?x16x?xf32, #ascend.dims<["b", "16", "floor((t-1)/2)+1"]>>
  %c = "ascend.conv"(%x, %w) {strides = [2], dilations = [1], pads = [1, 1], groups = 1 : i64} : (tensor<?x80x?xf32, #ascend.dims<["b", "80", "t"]>>, tensor<16x80x3xf32>) -> tensor<?x16x?xf32, #ascend.dims<["b", "16", "floor((t-1)/2)+1"]>>
  // CHECK: "ascend.max_pool"{{.*}}pads = [0, "t"]{{.*}} -> tensor<?x80x?xf32, #ascend.dims<["b", "80", "t"]>>
  %m = "ascend.max_pool"(%x) {kernel_shape = [2], strides = [2], dilations = [1], pads = [0, "t"], ceil_mode = false} : (tensor<?x80x?xf32, #ascend.dims<["b", "80", "t"]>>) -> tensor<?x80x?xf32, #ascend.dims<["b", "80", "t"]>>
  return %c : tensor<?x16x?xf32, #ascend.dims<["b", "16", "floor((t-1)/2)+1"]>>
}
