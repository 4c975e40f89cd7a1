// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose | FileCheck %s
// Every composite op expands into primitives with the numerically careful form.

// Softmax subtracts the row max before exp and divides by the row sum.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[MAX:.*]] = "ascend.reduce_max"(%[[X:.*]]) {axes = [1], keep_dims = true}
// CHECK: %[[SUB:.*]] = "ascend.sub"(%[[X]], %[[MAX]])
// CHECK: %[[EXP:.*]] = "ascend.exp"(%[[SUB]])
// CHECK: %[[SUM:.*]] = "ascend.reduce_sum"(%[[EXP]]) {axes = [1], keep_dims = true}
// CHECK: %[[DIV:.*]] = "ascend.div"(%[[EXP]], %[[SUM]])
// CHECK: return %[[DIV]]
// CHECK-NOT: ascend.softmax
func.func @softmax(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = "ascend.softmax"(%x) {axis = -1 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// log_softmax = (x - max) - log(sum(exp(x - max))).
// CHECK-LABEL: func.func @log_softmax
// CHECK: %[[MAX:.*]] = "ascend.reduce_max"
// CHECK: %[[SUB:.*]] = "ascend.sub"(%{{.*}}, %[[MAX]])
// CHECK: "ascend.exp"(%[[SUB]])
// CHECK: %[[SUM:.*]] = "ascend.reduce_sum"
// CHECK: %[[LOG:.*]] = "ascend.log"(%[[SUM]])
// CHECK: "ascend.sub"(%[[SUB]], %[[LOG]])
func.func @log_softmax(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = "ascend.log_softmax"(%x) {axis = 1 : i64} : (tensor<4x8xf16>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// Layer norm with a static row: means are sums divided by the row length (constant 6.4e1).
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[S1:.*]] = "ascend.reduce_sum"(%[[X:[^)]*]]) {axes = [1], keep_dims = true}
// CHECK: %[[N1:.*]] = "ascend.constant"() {value = dense<6.400000e+01> : tensor<f32>}
// CHECK: %[[MU:.*]] = "ascend.div"(%[[S1]], %[[N1]])
// CHECK: %[[C:.*]] = "ascend.sub"(%[[X]], %[[MU]])
// CHECK: %[[SQ:.*]] = "ascend.mul"(%[[C]], %[[C]])
// CHECK: %[[S2:.*]] = "ascend.reduce_sum"(%[[SQ]])
// CHECK: %[[VAR:.*]] = "ascend.div"(%[[S2]], %{{.*}})
// CHECK: %[[VE:.*]] = "ascend.add"(%[[VAR]], %{{.*}})
// CHECK: %[[STD:.*]] = "ascend.sqrt"(%[[VE]])
// CHECK: %[[NORM:.*]] = "ascend.div"(%[[C]], %[[STD]])
// CHECK: %[[G:.*]] = "ascend.mul"(%[[NORM]], %{{.*}})
// CHECK: "ascend.add"(%[[G]], %{{.*}})
func.func @layer_norm(%x: tensor<?x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<?x64xf32> {
  %0 = "ascend.layer_norm"(%x, %g, %b) {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// A symbolic normalized extent keeps reduce_mean (a primitive of AscIR).
// CHECK-LABEL: func.func @rms_norm_dynamic
// CHECK: %[[SQ:.*]] = "ascend.mul"(%[[X:[^,]*]], %[[X]])
// CHECK: %[[MS:.*]] = "ascend.reduce_mean"(%[[SQ]]) {axes = [1], keep_dims = true}
// CHECK: %[[E:.*]] = "ascend.add"(%[[MS]], %{{.*}})
// CHECK: %[[R:.*]] = "ascend.sqrt"(%[[E]])
// CHECK: %[[N:.*]] = "ascend.div"(%[[X]], %[[R]])
// CHECK: "ascend.mul"(%[[N]], %{{.*}})
func.func @rms_norm_dynamic(%x: tensor<4x?xf32>, %g: tensor<?xf32>) -> tensor<4x?xf32> {
  %0 = "ascend.rms_norm"(%x, %g) {axis = -1 : i64, epsilon = 1.0e-06 : f32} : (tensor<4x?xf32>, tensor<?xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// gelu, erf form: 0.5*x*(1+erf(x/sqrt(2))); tanh form uses the cubic term.
// CHECK-LABEL: func.func @gelu
// CHECK: "ascend.constant"() {value = dense<0.707106769> : tensor<f32>}
// CHECK: "ascend.erf"
// CHECK: "ascend.constant"() {value = dense<4.4715{{0*}}e-02> : tensor<f32>}
// CHECK: "ascend.tanh"
func.func @gelu(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = "ascend.gelu"(%x) {approximate = "none"} : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "ascend.gelu"(%x) {approximate = "tanh"} : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// silu, swish, swiglu and clip.
// CHECK-LABEL: func.func @activations
// CHECK: %[[S:.*]] = "ascend.sigmoid"(%[[X:[^)]*]])
// CHECK: "ascend.mul"(%[[X]], %[[S]])
// CHECK: "ascend.sigmoid"
// CHECK: "ascend.sigmoid"
// CHECK: %[[LO:.*]] = "ascend.maximum"
// CHECK: "ascend.minimum"(%[[LO]]
// CHECK-NOT: ascend.silu
// CHECK-NOT: ascend.swish
// CHECK-NOT: ascend.swiglu
// CHECK-NOT: ascend.clip
func.func @activations(%x: tensor<8xf32>, %u: tensor<8xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = "ascend.silu"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "ascend.swish"(%x) {beta = 1.5 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "ascend.swiglu"(%x, %u) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = "ascend.clip"(%x, %lo, %hi) : (tensor<8xf32>, tensor<f32>, tensor<f32>) -> tensor<8xf32>
  return %0, %1, %2, %3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// reduce_mean over static axes becomes sum / count, keeping keep_dims.
// CHECK-LABEL: func.func @mean
// CHECK: %[[S:.*]] = "ascend.reduce_sum"(%{{.*}}) {axes = [0, 2], keep_dims = false}
// CHECK: %[[N:.*]] = "ascend.constant"() {value = dense<1.200000e+01> : tensor<f32>}
// CHECK: "ascend.div"(%[[S]], %[[N]])
func.func @mean(%x: tensor<3x5x4xf32>) -> tensor<5xf32> {
  %0 = "ascend.reduce_mean"(%x) {axes = [0, -1], keep_dims = false} : (tensor<3x5x4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// pow with a constant exponent that has an exact cheaper form becomes products, sqrt
// and a division (also through a cast of the constant); other exponents and exponents
// that broadcast the base take the general form: exp(y * log(b)), the sign of a
// negative base, and 1^y = 1 last (test/Target/ascendc/pow-mod.mlir runs it).
// CHECK-LABEL: func.func @pow_constant_exponents
// CHECK: %[[SQ:.*]] = "ascend.mul"(%[[X:[^,]*]], %[[X]])
// CHECK: %[[SQ3:.*]] = "ascend.mul"(%[[X]], %[[X]])
// CHECK: %[[CUBE:.*]] = "ascend.mul"(%[[SQ3]], %[[X]])
// CHECK: %[[ROOT:.*]] = "ascend.sqrt"(%[[X]])
// CHECK: %[[RS:.*]] = "ascend.sqrt"(%[[X]])
// CHECK: %[[ONE:.*]] = "ascend.constant"() {value = dense<1.0{{.*}}> : tensor<f32>}
// CHECK: %[[INV:.*]] = "ascend.div"(%[[ONE]], %[[RS]])
// CHECK: "ascend.log"({{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: "ascend.exp"
// CHECK: %[[UNIT:.*]] = "ascend.eq"(%[[X]],
// CHECK-NEXT: %[[KEEP:.*]] = "ascend.select"(%[[UNIT]], {{.*}}) : (tensor<4x8xi1>, tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[H:.*]] = "ascend.mul"(%{{.*}}, %{{.*}}) : (tensor<4x8xf16>, tensor<4x8xf16>)
// CHECK: "ascend.log"({{.*}}) : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// CHECK: %[[WUNIT:.*]] = "ascend.eq"(%[[X]],
// CHECK-NEXT: %[[WIDE:.*]] = "ascend.select"(%[[WUNIT]], {{.*}}) -> tensor<1x4x8xf32>
// CHECK-NOT: "ascend.pow"
// CHECK: return %[[SQ]], %[[CUBE]], %[[ROOT]], %[[INV]], %[[KEEP]], %[[X]], %[[H]], %[[WIDE]]
func.func @pow_constant_exponents(%x: tensor<4x8xf32>, %h: tensor<4x8xf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<1x4x8xf32>) {
  %two = "ascend.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %three = "ascend.constant"() {value = dense<3.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %half = "ascend.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %mhalf = "ascend.constant"() {value = dense<-0.5> : tensor<f32>} : () -> tensor<f32>
  %other = "ascend.constant"() {value = dense<2.5> : tensor<f32>} : () -> tensor<f32>
  %one = "ascend.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %two32 = "ascend.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %two16 = "ascend.cast"(%two32) : (tensor<f32>) -> tensor<f16>
  %wide = "ascend.constant"() {value = dense<2.0> : tensor<1x4x8xf32>} : () -> tensor<1x4x8xf32>
  %0 = "ascend.pow"(%x, %two) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = "ascend.pow"(%x, %three) : (tensor<4x8xf32>, tensor<1xf32>) -> tensor<4x8xf32>
  %2 = "ascend.pow"(%x, %half) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = "ascend.pow"(%x, %mhalf) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %4 = "ascend.pow"(%x, %other) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %5 = "ascend.pow"(%x, %one) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %6 = "ascend.pow"(%h, %two16) : (tensor<4x8xf16>, tensor<f16>) -> tensor<4x8xf16>
  %7 = "ascend.pow"(%x, %wide) : (tensor<4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<1x4x8xf32>
}

// -----

// A concat with an operand empty along the axis (the pass-through part of an exported
// rotary embedding that rotates the whole head) is its other operand; the empty slice
// feeding it goes too. A concat of two non-empty operands stays.
// CHECK-LABEL: func.func @concat_empty
// CHECK-NOT: "ascend.slice"
// CHECK: %[[E:.*]] = "ascend.exp"(%arg0)
// CHECK-NEXT: %[[C:.*]] = "ascend.concat"(%[[E]], %arg0) {axis = 1 : i64}
// CHECK-NEXT: return %[[E]], %[[C]]
func.func @concat_empty(%x: tensor<3x8xf32>) -> (tensor<3x8xf32>, tensor<3x16xf32>) {
  %e = "ascend.exp"(%x) : (tensor<3x8xf32>) -> tensor<3x8xf32>
  %none = "ascend.slice"(%x) {starts = [8], ends = [8], axes = [1], steps = [1]} : (tensor<3x8xf32>) -> tensor<3x0xf32>
  %0 = "ascend.concat"(%e, %none) {axis = -1 : i64} : (tensor<3x8xf32>, tensor<3x0xf32>) -> tensor<3x8xf32>
  %1 = "ascend.concat"(%e, %x) {axis = 1 : i64} : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x16xf32>
  return %0, %1 : tensor<3x8xf32>, tensor<3x16xf32>
}
