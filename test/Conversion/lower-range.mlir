// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir --verify-diagnostics -o /dev/null

// A range read through two broadcast views (a causal mask; the unsqueeze of a range is
// still a range): each read becomes an ascir.arange over the whole loop nest, with offset
// stride 0 where the view repeats the range, and no broadcast follows. The range is no
// kernel input and, read by nothing else, is erased with the unsqueeze.
// CHECK-LABEL: func.func @causal_mask
// CHECK-NOT: ascend.range
// CHECK-NOT: ascend.unsqueeze
// CHECK: call @autofuse_pointwise_0_Le() : () -> tensor<?x?xi1
// CHECK-LABEL: func.func @autofuse_pointwise_0_Le()
// CHECK-SAME: ascir.ops = ["Range", "Range", "Le"], ascir.sizes = ["s0"]
// CHECK-NEXT: %[[K:.*]] = "ascir.arange"() {delta = "1", sched_axis = [0, 1], start = "0", view = #ascir.view<[0, 1], ["s0", "s0"], ["0", "1"]>} : () -> tensor<?x?xi32>
// CHECK-NEXT: %[[Q:.*]] = "ascir.arange"() {delta = "1", sched_axis = [0, 1], start = "0", view = #ascir.view<[0, 1], ["s0", "s0"], ["1", "0"]>} : () -> tensor<?x?xi32>
// CHECK-NEXT: "ascir.le"(%[[K]], %[[Q]])
func.func @causal_mask(%x: tensor<?xf32>) -> tensor<?x?xi1> {
  %pos = "ascend.range"() {delta = 1 : i64, start = 0 : i64} : () -> tensor<?xi32, #ascend.dims<["s0"]>>
  %query = "ascend.unsqueeze"(%pos) {axes = [1]} : (tensor<?xi32, #ascend.dims<["s0"]>>) -> tensor<?x1xi32, #ascend.dims<["s0", "1"]>>
  %keep = "ascend.le"(%pos, %query) : (tensor<?xi32, #ascend.dims<["s0"]>>, tensor<?x1xi32, #ascend.dims<["s0", "1"]>>) -> tensor<?x?xi1>
  return %keep : tensor<?x?xi1>
}

// -----

// Reshapes of a range, and an integer range cast to f32, are still ranges: the multiply
// computes them itself. Start and step may be shape expressions (the kernel then reads
// their symbols) or floats.
// CHECK-LABEL: func.func @rotary_angles
// CHECK-NOT: ascend.range
// CHECK-NOT: ascend.cast
// CHECK-NOT: ascend.unsqueeze
// CHECK: call @autofuse_pointwise_0_Mul(%arg1)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Mul
// CHECK-SAME: ascir.ops = ["Range", "Mul"], ascir.sizes = ["s0", "s1"]
// CHECK: "ascir.arange"() {delta = "2", sched_axis = [0, 1], start = "s1", view = #ascir.view<[0, 1], ["s0", "8"], ["1", "0"]>} : () -> tensor<?x8xf32>
// CHECK-LABEL: func.func @autofuse_pointwise_1_Add
// CHECK: "ascir.arange"() {delta = "0.25", sched_axis = [0], start = "-1.5", view = #ascir.view<[0], ["s0"], ["1"]>} : () -> tensor<?xf16>
func.func @rotary_angles(%past: tensor<?xf32, #ascend.dims<["s1"]>>, %freq: tensor<8xf32>) -> tensor<?x8xf32> {
  %pos = "ascend.range"() {delta = 2 : i64, start = "s1"} : () -> tensor<?xi32, #ascend.dims<["s0"]>>
  %col = "ascend.unsqueeze"(%pos) {axes = [1]} : (tensor<?xi32, #ascend.dims<["s0"]>>) -> tensor<?x1xi32, #ascend.dims<["s0", "1"]>>
  %f = "ascend.cast"(%col) : (tensor<?x1xi32, #ascend.dims<["s0", "1"]>>) -> tensor<?x1xf32, #ascend.dims<["s0", "1"]>>
  %angles = "ascend.mul"(%f, %freq) : (tensor<?x1xf32, #ascend.dims<["s0", "1"]>>, tensor<8xf32>) -> tensor<?x8xf32>
  return %angles : tensor<?x8xf32>
}
func.func @float_steps(%x: tensor<?xf16, #ascend.dims<["s0"]>>) -> tensor<?xf16> {
  %r = "ascend.range"() {delta = 0.25 : f64, start = -1.5 : f64} : () -> tensor<?xf16, #ascend.dims<["s0"]>>
  %y = "ascend.add"(%x, %r) : (tensor<?xf16, #ascend.dims<["s0"]>>, tensor<?xf16, #ascend.dims<["s0"]>>) -> tensor<?xf16>
  return %y : tensor<?xf16>
}

// -----

// A range that a graph op reads or the function returns becomes a kernel of its own: an
// arange over its result, stored. A gather by position ids computes them in its kernel.
// An i64 range stays a graph op: the vector unit computes no 64-bit integers.
// CHECK-LABEL: func.func @position_embedding
// CHECK-DAG: call @autofuse_pointwise_{{[0-9]+}}_Gather(%arg0) : (tensor<64x16xf32>)
// CHECK-DAG: call @autofuse_pointwise_{{[0-9]+}}_Range() : () -> tensor<?xi32
// CHECK: "ascend.range"() {{.*}} -> tensor<?xi64
// CHECK-LABEL: func.func @autofuse_pointwise_{{[0-9]+}}_Gather
// CHECK-SAME: ascir.ops = ["Range", "Gather"]
// CHECK: %[[I:.*]] = "ascir.arange"() {delta = "1", sched_axis = [0, 1], start = "0", view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>}
// CHECK: "ascir.gather"(%{{.*}}, %[[I]])
// CHECK-LABEL: func.func @autofuse_pointwise_{{[0-9]+}}_Range()
// CHECK-SAME: ascir.ops = ["Range"]
// CHECK: %[[A:.*]] = "ascir.arange"() {delta = "1", sched_axis = [0], start = "0", view = #ascir.view<[0], ["s0"], ["1"]>}
// CHECK: "ascir.store"(%[[A]])
func.func @position_embedding(%table: tensor<64x16xf32>) -> (tensor<?x16xf32>, tensor<?xi32, #ascend.dims<["s0"]>>, tensor<?xi64, #ascend.dims<["s0"]>>) {
  %ids = "ascend.range"() {delta = 1 : i64, start = 0 : i64} : () -> tensor<?xi32, #ascend.dims<["s0"]>>
  %rows = "ascend.gather"(%table, %ids) {axis = 0 : i64} : (tensor<64x16xf32>, tensor<?xi32, #ascend.dims<["s0"]>>) -> tensor<?x16xf32>
  // expected-remark@+1 {{AF-LW003 not lowered: 'range' produces i64; ascir.arange computes i32, f32 and f16}}
  %wide = "ascend.range"() {delta = 1 : i64, start = 0 : i64} : () -> tensor<?xi64, #ascend.dims<["s0"]>>
  return %rows, %ids, %wide : tensor<?x16xf32>, tensor<?xi32, #ascend.dims<["s0"]>>, tensor<?xi64, #ascend.dims<["s0"]>>
}
