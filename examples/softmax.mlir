// Softmax over the last axis of a [batch, 1024] f32 tensor with a dynamic batch.
func.func @softmax(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %y = "ascend.softmax"(%x) {axis = -1 : i64} : (tensor<?x1024xf32>) -> tensor<?x1024xf32>
  return %y : tensor<?x1024xf32>
}
