// sigmoid(transpose(x, [1, 0]) + y) on f16 [s0, 100] -> [100, s0]: half blocks (pitch
// 16 elements), the Transpose temporary sized for 2-byte elements.
func.func @transpose_t2d_f16(%x: tensor<?x100xf16, #ascend.dims<["s0", "100"]>>, %y: tensor<100x?xf16, #ascend.dims<["100", "s0"]>>) -> tensor<100x?xf16, #ascend.dims<["100", "s0"]>> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<?x100xf16, #ascend.dims<["s0", "100"]>>) -> tensor<100x?xf16, #ascend.dims<["100", "s0"]>>
  %1 = "ascend.add"(%0, %y) : (tensor<100x?xf16, #ascend.dims<["100", "s0"]>>, tensor<100x?xf16, #ascend.dims<["100", "s0"]>>) -> tensor<100x?xf16, #ascend.dims<["100", "s0"]>>
  %2 = "ascend.sigmoid"(%1) : (tensor<100x?xf16, #ascend.dims<["100", "s0"]>>) -> tensor<100x?xf16, #ascend.dims<["100", "s0"]>>
  return %2 : tensor<100x?xf16, #ascend.dims<["100", "s0"]>>
}
