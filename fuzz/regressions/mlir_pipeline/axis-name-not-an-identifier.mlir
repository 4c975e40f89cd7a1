module {
  func.func @negate_every_other(%arg0: tensor<?xf32, #ascend.dims<["4*s70*s72"]>>) -> (tensor<?xf32, #ascend.dims<["-1 + (8*s70*s72)"]>>) attributes {ascir.axes = [#ascir.axis<0 : i64, "z-0", "s72", "original", []>, #ascir.axis<1 : i64, "z-1", "4", "original", []>, #ascir.axis<2 : i64, "z-2", "s70", "original", []>, #ascir.axis<3 : i64, "z-3", "1", "original", []>], ascir.form = "hint", ascir.ops = ["neg"], ascir.sizes = ["s70", "s72"]} {
    %0 = "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1, 2, 3], ["s72", "4", "s70", "1"], ["4*s70", "s70", "1", "1"]>} : (tensor<?xf32, #ascend.dims<["4*s70*s72"]>>) -> tensor<?x4x?x1xf32>
    %1 = "ascir.load"(%0) {offset = "0", sched_axis = [0, 1, 2, 3], view = #ascir.view<[0, 1, 2, 3], ["s72", "4", "s70", "1"], ["4*s70", "s70", "1", "0"]>} : (tensor<?x4x?x1xf32>) -> tensor<?x4x?x1xf32>
    %2 = "ascir.neg"(%1) {sched_axis = [0, 1, 2, 3], view = #ascir.view<[0, 1, 2, 3], ["s72", "4", "s70", "1"], ["4*s70", "s70", "1", "0"]>} : (tensor<?x4x?x1xf32>) -> tensor<?x4x?x1xf32>
    %3 = "ascir.store"(%2) {offset = "0", sched_axis = [0, 1, 2, 3], view = #ascir.view<[0, 1, 2, 3], ["s72", "4", "s70", "1"], ["8*s70", "2*s70", "2", "1"]>} : (tensor<?x4x?x1xf32>) -> tensor<?x4x?x1xf32>
    %4 = "ascir.output"(%3) {index = 0 : i64, view = #ascir.view<[0, 1, 2, 3], ["s72", "4", "s70", "1"], ["8*s70", "2*s70", "2", "1"]>} : (tensor<?x4x?x1xf32>) -> tensor<?xf32, #ascend.dims<["-1 + (8*s70*s72)"]>>
    return %4 : tensor<?xf32, #ascend.dims<["-1 + (8*s70*s72)"]>>
  }
}
