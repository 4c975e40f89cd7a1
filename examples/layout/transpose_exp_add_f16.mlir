// relu(transpose(exp(x), [2, 0, 1, 3]) + y) on f16, static, odd extents (13 halves =
// 26 bytes per row, not 32-byte aligned): one kernel reading x with the transposed view.
func.func @transpose_exp_add_f16(%x: tensor<5x3x7x13xf16>, %y: tensor<7x5x3x13xf16>) -> tensor<7x5x3x13xf16> {
  %0 = "ascend.exp"(%x) : (tensor<5x3x7x13xf16>) -> tensor<5x3x7x13xf16>
  %1 = "ascend.transpose"(%0) {perm = [2, 0, 1, 3]} : (tensor<5x3x7x13xf16>) -> tensor<7x5x3x13xf16>
  %2 = "ascend.add"(%1, %y) : (tensor<7x5x3x13xf16>, tensor<7x5x3x13xf16>) -> tensor<7x5x3x13xf16>
  %3 = "ascend.relu"(%2) : (tensor<7x5x3x13xf16>) -> tensor<7x5x3x13xf16>
  return %3 : tensor<7x5x3x13xf16>
}
