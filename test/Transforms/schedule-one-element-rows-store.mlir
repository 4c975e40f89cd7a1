// RUN: %autofuse-opt %s --infer-symbolic-shapes --schedule | FileCheck %s
//
// A contiguous load and a store strided along the kernel's innermost axis (every other
// element: Inductor's kernels of GPT-NeoX's partial rotary write one of each pair) with
// a unit axis after
// it along which the GM views are contiguous: the unit axis stays innermost, so the
// store moves rows of one element (DataCopyPad with a GM gap) instead of being refused
// ("GM view of node 3 is not contiguous along the innermost axis"), as strided loads
// already were. Route 2 of the PyTorch backend emits this form
// (python/autofuse/torch/ascgraph.py, `unit_inner`).

// CHECK-LABEL: func.func @negate_every_other
// CHECK: ascir.form = "impl"
// CHECK: "ascir.store"{{.*}}tiling_group = "()(z0,z1,z2,z3)()", view = #ascir.view<[0, 1, 2, 3], ["s72", "4", "s70", "1"], ["8*s70", "2*s70", "2", "1"]>
module {
  func.func @negate_every_other(%arg0: tensor<?xf32, #ascend.dims<["4*s70*s72"]>>) -> (tensor<?xf32, #ascend.dims<["-1 + (8*s70*s72)"]>>) attributes {ascir.axes = [#ascir.axis<0 : i64, "z0", "s72", "original", []>, #ascir.axis<1 : i64, "z1", "4", "original", []>, #ascir.axis<2 : i64, "z2", "s70", "original", []>, #ascir.axis<3 : i64, "z3", "1", "original", []>], ascir.form = "hint", ascir.ops = ["neg"], ascir.sizes = ["s70", "s72"]} {
    %0 = "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1, 2, 3], ["s72", "4", "s70", "1"], ["4*s70", "s70", "1", "1"]>} : (tensor<?xf32, #ascend.dims<["4*s70*s72"]>>) -> tensor<?x4x?x1xf32>
    %1 = "ascir.load"(%0) {offset = "0", sched_axis = [0, 1, 2, 3], view = #ascir.view<[0, 1, 2, 3], ["s72", "4", "s70", "1"], ["4*s70", "s70", "1", "0"]>} : (tensor<?x4x?x1xf32>) -> tensor<?x4x?x1xf32>
    %2 = "ascir.neg"(%1) {sched_axis = [0, 1, 2, 3], view = #ascir.view<[0, 1, 2, 3], ["s72", "4", "s70", "1"], ["4*s70", "s70", "1", "0"]>} : (tensor<?x4x?x1xf32>) -> tensor<?x4x?x1xf32>
    %3 = "ascir.store"(%2) {offset = "0", sched_axis = [0, 1, 2, 3], view = #ascir.view<[0, 1, 2, 3], ["s72", "4", "s70", "1"], ["8*s70", "2*s70", "2", "1"]>} : (tensor<?x4x?x1xf32>) -> tensor<?x4x?x1xf32>
    %4 = "ascir.output"(%3) {index = 0 : i64, view = #ascir.view<[0, 1, 2, 3], ["s72", "4", "s70", "1"], ["8*s70", "2*s70", "2", "1"]>} : (tensor<?x4x?x1xf32>) -> tensor<?xf32, #ascend.dims<["-1 + (8*s70*s72)"]>>
    return %4 : tensor<?xf32, #ascend.dims<["-1 + (8*s70*s72)"]>>
  }
}
