// exp, a constant pad of the last axis (3 before, 5 after), a square: one kernel.
func.func @pad_last(%x: tensor<?x40xf32, #ascend.dims<["s0", "40"]>>) -> tensor<?x48xf32, #ascend.dims<["s0", "48"]>> {
  %e = "ascend.exp"(%x) : (tensor<?x40xf32, #ascend.dims<["s0", "40"]>>) -> tensor<?x40xf32, #ascend.dims<["s0", "40"]>>
  %p = "ascend.pad"(%e) {pads = [0, 3, 0, 5], mode = "constant", value = -1.5 : f64} : (tensor<?x40xf32, #ascend.dims<["s0", "40"]>>) -> tensor<?x48xf32, #ascend.dims<["s0", "48"]>>
  %y = "ascend.mul"(%p, %p) : (tensor<?x48xf32, #ascend.dims<["s0", "48"]>>, tensor<?x48xf32, #ascend.dims<["s0", "48"]>>) -> tensor<?x48xf32, #ascend.dims<["s0", "48"]>>
  return %y : tensor<?x48xf32, #ascend.dims<["s0", "48"]>>
}
