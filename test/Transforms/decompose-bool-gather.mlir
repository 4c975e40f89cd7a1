// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %s --entry mask_by_position | FileCheck %s --check-prefix=EXEC
// RUN: %autofuse-run -v %s --entry mask_by_tuple --symbols batch=2,seq=7 --symbols batch=3,seq=33 | FileCheck %s --check-prefix=EXEC
//
// --decompose gathers bool data as i32 between two casts: the lowering gathers no bool
// (AF-LW003), so a padding mask picked by position (GPT-2, BERT and Qwen2 exports) stayed
// a boundary op, where casts of bool fuse like any other op. The compiled graphs (the
// mask cast from int64 ids, as the exports make it) run every op in a kernel, equal to
// the interpreter of the original graph.
// EXEC-NOT: boundary op
// EXEC: max error {{.*}}: PASS
// EXEC: | 0 boundary ops
// EXEC: == PASS

// CHECK-LABEL: func.func @mask_by_position
// CHECK: %[[W:.*]] = "ascend.cast"(%{{.*}}) : (tensor<10xi1>) -> tensor<10xi32>
// CHECK: %[[G:.*]] = "ascend.gather"(%[[W]], %{{.*}}) {axis = 0 : i64} : (tensor<10xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
// CHECK: %[[B:.*]] = "ascend.cast"(%[[G]]) : (tensor<2x3xi32>) -> tensor<2x3xi1>
// CHECK-NOT: "ascend.gather"({{.*}}xi1>
// CHECK: "ascend.select"(%[[B]]
func.func @mask_by_position(%ids: tensor<2x5xi64>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %mask = "ascend.cast"(%ids) : (tensor<2x5xi64>) -> tensor<2x5xi1>
  %flat = "ascend.reshape"(%mask) : (tensor<2x5xi1>) -> tensor<10xi1>
  %at = "ascend.constant"() {value = dense<[[3, 1, 0], [9, 4, 5]]> : tensor<2x3xi32>} : () -> tensor<2x3xi32>
  %keep = "ascend.gather"(%flat, %at) {axis = 0 : i64} : (tensor<10xi1>, tensor<2x3xi32>) -> tensor<2x3xi1>
  %zero = "ascend.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %y = "ascend.select"(%keep, %x, %zero) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// The gather a gather_nd of bool becomes (GPT-2's dynamo export picks its mask so).
// CHECK-LABEL: func.func @mask_by_tuple
// CHECK-NOT: ascend.gather_nd
// CHECK: %[[W:.*]] = "ascend.cast"(%{{.*}}) : (tensor<?xi1, {{.*}}>) -> tensor<?xi32
// CHECK: %[[G:.*]] = "ascend.gather"(%[[W]], %{{.*}}) {axis = 0 : i64}
// CHECK: "ascend.cast"(%[[G]]) : (tensor<?x?xi32, {{.*}}>) -> tensor<?x?xi1
func.func @mask_by_tuple(%ids: tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>, %x: tensor<?x?xf32, #ascend.dims<["batch", "seq"]>>) -> tensor<?x?xf32, #ascend.dims<["batch", "seq"]>> {
  %mask = "ascend.cast"(%ids) : (tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>) -> tensor<?x?xi1, #ascend.dims<["batch", "seq"]>>
  %b = "ascend.range"() {start = 0 : i64, delta = 1 : i64} : () -> tensor<?xi32, #ascend.dims<["batch"]>>
  %bu = "ascend.unsqueeze"(%b) {axes = [1, 2]} : (tensor<?xi32, #ascend.dims<["batch"]>>) -> tensor<?x1x1xi32, #ascend.dims<["batch", "1", "1"]>>
  %bb = "ascend.broadcast_to"(%bu) : (tensor<?x1x1xi32, #ascend.dims<["batch", "1", "1"]>>) -> tensor<?x?x1xi32, #ascend.dims<["batch", "seq", "1"]>>
  %s = "ascend.range"() {start = 0 : i64, delta = 1 : i64} : () -> tensor<?xi32, #ascend.dims<["seq"]>>
  %su = "ascend.unsqueeze"(%s) {axes = [0, 2]} : (tensor<?xi32, #ascend.dims<["seq"]>>) -> tensor<1x?x1xi32, #ascend.dims<["1", "seq", "1"]>>
  %sb = "ascend.broadcast_to"(%su) : (tensor<1x?x1xi32, #ascend.dims<["1", "seq", "1"]>>) -> tensor<?x?x1xi32, #ascend.dims<["batch", "seq", "1"]>>
  %idx = "ascend.concat"(%bb, %sb) {axis = 2 : i64} : (tensor<?x?x1xi32, #ascend.dims<["batch", "seq", "1"]>>, tensor<?x?x1xi32, #ascend.dims<["batch", "seq", "1"]>>) -> tensor<?x?x2xi32, #ascend.dims<["batch", "seq", "2"]>>
  %keep = "ascend.gather_nd"(%mask, %idx) {batch_dims = 0 : i64} : (tensor<?x?xi1, #ascend.dims<["batch", "seq"]>>, tensor<?x?x2xi32, #ascend.dims<["batch", "seq", "2"]>>) -> tensor<?x?xi1, #ascend.dims<["batch", "seq"]>>
  %zero = "ascend.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %y = "ascend.select"(%keep, %x, %zero) : (tensor<?x?xi1, #ascend.dims<["batch", "seq"]>>, tensor<?x?xf32, #ascend.dims<["batch", "seq"]>>, tensor<f32>) -> tensor<?x?xf32, #ascend.dims<["batch", "seq"]>>
  return %y : tensor<?x?xf32, #ascend.dims<["batch", "seq"]>>
}
