// sigmoid(concat(abs(x), neg(y), axis = 1)) on f16 [s0, s1 | s2] -> [s0, s1 + s2]: symbolic
// extents on the concat axis (the offset of y's part is aligned or not at run time).
func.func @concat_last_dyn_f16(%x: tensor<?x?xf16, #ascend.dims<["s0", "s1"]>>, %y: tensor<?x?xf16, #ascend.dims<["s0", "s2"]>>) -> tensor<?x?xf16> {
  %0 = "ascend.abs"(%x) : (tensor<?x?xf16, #ascend.dims<["s0", "s1"]>>) -> tensor<?x?xf16, #ascend.dims<["s0", "s1"]>>
  %1 = "ascend.neg"(%y) : (tensor<?x?xf16, #ascend.dims<["s0", "s2"]>>) -> tensor<?x?xf16, #ascend.dims<["s0", "s2"]>>
  %2 = "ascend.concat"(%0, %1) {axis = 1 : i64} : (tensor<?x?xf16, #ascend.dims<["s0", "s1"]>>, tensor<?x?xf16, #ascend.dims<["s0", "s2"]>>) -> tensor<?x?xf16>
  %3 = "ascend.sigmoid"(%2) : (tensor<?x?xf16>) -> tensor<?x?xf16>
  return %3 : tensor<?x?xf16>
}
