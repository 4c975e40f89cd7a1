func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ascend.abs"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "ascend.abs"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "ascend.add"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
func.func private @unused_declaration(tensor<4xf32>) -> tensor<4xf32>
