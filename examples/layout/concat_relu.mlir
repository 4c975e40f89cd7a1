// relu(concat(x, y, axis = 1)) on f32 [s0, 13 | 7] -> [s0, 20]: the concat is on the
// innermost axis at an offset (13 floats) that is not 32-byte aligned.
func.func @concat_relu(%x: tensor<?x13xf32, #ascend.dims<["s0", "13"]>>, %y: tensor<?x7xf32, #ascend.dims<["s0", "7"]>>) -> tensor<?x20xf32, #ascend.dims<["s0", "20"]>> {
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<?x13xf32, #ascend.dims<["s0", "13"]>>, tensor<?x7xf32, #ascend.dims<["s0", "7"]>>) -> tensor<?x20xf32, #ascend.dims<["s0", "20"]>>
  %1 = "ascend.relu"(%0) : (tensor<?x20xf32, #ascend.dims<["s0", "20"]>>) -> tensor<?x20xf32, #ascend.dims<["s0", "20"]>>
  return %1 : tensor<?x20xf32, #ascend.dims<["s0", "20"]>>
}
