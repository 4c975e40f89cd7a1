// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes="symbol-hints=s0=8,s1=8" | FileCheck %s --check-prefix=HINT

// Dynamic input dims become s0, s1 in input order; elementwise results inherit them;
// broadcasting a symbol against 1 needs no guard.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%{{.*}}: tensor<?x16xf32, #ascend.dims<["s0", "16"]>>, %{{.*}}: tensor<1x16xf32>) -> tensor<?x16xf32, #ascend.dims<["s0", "16"]>>
// CHECK-SAME: ascend.guards = []
// CHECK: "ascend.add"{{.*}} -> tensor<?x16xf32, #ascend.dims<["s0", "16"]>>
// CHECK: "ascend.exp"{{.*}} -> tensor<?x16xf32, #ascend.dims<["s0", "16"]>>
func.func @elementwise(%x: tensor<?x16xf32>, %b: tensor<1x16xf32>) -> tensor<?x16xf32> {
  %0 = "ascend.add"(%x, %b) : (tensor<?x16xf32>, tensor<1x16xf32>) -> tensor<?x16xf32>
  %1 = "ascend.exp"(%0) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %1 : tensor<?x16xf32>
}

// -----

// Broadcasting s0 against s1 with no hints requires them equal: an assert guard.
// With equal hints the decision is an expect guard instead.
// CHECK-LABEL: func.func @two_symbols
// CHECK-SAME: ascend.guards = ["assert(s0 == s1)"]
// HINT-LABEL: func.func @two_symbols
// HINT-SAME: ascend.guards = ["expect(s0 == s1)"]
// HINT-SAME: ascend.symbol_hints = {s0 = 8 : i64, s1 = 8 : i64}
func.func @two_symbols(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "ascend.mul"(%x, %y) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Reductions, transposes, reshapes and concats compute symbolic results.
// CHECK-LABEL: func.func @structure
// CHECK: "ascend.reduce_sum"{{.*}} -> tensor<?x1xf32, #ascend.dims<["s0", "1"]>>
// CHECK: "ascend.transpose"{{.*}} -> tensor<8x?xf32, #ascend.dims<["8", "s0"]>>
// CHECK: "ascend.concat"{{.*}} -> tensor<?x8xf32, #ascend.dims<["2*s0", "8"]>>
// CHECK: "ascend.reshape"{{.*}} -> tensor<?x4x4xf32, #ascend.dims<["s0", "4", "4"]>>
func.func @structure(%x: tensor<?x8xf32>) -> tensor<?x4x4xf32> {
  %0 = "ascend.reduce_sum"(%x) {axes = [1], keep_dims = true} : (tensor<?x8xf32>) -> tensor<?x1xf32>
  %1 = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<?x8xf32>) -> tensor<8x?xf32>
  %2 = "ascend.concat"(%x, %x) {axis = 0 : i64} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %3 = "ascend.reshape"(%2) : (tensor<?x8xf32>) -> tensor<?x4x4xf32>
  return %3 : tensor<?x4x4xf32>
}

// -----

// Symbols already in the input are kept, new ones do not collide with them.
// CHECK-LABEL: func.func @keeps_names
// CHECK-SAME: tensor<?xf32, #ascend.dims<["s0"]>>, %{{.*}}: tensor<?x?xf32, #ascend.dims<["s1", "s2"]>>
func.func @keeps_names(%x: tensor<?xf32, #ascend.dims<["s0"]>>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "ascend.abs"(%y) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A reshape with one unknown target dim divides the element count, under a guard
// that the division is exact.
// CHECK-LABEL: func.func @reshape_divides
// CHECK-SAME: ascend.guards = ["assert(mod(s0, 4) == 0)"]
// CHECK: "ascend.reshape"{{.*}} -> tensor<?x4xf32, #ascend.dims<["floor(s0/4)", "4"]>>
func.func @reshape_divides(%x: tensor<?xf32>) -> tensor<?x4xf32> {
  %0 = "ascend.reshape"(%x) : (tensor<?xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Matmul batch dims broadcast like numpy's.
// CHECK-LABEL: func.func @matmul_batch
// CHECK: "ascend.matmul"{{.*}} -> tensor<2x3x5xf32>
func.func @matmul_batch(%a: tensor<1x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = "ascend.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<1x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
