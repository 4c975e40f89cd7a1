func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "ascend.softmax"(%x) {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
