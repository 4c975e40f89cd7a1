// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --fuse | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --verify-diagnostics -o /dev/null
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// Every fusion kind: each case ends as one kernel; the checks name the nodes that must
// be there and the GM round trips that must be gone.

// Vertical, elementwise: abs reads exp's value in UB; one load of x, one store.
// CHECK-LABEL: func.func @chain
// CHECK: %[[R:.*]] = call @autofuse_pointwise_0_Exp_Abs(%arg0)
// CHECK: return %[[R]]
// CHECK-LABEL: func.func @autofuse_pointwise_0_Exp_Abs
// CHECK-SAME: ascir.ops = ["Exp", "Abs"]
// CHECK: %[[D:.*]] = "ascir.data"(%arg0) {index = 0 : i64
// CHECK-NEXT: %[[L:.*]] = "ascir.load"(%[[D]])
// CHECK-NEXT: %[[E:.*]] = "ascir.exp"(%[[L]])
// CHECK-NEXT: %[[A:.*]] = "ascir.abs"(%[[E]])
// CHECK-NEXT: %[[S:.*]] = "ascir.store"(%[[A]])
// CHECK-NEXT: %[[O:.*]] = "ascir.output"(%[[S]]) {index = 0 : i64
// CHECK-NEXT: return %[[O]]
// The call and the kernel (with its arguments and return) carry the fused location of
// the calls they replace; nodes keep their op's location. MLIR prints the aliases that
// argument locations use before the module.
// LOC-DAG: #[[$EXPLOC:loc[0-9]+]] = loc({{.*}}fuse.mlir":[[# @LINE+11]]:8)
// LOC-DAG: #[[$ABSLOC:loc[0-9]+]] = loc({{.*}}fuse.mlir":[[# @LINE+11]]:8)
// LOC-DAG: #[[$FUSED:loc[0-9]+]] = loc(fused<"autofuse_pointwise_0_Exp_Abs">[#[[$EXPLOC]], #[[$ABSLOC]]])
// LOC-LABEL: func.func @chain
// LOC: call @autofuse_pointwise_0_Exp_Abs(%arg0) {{.*}} loc(#[[$FUSED]])
// LOC: func.func @autofuse_pointwise_0_Exp_Abs(%arg0: {{.*}} loc(fused<"autofuse_pointwise_0_Exp_Abs">[#[[$EXPLOC]], #[[$ABSLOC]]]))
// LOC: "ascir.exp"{{.*}} loc(#[[$EXPLOC]])
// LOC: "ascir.abs"{{.*}} loc(#[[$ABSLOC]])
// LOC: return {{.*}} loc(#[[$FUSED]])
// LOC-NEXT: } loc(#[[$FUSED]])
func.func @chain(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = "ascend.exp"(%x) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %1 = "ascend.abs"(%0) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %1 : tensor<?x16xf32>
}

// -----

// Horizontal: siblings reading x share one data/load and write two outputs.
// CHECK-LABEL: func.func @siblings
// CHECK: %[[R:.*]]:2 = call @autofuse_pointwise_0_Exp_Abs(%arg0)
// CHECK: return %[[R]]#0, %[[R]]#1
// CHECK-LABEL: func.func @autofuse_pointwise_0_Exp_Abs
// CHECK: %[[L:.*]] = "ascir.load"
// CHECK-NOT: "ascir.load"
// CHECK: "ascir.exp"(%[[L]])
// CHECK: "ascir.output"{{.*}}index = 0 : i64
// CHECK: "ascir.abs"(%[[L]])
// CHECK: "ascir.output"{{.*}}index = 1 : i64
func.func @siblings(%x: tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %0 = "ascend.exp"(%x) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %1 = "ascend.abs"(%x) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %0, %1 : tensor<?x16xf32>, tensor<?x16xf32>
}

// -----

