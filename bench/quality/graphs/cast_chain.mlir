// f16 -> f32 -> f16 cast chains over [4096, 1024]: two rounds through f32 with a rounding
// to f16 in between, so no cast pair is an identity:
// y = f16(f32(f16(sigmoid(f32(x)))) * f32(x)).
func.func @cast_chain(%x: tensor<4096x1024xf16>) -> tensor<4096x1024xf16> {
  %a = "ascend.cast"(%x) : (tensor<4096x1024xf16>) -> tensor<4096x1024xf32>
  %b = "ascend.sigmoid"(%a) : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  %c = "ascend.cast"(%b) : (tensor<4096x1024xf32>) -> tensor<4096x1024xf16>
  %d = "ascend.cast"(%c) : (tensor<4096x1024xf16>) -> tensor<4096x1024xf32>
  %e = "ascend.mul"(%d, %a) : (tensor<4096x1024xf32>, tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  %y = "ascend.cast"(%e) : (tensor<4096x1024xf32>) -> tensor<4096x1024xf16>
  return %y : tensor<4096x1024xf16>
}
