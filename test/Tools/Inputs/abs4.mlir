// |x| of a static f32[4]: the outputs of autofuse-run-expect.test.
func.func @abs4(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ascend.abs"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
