// complex<f32> is valid MLIR but not an element type autofuse supports.
func.func @f(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = "ascend.abs"(%a) : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}
