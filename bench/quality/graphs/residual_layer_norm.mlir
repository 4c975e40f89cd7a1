// Residual add + layer normalization over [4096, 1024] f32: returns the new residual
// stream h = x + r and layer_norm(h).
func.func @residual_layer_norm(%x: tensor<4096x1024xf32>, %r: tensor<4096x1024xf32>, %gamma: tensor<1024xf32>, %beta: tensor<1024xf32>) -> (tensor<4096x1024xf32>, tensor<4096x1024xf32>) {
  %h = "ascend.add"(%x, %r) : (tensor<4096x1024xf32>, tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  %y = "ascend.layer_norm"(%h, %gamma, %beta) {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4096x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<4096x1024xf32>
  return %h, %y : tensor<4096x1024xf32>, tensor<4096x1024xf32>
}
