// Layer normalization over the last axis of [4096, 1024] f32 with gamma and beta.
func.func @layer_norm(%x: tensor<4096x1024xf32>, %gamma: tensor<1024xf32>, %beta: tensor<1024xf32>) -> tensor<4096x1024xf32> {
  %y = "ascend.layer_norm"(%x, %gamma, %beta) {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4096x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<4096x1024xf32>
  return %y : tensor<4096x1024xf32>
}