// Elementwise + broadcast: exp over the [16] bias runs in the [s0, 16] nest with
// repeat 1 on z0 and is broadcast in UB; no store of exp(b).
// CHECK-LABEL: func.func @autofuse_pointwise_0_Exp_Add
// CHECK-SAME: ascir.axes = [#ascir.axis<0 : i64, "z0", "s0", "original", []>, #ascir.axis<1 : i64, "z1", "16", "original", []>]
// CHECK: %[[DB:.*]] = "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1], ["1", "16"], ["0", "1"]>}
// CHECK: %[[LB:.*]] = "ascir.load"(%[[DB]])
// CHECK: %[[E:.*]] = "ascir.exp"(%[[LB]]) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["1", "16"], ["0", "1"]>}
// CHECK: %[[DX:.*]] = "ascir.data"(%arg1)
// CHECK: %[[LX:.*]] = "ascir.load"(%[[DX]])
// CHECK: %[[B:.*]] = "ascir.broadcast"(%[[E]]) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>}
// CHECK: "ascir.add"(%[[LX]], %[[B]])
// CHECK-COUNT-1: "ascir.store"
// CHECK-NOT: "ascir.store"
func.func @broadcast(%x: tensor<?x16xf32>, %b: tensor<16xf32>) -> tensor<?x16xf32> {
  %g = "ascend.exp"(%b) : (tensor<16xf32>) -> tensor<16xf32>
  %0 = "ascend.add"(%x, %g) : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// Elementwise into a reduction (prologue): the sum reads exp's value.
// CHECK-LABEL: func.func @autofuse_reduce_0_Exp_ReduceSum
// CHECK: %[[E:.*]] = "ascir.exp"
// CHECK-NEXT: %[[S:.*]] = "ascir.sum"(%[[E]]) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>}
// CHECK-NEXT: "ascir.store"(%[[S]])
func.func @prologue(%x: tensor<?x16xf32>) -> tensor<?x1xf32> {
  %0 = "ascend.exp"(%x) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %1 = "ascend.reduce_sum"(%0) {axes = [1], keep_dims = true} : (tensor<?x16xf32>) -> tensor<?x1xf32>
  return %1 : tensor<?x1xf32>
}

// -----

// Reduction into elementwise consumers and back through a broadcast (softmax): one
// kernel, one read of x, one write of y; both reductions share the loop nest.
// CHECK-LABEL: func.func @softmax
// CHECK: call @autofuse_reduce_0_ReduceMax_Sub_Exp_ReduceSum_Div(%arg0)
// CHECK-NOT: call
// CHECK-LABEL: func.func @autofuse_reduce_0_ReduceMax_Sub_Exp_ReduceSum_Div
// CHECK-SAME: ascir.ops = ["ReduceMax", "Sub", "Exp", "ReduceSum", "Div"]
// CHECK: %[[L:.*]] = "ascir.load"
// CHECK-NEXT: %[[M:.*]] = "ascir.max"(%[[L]]) {{.*}}view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>}
// CHECK-NEXT: %[[BM:.*]] = "ascir.broadcast"(%[[M]]) {{.*}}view = #ascir.view<[0, 1], ["s0", "64"], ["64", "1"]>}
// CHECK-NEXT: %[[SUB:.*]] = "ascir.sub"(%[[L]], %[[BM]])
// CHECK-NEXT: %[[E:.*]] = "ascir.exp"(%[[SUB]])
// CHECK-NEXT: %[[S:.*]] = "ascir.sum"(%[[E]])
// CHECK-NEXT: %[[BS:.*]] = "ascir.broadcast"(%[[S]])
// CHECK-NEXT: %[[D:.*]] = "ascir.div"(%[[E]], %[[BS]])
// CHECK-NEXT: "ascir.store"(%[[D]])
// CHECK-NOT: "ascir.load"
func.func @softmax(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = "ascend.softmax"(%x) {axis = -1 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// A reduction, elementwise ops on the reduced shape [s0, 1] (their size-1 axis maps
// onto the reduced one) and the broadcast back (the mean-subtraction of layer_norm).
// CHECK-LABEL: func.func @autofuse_reduce_0_ReduceSum_Div_Sub
// CHECK: "ascir.sum"
// CHECK: %[[C:.*]] = "ascir.data"(%arg1) {index = 1 : i64, view = #ascir.view<[0, 1], ["1", "1"], ["0", "0"]>} : (tensor<f32>)
// CHECK: "ascir.div"{{.*}}view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>}
// CHECK: "ascir.broadcast"
// CHECK: "ascir.sub"
// CHECK-COUNT-1: "ascir.store"
// CHECK-NOT: "ascir.store"
func.func @centered(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = "ascend.reduce_mean"(%x) {axes = [1], keep_dims = true} : (tensor<?x16xf32>) -> tensor<?x1xf32>
  %1 = "ascend.sub"(%x, %0) : (tensor<?x16xf32>, tensor<?x1xf32>) -> tensor<?x16xf32>
  return %1 : tensor<?x16xf32>
}

// -----

// A reduction without kept dims feeding an op on the reduced [s0] shape.
// CHECK-LABEL: func.func @autofuse_reduce_0_ReduceSum_Sqrt
// CHECK: %[[S:.*]] = "ascir.sum"
// CHECK-NEXT: "ascir.sqrt"(%[[S]]) {{.*}}view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>}
// CHECK: "ascir.output"{{.*}} -> tensor<?xf32, #ascend.dims<["s0"]>>
func.func @nokeep(%x: tensor<?x16xf32>) -> tensor<?xf32> {
  %0 = "ascend.reduce_sum"(%x) {axes = [1], keep_dims = false} : (tensor<?x16xf32>) -> tensor<?xf32>
  %1 = "ascend.sqrt"(%0) : (tensor<?xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

// Multi-output: exp(x) is returned too, so the fused kernel stores it and still feeds
// abs from UB.
// CHECK-LABEL: func.func @multi_output
// CHECK: %[[R:.*]]:2 = call @autofuse_pointwise_0_Exp_Abs(%arg0)
// CHECK: return %[[R]]#1, %[[R]]#0
// CHECK-LABEL: func.func @autofuse_pointwise_0_Exp_Abs
// CHECK: %[[E:.*]] = "ascir.exp"
// CHECK-NEXT: %[[S0:.*]] = "ascir.store"(%[[E]])
// CHECK-NEXT: "ascir.output"(%[[S0]]) {index = 0 : i64
// CHECK-NEXT: %[[A:.*]] = "ascir.abs"(%[[E]])
// CHECK-NEXT: %[[S1:.*]] = "ascir.store"(%[[A]])
// CHECK-NEXT: "ascir.output"(%[[S1]]) {index = 1 : i64
func.func @multi_output(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = "ascend.exp"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "ascend.abs"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  return %1, %0 : tensor<8xf32>, tensor<8xf32>
}

// -----

// The fused call moves after the matmul it depends on (ops are reordered by data flow);
// matmul (k = 64, over the vectorization bound of --decompose) stays a graph op.
// CHECK-LABEL: func.func @reorder
// CHECK: %[[M:.*]] = "ascend.matmul"
// CHECK-NEXT: call @autofuse_pointwise_0_Exp_Add(%arg0, %[[M]])
func.func @reorder(%x: tensor<4x4xf32>, %y: tensor<4x64xf32>, %w: tensor<64x4xf32>) -> tensor<4x4xf32> {
  %e = "ascend.exp"(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-remark@+2 {{AF-DC001 matmul-not-vectorized}}
  // expected-remark@+1 {{AF-LW002}}
  %m = "ascend.matmul"(%y, %w) {transpose_a = false, transpose_b = false} : (tensor<4x64xf32>, tensor<64x4xf32>) -> tensor<4x4xf32>
  %s = "ascend.add"(%e, %m) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}
