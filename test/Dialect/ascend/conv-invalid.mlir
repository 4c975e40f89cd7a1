// RUN: %autofuse-opt %s --split-input-file --verify-diagnostics
// The shape rules of the convolution and pooling ops reject bad operands at the op.

func.func @channels_vs_groups(%x: tensor<1x6x5x5xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x3x3xf32> {
  // expected-error@+1 {{conv input has 6 channels, the kernel expects 8 (4 per group x 2 groups)}}
  %0 = "ascend.conv"(%x, %w) {strides = [1, 1], dilations = [1, 1], pads = [0, 0, 0, 0], groups = 2 : i64} : (tensor<1x6x5x5xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// -----

func.func @kernel_rank(%x: tensor<1x6x5x5xf32>, %w: tensor<4x6x3xf32>) -> tensor<1x4x3x3xf32> {
  // expected-error@+1 {{conv kernel rank 3 does not match input rank 4}}
  %0 = "ascend.conv"(%x, %w) {strides = [1, 1], dilations = [1, 1], pads = [0, 0, 0, 0], groups = 1 : i64} : (tensor<1x6x5x5xf32>, tensor<4x6x3xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// -----

func.func @wrong_result(%x: tensor<1x6x5x5xf32>, %w: tensor<4x6x3x3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error@+1 {{result #0: dim 2 is '5', expected '3'}}
  %0 = "ascend.conv"(%x, %w) {strides = [1, 1], dilations = [1, 1], pads = [0, 0, 0, 0], groups = 1 : i64} : (tensor<1x6x5x5xf32>, tensor<4x6x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

func.func @pads_count(%x: tensor<1x6x5xf32>) -> tensor<1x6x4xf32> {
  // expected-error@+1 {{attribute 'pads' has 1 values for 1 spatial axes}}
  %0 = "ascend.max_pool"(%x) {kernel_shape = [2], strides = [1], dilations = [1], pads = [0], ceil_mode = false} : (tensor<1x6x5xf32>) -> tensor<1x6x4xf32>
  return %0 : tensor<1x6x4xf32>
}

// -----

func.func @ceil_symbolic(%x: tensor<1x6x?xf32, #ascend.dims<["1", "6", "t"]>>) -> tensor<1x6x?xf32> {
  // expected-error@+1 {{ceil_mode on spatial axis 0 of symbolic size 't'}}
  %0 = "ascend.avg_pool"(%x) {kernel_shape = [2], strides = [3], dilations = [1], pads = [0, 0], ceil_mode = true, count_include_pad = false} : (tensor<1x6x?xf32, #ascend.dims<["1", "6", "t"]>>) -> tensor<1x6x?xf32>
  return %0 : tensor<1x6x?xf32>
}
