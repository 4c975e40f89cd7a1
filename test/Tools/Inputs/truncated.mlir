func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ascend.abs"(%x) : (tensor<4xf32>) -> tensor<4x