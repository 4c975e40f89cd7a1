// RUN: %autofuse-opt %s --infer-symbolic-shapes | FileCheck %s

// An external function (a PyTorch fallback, @torch_op_N of the autofuse backend) is
// declared with the front end's spelling of its sizes (sympy's
// "(1 + floor(((-1 + s1))/(2)))"). The pass writes every value's type canonically, so
// the declaration must follow: MLIR's call verifier compares the types as text ("'func.call'
// op operand type mismatch" on ResNet through torch.compile). Two strided convolutions
// give a nested size, floor(floor((s1-1)/2)/2)+1, that sympy writes merged,
// floor((s1-1)/4)+1: the same dim, so the second call verifies too.

// CHECK-LABEL: func.func private @torch_op_0
// CHECK-SAME: "floor((s1-1)/2)+1"
// CHECK-NOT: (-1 + s1)
// CHECK-LABEL: func.func private @torch_op_1
// CHECK-SAME: "floor((s1-1)/4)+1"
// CHECK-NOT: (-1 + s1)
// CHECK-LABEL: func.func @graph
// CHECK: call @torch_op_0
// CHECK: call @torch_op_1
func.func private @torch_op_0(tensor<?x4x?xf32, #ascend.dims<["s0", "4", "(1 + floor(((-1 + s1))/(2)))"]>>) -> tensor<?x4x?xf32, #ascend.dims<["s0", "4", "(1 + floor(((-1 + s1))/(2)))"]>>
func.func private @torch_op_1(tensor<?x4x?xf32, #ascend.dims<["s0", "4", "(1 + floor(((-1 + s1))/(4)))"]>>) -> tensor<?x4x?xf32, #ascend.dims<["s0", "4", "(1 + floor(((-1 + s1))/(4)))"]>>
func.func @graph(%x: tensor<?x4x?xf32, #ascend.dims<["s0", "4", "s1"]>>, %w: tensor<4x4x3xf32>) -> tensor<?x4x?xf32, #ascend.dims<["s0", "4", "(1 + floor(((-1 + s1))/(4)))"]>> {
  %c = "ascend.conv"(%x, %w) {strides = [2], dilations = [1], pads = [1, 1], groups = 1} : (tensor<?x4x?xf32, #ascend.dims<["s0", "4", "s1"]>>, tensor<4x4x3xf32>) -> tensor<?x4x?xf32, #ascend.dims<["s0", "4", "(1 + floor(((-1 + s1))/(2)))"]>>
  %n = func.call @torch_op_0(%c) : (tensor<?x4x?xf32, #ascend.dims<["s0", "4", "(1 + floor(((-1 + s1))/(2)))"]>>) -> tensor<?x4x?xf32, #ascend.dims<["s0", "4", "(1 + floor(((-1 + s1))/(2)))"]>>
  %c2 = "ascend.conv"(%n, %w) {strides = [2], dilations = [1], pads = [1, 1], groups = 1} : (tensor<?x4x?xf32, #ascend.dims<["s0", "4", "(1 + floor(((-1 + s1))/(2)))"]>>, tensor<4x4x3xf32>) -> tensor<?x4x?xf32, #ascend.dims<["s0", "4", "(1 + floor(((-1 + s1))/(4)))"]>>
  %m = func.call @torch_op_1(%c2) : (tensor<?x4x?xf32, #ascend.dims<["s0", "4", "(1 + floor(((-1 + s1))/(4)))"]>>) -> tensor<?x4x?xf32, #ascend.dims<["s0", "4", "(1 + floor(((-1 + s1))/(4)))"]>>
  return %m : tensor<?x4x?xf32, #ascend.dims<["s0", "4", "(1 + floor(((-1 + s1))/(4)))"]>>
}
