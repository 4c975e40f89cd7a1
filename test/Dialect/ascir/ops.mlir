// RUN: %autofuse-opt %s | %autofuse-opt | FileCheck %s
// Round trip of an AscGraph in hint form using every ascir node kind.

// CHECK-LABEL: func.func @autofuse_all_nodes
// CHECK-SAME: ascir.axes = [#ascir.axis<0 : i64, "z0", "s0", "original", []>, #ascir.axis<1 : i64, "z1", "16", "original", []>]
// CHECK-SAME: ascir.sizes = ["s0"]
func.func @autofuse_all_nodes(%a: tensor<?x16xf32, #ascend.dims<["s0", "16"]>>, %b: tensor<1x16xf32>, %idx: tensor<4xi32>)
    -> (tensor<?x16xf32, #ascend.dims<["s0", "16"]>>, tensor<?x1xf32, #ascend.dims<["s0", "1"]>>)
    attributes {ascir.axes = [#ascir.axis<0, "z0", "s0", "original", []>, #ascir.axis<1, "z1", "16", "original", []>], ascir.sizes = ["s0"]} {
  // CHECK: "ascir.data"(%{{.*}}) {index = 0 : i64, view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>}
  %d0 = "ascir.data"(%a) {index = 0, view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : (tensor<?x16xf32, #ascend.dims<["s0", "16"]>>) -> tensor<?x16xf32>
  %d1 = "ascir.data"(%b) {index = 1, view = #ascir.view<[0, 1], ["1", "16"], ["0", "1"]>} : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %d2 = "ascir.data"(%idx) {index = 2, view = #ascir.view<[0, 1], ["1", "4"], ["0", "1"]>} : (tensor<4xi32>) -> tensor<1x4xi32>
  // CHECK: "ascir.load"
  %l0 = "ascir.load"(%d0) {offset = "0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %l1 = "ascir.load"(%d1) {offset = "0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["1", "16"], ["0", "1"]>} : (tensor<1x16xf32>) -> tensor<1x16xf32>
  // CHECK: "ascir.broadcast"
  %bc = "ascir.broadcast"(%l1) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : (tensor<1x16xf32>) -> tensor<?x16xf32>
  // CHECK: "ascir.scalar"
  %sc = "ascir.scalar"() {value = "2.0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["1", "1"], ["0", "0"]>} : () -> tensor<1x1xf32>
  // CHECK: "ascir.fill"
  %fl = "ascir.fill"() {value = "0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : () -> tensor<?x16xf32>
  // CHECK: "ascir.add"
  %add = "ascir.add"(%l0, %bc) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  %exp = "ascir.exp"(%add) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  // CHECK: "ascir.leaky_relu"
  %lr = "ascir.leaky_relu"(%exp) {alpha = 0.2 : f32, sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  // CHECK: "ascir.gt"
  %gt = "ascir.gt"(%lr, %fl) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xi1>
  // CHECK: "ascir.select"
  %sel = "ascir.select"(%gt, %lr, %fl) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : (tensor<?x16xi1>, tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  // CHECK: "ascir.where"
  %wh = "ascir.where"(%gt, %sel, %fl) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : (tensor<?x16xi1>, tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  // CHECK: "ascir.cast"
  %h = "ascir.cast"(%wh) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : (tensor<?x16xf32>) -> tensor<?x16xf16>
  %f = "ascir.cast"(%h) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : (tensor<?x16xf16>) -> tensor<?x16xf32>
  // CHECK: "ascir.sum"(%{{.*}}) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>}
  %sum = "ascir.sum"(%f) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>} : (tensor<?x16xf32>) -> tensor<?x1xf32>
  %mean = "ascir.mean"(%f) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>} : (tensor<?x16xf32>) -> tensor<?x1xf32>
  %max = "ascir.max"(%f) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>} : (tensor<?x16xf32>) -> tensor<?x1xf32>
  %min = "ascir.min"(%f) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>} : (tensor<?x16xf32>) -> tensor<?x1xf32>
  %prod = "ascir.prod"(%f) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>} : (tensor<?x16xf32>) -> tensor<?x1xf32>
  %any = "ascir.any"(%gt) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>} : (tensor<?x16xi1>) -> tensor<?x1xi1>
  %all = "ascir.all"(%gt) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>} : (tensor<?x16xi1>) -> tensor<?x1xi1>
  // CHECK: "ascir.transpose"
  %tr = "ascir.transpose"(%f) {sched_axis = [0, 1], view = #ascir.view<[1, 0], ["16", "s0"], ["s0", "1"]>} : (tensor<?x16xf32>) -> tensor<16x?xf32>
  // CHECK: "ascir.concat"
  %cc = "ascir.concat"(%sum, %max) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "2"], ["2", "1"]>} : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x2xf32>
  // CHECK: "ascir.split"
  %sp = "ascir.split"(%cc) {index = 0, sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>} : (tensor<?x2xf32>) -> tensor<?x1xf32>
  // CHECK: "ascir.gather"
  %li = "ascir.load"(%d2) {offset = "0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["1", "4"], ["0", "1"]>} : (tensor<1x4xi32>) -> tensor<1x4xi32>
  %ga = "ascir.gather"(%d1, %li) {axis = 1, sched_axis = [0, 1], view = #ascir.view<[0, 1], ["1", "4"], ["0", "1"]>} : (tensor<1x16xf32>, tensor<1x4xi32>) -> tensor<1x4xf32>
  // CHECK: "ascir.store"
  %st = "ascir.store"(%f) {offset = "0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %st1 = "ascir.store"(%sp) {offset = "0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>} : (tensor<?x1xf32>) -> tensor<?x1xf32>
  // CHECK: "ascir.workspace"
  %ws = "ascir.workspace"(%st1) {index = 0, view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>} : (tensor<?x1xf32>) -> tensor<?x1xf32, #ascend.dims<["s0", "1"]>>
  // CHECK: "ascir.output"
  %o0 = "ascir.output"(%st) {index = 0, view = #ascir.view<[0, 1], ["s0", "16"], ["16", "1"]>} : (tensor<?x16xf32>) -> tensor<?x16xf32, #ascend.dims<["s0", "16"]>>
  %o1 = "ascir.output"(%st1) {index = 1, view = #ascir.view<[0, 1], ["s0", "1"], ["1", "0"]>} : (tensor<?x1xf32>) -> tensor<?x1xf32, #ascend.dims<["s0", "1"]>>
  return %o0, %o1 : tensor<?x16xf32, #ascend.dims<["s0", "16"]>>, tensor<?x1xf32, #ascend.dims<["s0", "1"]>>
}
