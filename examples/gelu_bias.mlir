// GELU of a biased activation, gelu(x + bias), over [tokens, 3072] f32 (tanh form).
func.func @gelu_bias(%x: tensor<?x3072xf32>, %bias: tensor<3072xf32>) -> tensor<?x3072xf32> {
  %h = "ascend.add"(%x, %bias) : (tensor<?x3072xf32>, tensor<3072xf32>) -> tensor<?x3072xf32>
  %y = "ascend.gelu"(%h) {approximate = "tanh"} : (tensor<?x3072xf32>) -> tensor<?x3072xf32>
  return %y : tensor<?x3072xf32>
}
