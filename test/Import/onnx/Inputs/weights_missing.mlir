// Parameters whose weight files are absent or too short (weights.test).
func.func @missing(%x: tensor<4x512xf32>) -> tensor<4x512xf32> {
  %w = "ascend.parameter"() {file = "no_such_weights.bin", offset = 0 : i64} : () -> tensor<4x512xf32>
  %y = "ascend.add"(%x, %w) : (tensor<4x512xf32>, tensor<4x512xf32>) -> tensor<4x512xf32>
  return %y : tensor<4x512xf32>
}
