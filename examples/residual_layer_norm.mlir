// Residual add followed by layer normalization, as in a transformer block: returns the
// new residual stream h = x + r and layer_norm(h) over [tokens, 768] f32 (x and r share
// the dynamic token count s0).
func.func @residual_layer_norm(%x: tensor<?x768xf32, #ascend.dims<["s0", "768"]>>, %r: tensor<?x768xf32, #ascend.dims<["s0", "768"]>>, %gamma: tensor<768xf32>, %beta: tensor<768xf32>) -> (tensor<?x768xf32, #ascend.dims<["s0", "768"]>>, tensor<?x768xf32, #ascend.dims<["s0", "768"]>>) {
  %h = "ascend.add"(%x, %r) : (tensor<?x768xf32, #ascend.dims<["s0", "768"]>>, tensor<?x768xf32, #ascend.dims<["s0", "768"]>>) -> tensor<?x768xf32, #ascend.dims<["s0", "768"]>>
  %y = "ascend.layer_norm"(%h, %gamma, %beta) {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<?x768xf32, #ascend.dims<["s0", "768"]>>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x768xf32, #ascend.dims<["s0", "768"]>>
  return %h, %y : tensor<?x768xf32, #ascend.dims<["s0", "768"]>>, tensor<?x768xf32, #ascend.dims<["s0", "768"]>>
}
