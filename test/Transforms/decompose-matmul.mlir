// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --verify-diagnostics -o /dev/null
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose="vectorize-matmul-max-k=0 remarks=false" | FileCheck %s --check-prefix=OFF
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose="vectorize-matmul-max-k=16 vectorize-matmul-max-n=6 remarks=false" | FileCheck %s --check-prefix=TIGHT
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: not %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose=vectorize-matmul-max-k=-1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
//
// --decompose rewrites a matmul whose contraction size k and result columns n are static
// and small (k <= vectorize-matmul-max-k = 32, n <= vectorize-matmul-max-n = 64) into a
// broadcast multiply and a reduce_sum over k, laid out so that no operand is transposed.
// f16/bf16 operands are widened to f32 and the sum narrowed once. Other matmuls stay
// boundary ops with remark AF-DC001. With max-k=0 every matmul stays; with smaller
// bounds, the matmuls over them.

// QK^T: A[.., m, 1, k] * B[.., 1, n, k] summed over the innermost axis.
// CHECK-LABEL: func.func @scores
// CHECK: %[[A:.*]] = "ascend.unsqueeze"(%arg0) {axes = [3]} : (tensor<2x3x4x8xf32>) -> tensor<2x3x4x1x8xf32>
// CHECK: %[[B:.*]] = "ascend.unsqueeze"(%arg1) {axes = [2]} : (tensor<2x3x6x8xf32>) -> tensor<2x3x1x6x8xf32>
// CHECK: %[[P:.*]] = "ascend.mul"(%[[A]], %[[B]]) : (tensor<2x3x4x1x8xf32>, tensor<2x3x1x6x8xf32>) -> tensor<2x3x4x6x8xf32>
// CHECK: %[[S:.*]] = "ascend.reduce_sum"(%[[P]]) {axes = [4], keep_dims = false} : (tensor<2x3x4x6x8xf32>) -> tensor<2x3x4x6xf32>
// CHECK: return %[[S]]
// CHECK-NOT: ascend.matmul
// OFF-LABEL: func.func @scores
// OFF: "ascend.matmul"
// TIGHT-LABEL: func.func @scores
// TIGHT-NOT: ascend.matmul
// TIGHT: return
func.func @scores(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x6x8xf32>) -> tensor<2x3x4x6xf32> {
  %0 = "ascend.matmul"(%q, %k) {transpose_a = false, transpose_b = true} : (tensor<2x3x4x8xf32>, tensor<2x3x6x8xf32>) -> tensor<2x3x4x6xf32>
  return %0 : tensor<2x3x4x6xf32>
}

// -----

// P V with f16 operands and a broadcast 2-D V: A[.., m, k, 1] * B[1, k, n] summed over
// axis -2, in f32 between two casts.
// CHECK-LABEL: func.func @values_f16
// CHECK: %[[AW:.*]] = "ascend.cast"(%arg0) : (tensor<2x3x4x6xf16>) -> tensor<2x3x4x6xf32>
// CHECK: %[[BW:.*]] = "ascend.cast"(%arg1) : (tensor<6x8xf16>) -> tensor<6x8xf32>
// CHECK: %[[A:.*]] = "ascend.unsqueeze"(%[[AW]]) {axes = [4]} : (tensor<2x3x4x6xf32>) -> tensor<2x3x4x6x1xf32>
// CHECK: %[[B:.*]] = "ascend.unsqueeze"(%[[BW]]) {axes = [0]} : (tensor<6x8xf32>) -> tensor<1x6x8xf32>
// CHECK: %[[P:.*]] = "ascend.mul"(%[[A]], %[[B]]) : (tensor<2x3x4x6x1xf32>, tensor<1x6x8xf32>) -> tensor<2x3x4x6x8xf32>
// CHECK: %[[S:.*]] = "ascend.reduce_sum"(%[[P]]) {axes = [3], keep_dims = false} : (tensor<2x3x4x6x8xf32>) -> tensor<2x3x4x8xf32>
// CHECK: %[[N:.*]] = "ascend.cast"(%[[S]]) : (tensor<2x3x4x8xf32>) -> tensor<2x3x4x8xf16>
// CHECK: return %[[N]]
// OFF-LABEL: func.func @values_f16
// OFF: "ascend.matmul"
// n = 8 > 6.
// TIGHT-LABEL: func.func @values_f16
// TIGHT: "ascend.matmul"
func.func @values_f16(%p: tensor<2x3x4x6xf16>, %v: tensor<6x8xf16>) -> tensor<2x3x4x8xf16> {
  %0 = "ascend.matmul"(%p, %v) {transpose_a = false, transpose_b = false} : (tensor<2x3x4x6xf16>, tensor<6x8xf16>) -> tensor<2x3x4x8xf16>
  return %0 : tensor<2x3x4x8xf16>
}

// -----

