// A parameter reading past the end of its file (weights.test): weights_truncated.bin
// holds 4160 bytes, the weight needs bytes 64..8256.
func.func @truncated(%x: tensor<4x512xf32>) -> tensor<4x512xf32> {
  %w = "ascend.parameter"() {file = "weights_truncated.bin", offset = 64 : i64} : () -> tensor<4x512xf32>
  %y = "ascend.add"(%x, %w) : (tensor<4x512xf32>, tensor<4x512xf32>) -> tensor<4x512xf32>
  return %y : tensor<4x512xf32>
}
