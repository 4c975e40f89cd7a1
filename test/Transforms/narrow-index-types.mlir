// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --narrow-index-types | FileCheck %s
// int64 index arithmetic whose values provably fit in int32 is computed in int32, with
// exact casts where a use needs the other width; unbounded int64 values stay 64-bit
// unless they are only shifted and compared with small bounded values (then clamped).

// A causal mask from two ranges over seq: positions, their compare and the select are
// 32-bit; the f32 result keeps its type.
// CHECK-LABEL: func.func @causal_mask
// CHECK: %[[ROW:.*]] = "ascend.range"() {{.*}} -> tensor<?xi32, #ascend.dims<["seq"]>>
// CHECK: %[[R:.*]] = "ascend.unsqueeze"(%[[ROW]]) {{.*}} -> tensor<?x1xi32
// CHECK: %[[COL:.*]] = "ascend.range"() {{.*}} -> tensor<?xi32, #ascend.dims<["seq"]>>
// CHECK: %[[C:.*]] = "ascend.unsqueeze"(%[[COL]]) {{.*}} -> tensor<1x?xi32
// CHECK: %[[LE:.*]] = "ascend.le"(%[[C]], %[[R]]) : (tensor<1x?xi32, {{.*}}>, tensor<?x1xi32, {{.*}}>) -> tensor<?x?xi1
// CHECK: "ascend.select"(%[[LE]], %arg0, %{{.*}}) {{.*}} -> tensor<?x?xf32
// CHECK-NOT: i64
func.func @causal_mask(%scores: tensor<?x?xf32, #ascend.dims<["seq", "seq"]>>) -> tensor<?x?xf32, #ascend.dims<["seq", "seq"]>> {
  %rows = "ascend.range"() {start = 0 : i64, delta = 1 : i64} : () -> tensor<?xi64, #ascend.dims<["seq"]>>
  %r = "ascend.unsqueeze"(%rows) {axes = [1]} : (tensor<?xi64, #ascend.dims<["seq"]>>) -> tensor<?x1xi64, #ascend.dims<["seq", "1"]>>
  %cols = "ascend.range"() {start = 0 : i64, delta = 1 : i64} : () -> tensor<?xi64, #ascend.dims<["seq"]>>
  %c = "ascend.unsqueeze"(%cols) {axes = [0]} : (tensor<?xi64, #ascend.dims<["seq"]>>) -> tensor<1x?xi64, #ascend.dims<["1", "seq"]>>
  %keep = "ascend.le"(%c, %r) : (tensor<1x?xi64, #ascend.dims<["1", "seq"]>>, tensor<?x1xi64, #ascend.dims<["seq", "1"]>>) -> tensor<?x?xi1, #ascend.dims<["seq", "seq"]>>
  %zero = "ascend.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %y = "ascend.select"(%keep, %scores, %zero) : (tensor<?x?xi1, #ascend.dims<["seq", "seq"]>>, tensor<?x?xf32, #ascend.dims<["seq", "seq"]>>, tensor<f32>) -> tensor<?x?xf32, #ascend.dims<["seq", "seq"]>>
  return %y : tensor<?x?xf32, #ascend.dims<["seq", "seq"]>>
}

// -----

// Segment ids: a cumsum of a bool cast to i64 is at most seq; the constant is rewritten,
// the compare reads 32-bit values, and the i64 graph result gets a widening cast.
// CHECK-LABEL: func.func @segment_ids
// CHECK: %[[B:.*]] = "ascend.cast"(%arg0) : (tensor<?x?xi1, {{.*}}>) -> tensor<?x?xi32
// CHECK: %[[S:.*]] = "ascend.cumsum"(%[[B]]) {{.*}} -> tensor<?x?xi32
// CHECK: %[[ONE:.*]] = "ascend.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
// CHECK: %[[SUB:.*]] = "ascend.sub"(%[[S]], %[[ONE]]) {{.*}} -> tensor<?x?xi32
// CHECK: %[[ZERO:.*]] = "ascend.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
// CHECK: %[[FIRST:.*]] = "ascend.eq"(%[[SUB]], %[[ZERO]]) : (tensor<?x?xi32, {{.*}}>, tensor<i32>)
// CHECK: %[[W:.*]] = "ascend.cast"(%[[SUB]]) : (tensor<?x?xi32, {{.*}}>) -> tensor<?x?xi64
// CHECK: return %[[W]], %[[FIRST]]
func.func @segment_ids(%starts: tensor<?x?xi1, #ascend.dims<["batch", "seq"]>>) -> (tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>, tensor<?x?xi1, #ascend.dims<["batch", "seq"]>>) {
  %b = "ascend.cast"(%starts) : (tensor<?x?xi1, #ascend.dims<["batch", "seq"]>>) -> tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>
  %s = "ascend.cumsum"(%b) {axis = -1 : i64, exclusive = false, reverse = false} : (tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>) -> tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>
  %one = "ascend.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %ids = "ascend.sub"(%s, %one) : (tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>, tensor<i64>) -> tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>
  %zero = "ascend.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %first = "ascend.eq"(%ids, %zero) : (tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>, tensor<i64>) -> tensor<?x?xi1, #ascend.dims<["batch", "seq"]>>
  return %ids, %first : tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>, tensor<?x?xi1, #ascend.dims<["batch", "seq"]>>
}

// -----

// An int64 graph input is unbounded: its arithmetic stays 64-bit, and so does the range
// compared with it (narrowing it would only add a widening cast).
// CHECK-LABEL: func.func @unbounded_input
// CHECK: "ascend.range"() {{.*}} -> tensor<?xi64
// CHECK: "ascend.add"(%arg0, %arg0) {{.*}} -> tensor<?xi64
// CHECK: "ascend.lt"({{.*}}) : (tensor<?xi64, {{.*}}>, tensor<?xi64, {{.*}}>)
// CHECK-NOT: ascend.cast
func.func @unbounded_input(%ids: tensor<?xi64, #ascend.dims<["seq"]>>) -> tensor<?xi1, #ascend.dims<["seq"]>> {
  %pos = "ascend.range"() {start = 0 : i64, delta = 1 : i64} : () -> tensor<?xi64, #ascend.dims<["seq"]>>
  %twice = "ascend.add"(%ids, %ids) : (tensor<?xi64, #ascend.dims<["seq"]>>, tensor<?xi64, #ascend.dims<["seq"]>>) -> tensor<?xi64, #ascend.dims<["seq"]>>
  %lt = "ascend.lt"(%twice, %pos) : (tensor<?xi64, #ascend.dims<["seq"]>>, tensor<?xi64, #ascend.dims<["seq"]>>) -> tensor<?xi1, #ascend.dims<["seq"]>>
  return %lt : tensor<?xi1, #ascend.dims<["seq"]>>
}

// -----

// An int64 input (a per-batch key count, as ONNX Attention's nonpad_kv_seqlen) that is
// only shifted by bounded amounts, moved and compared with bounded positions is clamped
// to +-2^29 through f32 (exact below 2^24; beyond, every compare keeps its outcome since
// offsets and partners stay below 2^24), after which the whole mask is 32-bit.
// CHECK-LABEL: func.func @clamped_input
// CHECK: %[[TWO:.*]] = "ascend.constant"() {value = dense<2> : tensor<i32>}
// CHECK: %[[F:.*]] = "ascend.cast"(%arg0) : (tensor<3xi64>) -> tensor<3xf32>
// CHECK: %[[LO:.*]] = "ascend.constant"() {value = dense<0xCE000000> : tensor<f32>}
// CHECK: %[[HI:.*]] = "ascend.constant"() {value = dense<0x4E000000> : tensor<f32>}
// CHECK: %[[MAX:.*]] = "ascend.maximum"(%[[F]], %[[LO]])
// CHECK: %[[MIN:.*]] = "ascend.minimum"(%[[MAX]], %[[HI]])
// CHECK: %[[I:.*]] = "ascend.cast"(%[[MIN]]) : (tensor<3xf32>) -> tensor<3xi32>
// CHECK: %[[C:.*]] = "ascend.cast"(%[[I]]) : (tensor<3xi32>) -> tensor<3xi32>
// CHECK: %[[S:.*]] = "ascend.sub"(%[[C]], %[[TWO]]) : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
// CHECK: "ascend.add"({{.*}}) : (tensor<2x1xi32>, tensor<3x1x1xi32>) -> tensor<3x2x1xi32>
// CHECK: "ascend.le"({{.*}}) : (tensor<1x6xi32>, tensor<3x2x1xi32>) -> tensor<3x2x6xi1>
// CHECK: "ascend.unsqueeze"(%[[C]]) {axes = [1]} : (tensor<3xi32>) -> tensor<3x1xi32>
// CHECK: "ascend.lt"({{.*}}) : (tensor<1x6xi32>, tensor<3x1xi32>) -> tensor<3x6xi1>
// CHECK-NOT: i64
// CHECK: return
func.func @clamped_input(%n: tensor<3xi64>) -> (tensor<3x2x6xi1>, tensor<3x6xi1>) {
  %c2 = "ascend.constant"() {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %s = "ascend.sub"(%n, %c2) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %u = "ascend.unsqueeze"(%s) {axes = [1, 2]} : (tensor<3xi64>) -> tensor<3x1x1xi64>
  %r = "ascend.range"() {delta = 1 : i64, start = 0 : i64} : () -> tensor<2xi64>
  %r2 = "ascend.unsqueeze"(%r) {axes = [1]} : (tensor<2xi64>) -> tensor<2x1xi64>
  %a = "ascend.add"(%r2, %u) : (tensor<2x1xi64>, tensor<3x1x1xi64>) -> tensor<3x2x1xi64>
  %k = "ascend.range"() {delta = 1 : i64, start = 0 : i64} : () -> tensor<6xi64>
  %k2 = "ascend.unsqueeze"(%k) {axes = [0]} : (tensor<6xi64>) -> tensor<1x6xi64>
  %le = "ascend.le"(%k2, %a) : (tensor<1x6xi64>, tensor<3x2x1xi64>) -> tensor<3x2x6xi1>
  %nu = "ascend.unsqueeze"(%n) {axes = [1]} : (tensor<3xi64>) -> tensor<3x1xi64>
  %lt = "ascend.lt"(%k2, %nu) : (tensor<1x6xi64>, tensor<3x1xi64>) -> tensor<3x6xi1>
  return %le, %lt : tensor<3x2x6xi1>, tensor<3x6xi1>
}

// -----

// A shifted copy that escapes (returned, here) would change value: nothing is clamped.
// CHECK-LABEL: func.func @escaping_shift
// CHECK-NOT: ascend.maximum
// CHECK: "ascend.sub"(%arg0, {{.*}}) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
func.func @escaping_shift(%n: tensor<3xi64>) -> (tensor<3x6xi1>, tensor<3xi64>) {
  %c2 = "ascend.constant"() {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %s = "ascend.sub"(%n, %c2) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %u = "ascend.unsqueeze"(%s) {axes = [1]} : (tensor<3xi64>) -> tensor<3x1xi64>
  %k = "ascend.range"() {delta = 1 : i64, start = 0 : i64} : () -> tensor<6xi64>
  %lt = "ascend.lt"(%k, %u) : (tensor<6xi64>, tensor<3x1xi64>) -> tensor<3x6xi1>
  return %lt, %s : tensor<3x6xi1>, tensor<3xi64>
}

// -----

// A product of two dims may exceed int32 (each dim is below 2^31): the linear index
// stays 64-bit, and so do its factors, which nothing reads at 32 bits.
// CHECK-LABEL: func.func @product_of_dims
// CHECK: "ascend.mul"({{.*}}) : (tensor<?x1xi64, {{.*}}>, tensor<i64>) -> tensor<?x1xi64
// CHECK: "ascend.add"({{.*}}) {{.*}} -> tensor<?x?xi64
// CHECK-NOT: i32
func.func @product_of_dims(%x: tensor<?x?xf32, #ascend.dims<["batch", "seq"]>>) -> tensor<?x?xi64, #ascend.dims<["batch", "seq"]>> {
  %b = "ascend.range"() {start = 0 : i64, delta = 1 : i64} : () -> tensor<?xi64, #ascend.dims<["batch"]>>
  %bu = "ascend.unsqueeze"(%b) {axes = [1]} : (tensor<?xi64, #ascend.dims<["batch"]>>) -> tensor<?x1xi64, #ascend.dims<["batch", "1"]>>
  %n = "ascend.symbolic_constant"() {values = ["seq"]} : () -> tensor<i64>
  %off = "ascend.mul"(%bu, %n) : (tensor<?x1xi64, #ascend.dims<["batch", "1"]>>, tensor<i64>) -> tensor<?x1xi64, #ascend.dims<["batch", "1"]>>
  %q = "ascend.range"() {start = 0 : i64, delta = 1 : i64} : () -> tensor<?xi64, #ascend.dims<["seq"]>>
  %idx = "ascend.add"(%off, %q) : (tensor<?x1xi64, #ascend.dims<["batch", "1"]>>, tensor<?xi64, #ascend.dims<["seq"]>>) -> tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>
  return %idx : tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>
}
