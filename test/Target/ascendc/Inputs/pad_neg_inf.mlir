// An attention bias padded with -inf along the keys, added to the scores, softmax.
func.func @p(%x: tensor<2x3x4x4xf32>, %y: tensor<2x3x4x6xf32>) -> tensor<2x3x4x6xf32> {
  %0 = "ascend.pad"(%x) {mode = "constant", pads = [0, 0, 0, 0, 0, 0, 0, 2], value = 0xFF800000 : f32} : (tensor<2x3x4x4xf32>) -> tensor<2x3x4x6xf32>
  %1 = "ascend.add"(%0, %y) : (tensor<2x3x4x6xf32>, tensor<2x3x4x6xf32>) -> tensor<2x3x4x6xf32>
  %2 = "ascend.softmax"(%1) {axis = 3 : i64} : (tensor<2x3x4x6xf32>) -> tensor<2x3x4x6xf32>
  return %2 : tensor<2x3x4x6xf32>
}
