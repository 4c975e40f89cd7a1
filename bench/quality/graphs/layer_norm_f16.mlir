// Layer normalization over the last axis of [4096, 1024] f16 (gamma, beta f16),
// computed in f32 between two casts.
func.func @layer_norm_f16(%x: tensor<4096x1024xf16>, %gamma: tensor<1024xf16>, %beta: tensor<1024xf16>) -> tensor<4096x1024xf16> {
  %y = "ascend.layer_norm"(%x, %gamma, %beta) {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4096x1024xf16>, tensor<1024xf16>, tensor<1024xf16>) -> tensor<4096x1024xf16>
  return %y : tensor<4096x1024xf16>
}
