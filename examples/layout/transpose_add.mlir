// transpose(x, [1, 0, 2]) + y on [s0, 6, 20] -> [6, s0, 20] f32: the transpose keeps the
// innermost axis, so the fused kernel reads x with permuted strides.
func.func @transpose_add(%x: tensor<?x6x20xf32, #ascend.dims<["s0", "6", "20"]>>, %y: tensor<6x?x20xf32, #ascend.dims<["6", "s0", "20"]>>) -> tensor<6x?x20xf32, #ascend.dims<["6", "s0", "20"]>> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0, 2]} : (tensor<?x6x20xf32, #ascend.dims<["s0", "6", "20"]>>) -> tensor<6x?x20xf32, #ascend.dims<["6", "s0", "20"]>>
  %1 = "ascend.add"(%0, %y) : (tensor<6x?x20xf32, #ascend.dims<["6", "s0", "20"]>>, tensor<6x?x20xf32, #ascend.dims<["6", "s0", "20"]>>) -> tensor<6x?x20xf32, #ascend.dims<["6", "s0", "20"]>>
  return %1 : tensor<6x?x20xf32, #ascend.dims<["6", "s0", "20"]>>
}
