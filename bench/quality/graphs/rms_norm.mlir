// RMS normalization over the last axis of [4096, 1024] f32: x / sqrt(mean(x^2) + eps) * gamma.
func.func @rms_norm(%x: tensor<4096x1024xf32>, %gamma: tensor<1024xf32>) -> tensor<4096x1024xf32> {
  %y = "ascend.rms_norm"(%x, %gamma) {axis = 1 : i64, epsilon = 1.0e-06 : f32} : (tensor<4096x1024xf32>, tensor<1024xf32>) -> tensor<4096x1024xf32>
  return %y : tensor<4096x1024xf32>
}
