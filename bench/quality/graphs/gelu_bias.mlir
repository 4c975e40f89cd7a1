// gelu(x + bias), tanh form, over [4096, 1024] f32 with a [1024] bias.
func.func @gelu_bias(%x: tensor<4096x1024xf32>, %bias: tensor<1024xf32>) -> tensor<4096x1024xf32> {
  %h = "ascend.add"(%x, %bias) : (tensor<4096x1024xf32>, tensor<1024xf32>) -> tensor<4096x1024xf32>
  %y = "ascend.gelu"(%h) {approximate = "tanh"} : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  return %y : tensor<4096x1024xf32>
}
