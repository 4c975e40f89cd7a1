// A comment with bytes that are not UTF-8: ÿþ (MLIR accepts them in comments).
func.func @abs4(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ascend.abs"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
