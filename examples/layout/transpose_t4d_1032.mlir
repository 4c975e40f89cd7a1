// transpose(x, [1, 0, 3, 2]) + y on [3, s0, 20, 9] -> [s0, 3, 9, 20] f32: the outer axes
// are permuted too (strided loads of the looped axes), the inner two swap in UB.
func.func @transpose_t4d_1032(%x: tensor<3x?x20x9xf32, #ascend.dims<["3", "s0", "20", "9"]>>, %y: tensor<?x3x9x20xf32, #ascend.dims<["s0", "3", "9", "20"]>>) -> tensor<?x3x9x20xf32, #ascend.dims<["s0", "3", "9", "20"]>> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0, 3, 2]} : (tensor<3x?x20x9xf32, #ascend.dims<["3", "s0", "20", "9"]>>) -> tensor<?x3x9x20xf32, #ascend.dims<["s0", "3", "9", "20"]>>
  %1 = "ascend.add"(%0, %y) : (tensor<?x3x9x20xf32, #ascend.dims<["s0", "3", "9", "20"]>>, tensor<?x3x9x20xf32, #ascend.dims<["s0", "3", "9", "20"]>>) -> tensor<?x3x9x20xf32, #ascend.dims<["s0", "3", "9", "20"]>>
  return %1 : tensor<?x3x9x20xf32, #ascend.dims<["s0", "3", "9", "20"]>>
}
