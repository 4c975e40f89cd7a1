// Softmax over the last axis of [4096, 1024] f32 (attention-score rows).
func.func @softmax(%x: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %y = "ascend.softmax"(%x) {axis = -1 : i64} : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  return %y : tensor<4096x1024xf32>
}
