// Softmax over the last axis of [4096, 1024] f16, computed in f32 between two casts.
func.func @softmax_f16(%x: tensor<4096x1024xf16>) -> tensor<4096x1024xf16> {
  %y = "ascend.softmax"(%x) {axis = -1 : i64} : (tensor<4096x1024xf16>) -> tensor<4096x1024xf16>
  return %y : tensor<4096x1024xf16>
}
