// RMS normalization over the last axis of a [tokens, 4096] f16 tensor with a dynamic
// token count: x / sqrt(mean(x^2) + eps) * gamma, computed in f32.
func.func @rms_norm(%x: tensor<?x4096xf16>, %gamma: tensor<4096xf16>) -> tensor<?x4096xf16> {
  %y = "ascend.rms_norm"(%x, %gamma) {axis = 1 : i64, epsilon = 1.0e-06 : f32} : (tensor<?x4096xf16>, tensor<4096xf16>) -> tensor<?x4096xf16>
  return %y : tensor<?x4096xf16>
}
