// RUN: %autofuse-opt %s | %autofuse-opt | FileCheck %s
// RUN: %autofuse-opt %s --mlir-print-op-generic | %autofuse-opt | FileCheck %s
// Round trip of every ascend op: each parses, verifies and prints back unchanged.

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %c: tensor<4x8xi1>, %i: tensor<4x8xi32>) -> tensor<4x8xf32> {
  // CHECK: "ascend.abs"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u0 = "ascend.abs"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.neg"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u1 = "ascend.neg"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.exp"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u2 = "ascend.exp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.log"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u3 = "ascend.log"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.sqrt"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u4 = "ascend.sqrt"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.rsqrt"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u5 = "ascend.rsqrt"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.reciprocal"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u6 = "ascend.reciprocal"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.relu"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u7 = "ascend.relu"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.sigmoid"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u8 = "ascend.sigmoid"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.tanh"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u9 = "ascend.tanh"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.erf"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u10 = "ascend.erf"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.sign"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u11 = "ascend.sign"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.floor"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u12 = "ascend.floor"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.ceil"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u13 = "ascend.ceil"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.round"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u14 = "ascend.round"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.sin"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u15 = "ascend.sin"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.cos"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u16 = "ascend.cos"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.square"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u17 = "ascend.square"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.leaky_relu"(%{{.*}}) {alpha = 1.000000e-01 : f32}
  %lr = "ascend.leaky_relu"(%x) {alpha = 0.1 : f32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.isnan"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xi1>
  %u18 = "ascend.isnan"(%x) : (tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: "ascend.isfinite"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xi1>
  %u19 = "ascend.isfinite"(%x) : (tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: "ascend.logical_not"(%{{.*}}) : (tensor<4x8xi1>) -> tensor<4x8xi1>
  %ln = "ascend.logical_not"(%c) : (tensor<4x8xi1>) -> tensor<4x8xi1>
  // CHECK: "ascend.bitwise_not"(%{{.*}}) : (tensor<4x8xi32>) -> tensor<4x8xi32>
  %bn = "ascend.bitwise_not"(%i) : (tensor<4x8xi32>) -> tensor<4x8xi32>
  // CHECK: "ascend.add"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b20 = "ascend.add"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.sub"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b21 = "ascend.sub"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.mul"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b22 = "ascend.mul"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.div"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b23 = "ascend.div"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.pow"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b24 = "ascend.pow"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.maximum"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b25 = "ascend.maximum"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.minimum"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b26 = "ascend.minimum"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.floor_div"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b27 = "ascend.floor_div"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.mod"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b28 = "ascend.mod"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.logical_and"
  %b29 = "ascend.logical_and"(%c, %ln) : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  // CHECK: "ascend.logical_or"
  %b30 = "ascend.logical_or"(%c, %ln) : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  // CHECK: "ascend.logical_xor"
  %b31 = "ascend.logical_xor"(%c, %ln) : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  // CHECK: "ascend.bitwise_and"
  %ba = "ascend.bitwise_and"(%i, %bn) : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  // CHECK: "ascend.eq"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %c32 = "ascend.eq"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: "ascend.ne"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %c33 = "ascend.ne"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: "ascend.lt"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %c34 = "ascend.lt"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: "ascend.le"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %c35 = "ascend.le"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: "ascend.gt"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %c36 = "ascend.gt"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: "ascend.ge"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %c37 = "ascend.ge"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: "ascend.select"
  %s = "ascend.select"(%c, %x, %y) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.cast"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf16>
  %h = "ascend.cast"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf16>
  // CHECK: "ascend.clip"
  %cl = "ascend.clip"(%x, %y, %y) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x8xf32>, %c: tensor<4x8xi1>) -> tensor<4xf32> {
  // CHECK: "ascend.reduce_sum"(%{{.*}}) {axes = [1], keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  %reduce_sum = "ascend.reduce_sum"(%x) {axes = [1], keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  // CHECK: "ascend.reduce_mean"(%{{.*}}) {axes = [1], keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  %reduce_mean = "ascend.reduce_mean"(%x) {axes = [1], keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  // CHECK: "ascend.reduce_max"(%{{.*}}) {axes = [1], keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  %reduce_max = "ascend.reduce_max"(%x) {axes = [1], keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  // CHECK: "ascend.reduce_min"(%{{.*}}) {axes = [1], keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  %reduce_min = "ascend.reduce_min"(%x) {axes = [1], keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  // CHECK: "ascend.reduce_prod"(%{{.*}}) {axes = [1], keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  %reduce_prod = "ascend.reduce_prod"(%x) {axes = [1], keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  // CHECK: "ascend.reduce_any"(%{{.*}}) {axes = [0], keep_dims = true} : (tensor<4x8xi1>) -> tensor<1x8xi1>
  %reduce_any = "ascend.reduce_any"(%c) {axes = [0], keep_dims = true} : (tensor<4x8xi1>) -> tensor<1x8xi1>
  // CHECK: "ascend.reduce_all"(%{{.*}}) {axes = [0], keep_dims = true} : (tensor<4x8xi1>) -> tensor<1x8xi1>
  %reduce_all = "ascend.reduce_all"(%c) {axes = [0], keep_dims = true} : (tensor<4x8xi1>) -> tensor<1x8xi1>
  return %reduce_sum : tensor<4xf32>
}

// CHECK-LABEL: func.func @layout
func.func @layout(%x: tensor<?x8xf32, #ascend.dims<["s0", "8"]>>, %r: tensor<1x8xf32>) -> tensor<8x?xf32, #ascend.dims<["8", "s0"]>> {
  // CHECK: "ascend.broadcast_to"(%{{.*}}) : (tensor<1x8xf32>) -> tensor<?x8xf32, #ascend.dims<["s0", "8"]>>
  %b = "ascend.broadcast_to"(%r) : (tensor<1x8xf32>) -> tensor<?x8xf32, #ascend.dims<["s0", "8"]>>
  // CHECK: "ascend.reshape"
  %rs = "ascend.reshape"(%x) : (tensor<?x8xf32, #ascend.dims<["s0", "8"]>>) -> tensor<?x2x4xf32, #ascend.dims<["s0", "2", "4"]>>
  // CHECK: "ascend.unsqueeze"(%{{.*}}) {axes = [0]}
  %us = "ascend.unsqueeze"(%x) {axes = [0]} : (tensor<?x8xf32, #ascend.dims<["s0", "8"]>>) -> tensor<1x?x8xf32, #ascend.dims<["1", "s0", "8"]>>
  // CHECK: "ascend.squeeze"(%{{.*}}) {axes = [0]}
  %sq = "ascend.squeeze"(%us) {axes = [0]} : (tensor<1x?x8xf32, #ascend.dims<["1", "s0", "8"]>>) -> tensor<?x8xf32, #ascend.dims<["s0", "8"]>>
  // CHECK: "ascend.transpose"(%{{.*}}) {perm = [1, 0]}
  %t = "ascend.transpose"(%sq) {perm = [1, 0]} : (tensor<?x8xf32, #ascend.dims<["s0", "8"]>>) -> tensor<8x?xf32, #ascend.dims<["8", "s0"]>>
  return %t : tensor<8x?xf32, #ascend.dims<["8", "s0"]>>
}

// CHECK-LABEL: func.func @structural
func.func @structural(%x: tensor<4x8xf32>, %y: tensor<4x2xf32>, %idx: tensor<3xi32>) -> tensor<3x8xf32> {
  // CHECK: "ascend.concat"(%{{.*}}, %{{.*}}) {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x10xf32>
  %c = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x10xf32>
  // CHECK: "ascend.slice"
  %sl = "ascend.slice"(%x) {starts = [1], ends = [7], axes = [1], steps = [2]} : (tensor<4x8xf32>) -> tensor<4x3xf32>
  // CHECK: "ascend.gather"(%{{.*}}, %{{.*}}) {axis = 0 : i64}
  %g = "ascend.gather"(%x, %idx) {axis = 0 : i64} : (tensor<4x8xf32>, tensor<3xi32>) -> tensor<3x8xf32>
  return %g : tensor<3x8xf32>
}

// CHECK-LABEL: func.func @composite
func.func @composite(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: "ascend.softmax"
  %softmax = "ascend.softmax"(%x) {axis = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.log_softmax"
  %log_softmax = "ascend.log_softmax"(%x) {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.layer_norm"
  %layer_norm = "ascend.layer_norm"(%x, %g, %b) {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.rms_norm"
  %rms_norm = "ascend.rms_norm"(%x, %g) {axis = -1 : i64, epsilon = 1.0e-06 : f32} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.gelu"
  %gelu = "ascend.gelu"(%x) {approximate = "tanh"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.silu"
  %silu = "ascend.silu"(%x)  : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.swish"
  %swish = "ascend.swish"(%x) {beta = 1.5 : f32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "ascend.swiglu"
  %swiglu = "ascend.swiglu"(%x, %x)  : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %layer_norm : tensor<4x8xf32>
}

func.func private @TopK(tensor<2x4x16xf16>) -> (tensor<2x4x2xf16>, tensor<2x4x2xi32>)

// CHECK-LABEL: func.func @boundary
func.func @boundary(%a: tensor<2x4x8xf16>, %b: tensor<2x16x8xf16>) -> tensor<2x4x16xf16> {
  // CHECK: "ascend.matmul"(%{{.*}}, %{{.*}}) {transpose_a = false, transpose_b = true}
  %m = "ascend.matmul"(%a, %b) {transpose_a = false, transpose_b = true} : (tensor<2x4x8xf16>, tensor<2x16x8xf16>) -> tensor<2x4x16xf16>
  // Operators the compiler does not know are calls of external declarations.
  // CHECK: call @TopK(%{{.*}}) : (tensor<2x4x16xf16>) -> (tensor<2x4x2xf16>, tensor<2x4x2xi32>)
  %t:2 = func.call @TopK(%m) : (tensor<2x4x16xf16>) -> (tensor<2x4x2xf16>, tensor<2x4x2xi32>)
  // CHECK: "ascend.constant"() {value = dense<1.000000e+00> : tensor<2x4x16xf16>}
  %k = "ascend.constant"() {value = dense<1.0> : tensor<2x4x16xf16>} : () -> tensor<2x4x16xf16>
  return %m : tensor<2x4x16xf16>
}