// transpose_a alone: A[k, m, 1] * B[k, 1, n] summed over axis -3.
// CHECK-LABEL: func.func @transposed_a
// CHECK: %[[A:.*]] = "ascend.unsqueeze"(%arg0) {axes = [2]} : (tensor<6x3xf32>) -> tensor<6x3x1xf32>
// CHECK: %[[B:.*]] = "ascend.unsqueeze"(%arg1) {axes = [1]} : (tensor<6x4xf32>) -> tensor<6x1x4xf32>
// CHECK: %[[P:.*]] = "ascend.mul"(%[[A]], %[[B]]) : (tensor<6x3x1xf32>, tensor<6x1x4xf32>) -> tensor<6x3x4xf32>
// CHECK: "ascend.reduce_sum"(%[[P]]) {axes = [0], keep_dims = false} : (tensor<6x3x4xf32>) -> tensor<3x4xf32>
func.func @transposed_a(%a: tensor<6x3xf32>, %b: tensor<6x4xf32>) -> tensor<3x4xf32> {
  %0 = "ascend.matmul"(%a, %b) {transpose_a = true, transpose_b = false} : (tensor<6x3xf32>, tensor<6x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Both transposed: A is transposed first, then the QK^T form.
// CHECK-LABEL: func.func @transposed_both
// CHECK: %[[T:.*]] = "ascend.transpose"(%arg0) {perm = [1, 0]} : (tensor<4x3xf32>) -> tensor<3x4xf32>
// CHECK: %[[A:.*]] = "ascend.unsqueeze"(%[[T]]) {axes = [1]} : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
// CHECK: %[[B:.*]] = "ascend.unsqueeze"(%arg1) {axes = [0]} : (tensor<5x4xf32>) -> tensor<1x5x4xf32>
// CHECK: %[[P:.*]] = "ascend.mul"(%[[A]], %[[B]])
// CHECK: "ascend.reduce_sum"(%[[P]]) {axes = [2], keep_dims = false} : (tensor<3x5x4xf32>) -> tensor<3x5xf32>
func.func @transposed_both(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>) -> tensor<3x5xf32> {
  %0 = "ascend.matmul"(%a, %b) {transpose_a = true, transpose_b = true} : (tensor<4x3xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// A transpose of the two innermost axes feeding the matmul becomes its transpose flag
// (K^T of bf16 read as K, the QK^T form) and goes when nothing else reads it.
// CHECK-LABEL: func.func @folded_transpose
// CHECK-NOT: ascend.transpose
// CHECK: %[[KW:.*]] = "ascend.cast"(%arg1) : (tensor<2x6x8xbf16>) -> tensor<2x6x8xf32>
// CHECK: "ascend.unsqueeze"(%[[KW]]) {axes = [1]} : (tensor<2x6x8xf32>) -> tensor<2x1x6x8xf32>
// CHECK: "ascend.reduce_sum"({{.*}}) {axes = [3], keep_dims = false} : (tensor<2x4x6x8xf32>) -> tensor<2x4x6xf32>
// CHECK: "ascend.cast"({{.*}}) : (tensor<2x4x6xf32>) -> tensor<2x4x6xbf16>
// CHECK-NOT: ascend.transpose
func.func @folded_transpose(%q: tensor<2x4x8xbf16>, %k: tensor<2x6x8xbf16>) -> tensor<2x4x6xbf16> {
  %kt = "ascend.transpose"(%k) {perm = [0, 2, 1]} : (tensor<2x6x8xbf16>) -> tensor<2x8x6xbf16>
  %0 = "ascend.matmul"(%q, %kt) {transpose_a = false, transpose_b = false} : (tensor<2x4x8xbf16>, tensor<2x8x6xbf16>) -> tensor<2x4x6xbf16>
  return %0 : tensor<2x4x6xbf16>
}

// -----

// The gate: k = 64 over vectorize-matmul-max-k, n = 128 over vectorize-matmul-max-n,
// a symbolic k, and an integer matmul stay boundary ops.
// CHECK-LABEL: func.func @kept
// CHECK: "ascend.matmul"(%arg0, %arg1)
// CHECK: "ascend.matmul"(%arg2, %arg3)
// CHECK: "ascend.matmul"(%arg4, %arg5)
// CHECK: "ascend.matmul"(%arg6, %arg7)
// CHECK-NOT: ascend.reduce_sum
func.func @kept(%a: tensor<4x64xf32>, %b: tensor<64x4xf32>, %c: tensor<4x8xf32>, %d: tensor<8x128xf32>, %e: tensor<4x?xf32>, %f: tensor<?x4xf32>, %g: tensor<4x8xi32>, %h: tensor<8x4xi32>) -> (tensor<4x4xf32>, tensor<4x128xf32>, tensor<4x4xf32>, tensor<4x4xi32>) {
  // expected-remark@+1 {{AF-DC001 matmul-not-vectorized: the matmul stays a boundary op (library kernel): k = 64 exceeds vectorize-matmul-max-k=32}}
  %0 = "ascend.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<4x64xf32>, tensor<64x4xf32>) -> tensor<4x4xf32>
  // expected-remark@+1 {{AF-DC001 matmul-not-vectorized: the matmul stays a boundary op (library kernel): n = 128 exceeds vectorize-matmul-max-n=64}}
  %1 = "ascend.matmul"(%c, %d) {transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x128xf32>) -> tensor<4x128xf32>
  // expected-remark@+1 {{AF-DC001 matmul-not-vectorized: the matmul stays a boundary op (library kernel): the contraction size k = s0 is not static}}
  %2 = "ascend.matmul"(%e, %f) {transpose_a = false, transpose_b = false} : (tensor<4x?xf32>, tensor<?x4xf32>) -> tensor<4x4xf32>
  // expected-remark@+1 {{AF-DC001 matmul-not-vectorized: the matmul stays a boundary op (library kernel): operand element type i32 (vectorized only for f32, f16 and bf16: the vector unit reduces floats only)}}
  %3 = "ascend.matmul"(%g, %h) {transpose_a = false, transpose_b = false} : (tensor<4x8xi32>, tensor<8x4xi32>) -> tensor<4x4xi32>
  return %0, %1, %2, %3 : tensor<4x4xf32>, tensor<4x128xf32>, tensor<4x4xf32>, tensor<4x4xi32>
}

// Per chunk: the first vectorizes its matmul, the last none.
// STATS: 'decompose'
// STATS: (1) vectorized-matmuls - Number of matmuls rewritten into a broadcast multiply and a reduce_sum
// STATS: (0) vectorized-matmuls
// BAD: error: option 'vectorize-matmul-max-k' expects a non-negative integer, got '-1'
