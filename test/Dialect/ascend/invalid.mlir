// RUN: %autofuse-opt %s --split-input-file --verify-diagnostics
// Every check of the Rust verifier on ascend ops fires at the op, with a located error.

// Shapes that cannot broadcast are rejected.
func.func @bad_broadcast(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{dims '8' and '3' cannot be broadcast together}}
  %0 = "ascend.add"(%x, %y) : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The declared result shape must be the broadcast shape.
func.func @wrong_result_shape(%x: tensor<4x1xf32>, %y: tensor<1x8xf32>) -> tensor<4x1xf32> {
  // expected-error@+1 {{result #0: dim 1 is '1', expected '8'}}
  %0 = "ascend.mul"(%x, %y) : (tensor<4x1xf32>, tensor<1x8xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Mixed element types need an explicit cast.
func.func @mixed_dtypes(%x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error@+1 {{operand element types differ (f32 vs f16)}}
  %0 = "ascend.add"(%x, %y) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Compares produce i1.
func.func @compare_dtype(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{result #0: element type is f32, expected i1}}
  %0 = "ascend.lt"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Reduction axes must be in range.
func.func @reduce_axis_range(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %0 = "ascend.reduce_sum"(%x) {axes = [2], keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// keep_dims decides the result rank.
func.func @reduce_keep_dims(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{result #0: rank is 1, expected 2}}
  %0 = "ascend.reduce_max"(%x) {axes = [1], keep_dims = true} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Permutations must be permutations.
func.func @bad_perm(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{perm entry 0 repeats}}
  %0 = "ascend.transpose"(%x) {perm = [0, 0]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Reshape keeps the element count.
func.func @bad_reshape(%x: tensor<4x8xf32>) -> tensor<30xf32> {
  // expected-error@+1 {{reshape changes the element count from '32' to '30'}}
  %0 = "ascend.reshape"(%x) : (tensor<4x8xf32>) -> tensor<30xf32>
  return %0 : tensor<30xf32>
}

// -----

// Unsupported element types are named.
func.func @bad_dtype(%x: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error@+1 {{unsupported element type 'f64'}}
  %0 = "ascend.abs"(%x) : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// Symbolic dims must match the rank.
func.func @bad_encoding(%x: tensor<?x8xf32, #ascend.dims<["s0"]>>) -> tensor<?x8xf32> {
  // expected-error@+1 {{1 symbolic dims for a rank-2 tensor}}
  %0 = "ascend.abs"(%x) : (tensor<?x8xf32, #ascend.dims<["s0"]>>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Distinct symbols may broadcast only if equal; '3' and 's0' with s0 a different
// static... a static mismatch of symbolic results is caught.
func.func @symbolic_mismatch(%x: tensor<?xf32, #ascend.dims<["s0"]>>) -> tensor<?xf32, #ascend.dims<["s0+1"]>> {
  // expected-error@+1 {{result #0: dim 0 is 's0+1', expected 's0'}}
  %0 = "ascend.exp"(%x) : (tensor<?xf32, #ascend.dims<["s0"]>>) -> tensor<?xf32, #ascend.dims<["s0+1"]>>
  return %0 : tensor<?xf32, #ascend.dims<["s0+1"]>>
}

// -----

// Float-only ops reject integers.
func.func @exp_on_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{'exp' requires a floating-point operand, got i32}}
  %0 = "ascend.exp"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// A concat operand must agree with the others outside the concat axis.
func.func @concat_mismatch(%x: tensor<4x8xf32>, %y: tensor<3x2xf32>) -> tensor<4x10xf32> {
  // expected-error@+1 {{concat operand #1 has size '3' in dim 0, expected '4'}}
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<4x8xf32>, tensor<3x2xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// IRDL itself checks required attributes.
func.func @missing_attr(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error@+1 {{attribute "keep_dims" is expected but not provided}}
  %0 = "ascend.reduce_sum"(%x) {axes = [0]} : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// The verifier remembers only what it found valid: the same invalid op twice (same
// types and attributes) is reported twice, and a valid op of the same name does not
// hide it.
func.func @repeated_errors(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>) -> tensor<4x8xf32> {
  %ok = "ascend.add"(%x, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-error@+1 {{dims '8' and '3' cannot be broadcast together}}
  %0 = "ascend.add"(%x, %y) : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x8xf32>
  // expected-error@+1 {{dims '8' and '3' cannot be broadcast together}}
  %1 = "ascend.add"(%x, %y) : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
