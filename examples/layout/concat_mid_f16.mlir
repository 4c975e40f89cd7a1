// add(relu(concat(exp(x), y, axis = 1)), z) on static f16 [4, 5 | 2, 3, 9] -> [4, 7, 3, 9]:
// a pointwise producer feeding the concat, a concat on a middle axis, pointwise
// consumers; rows of 9 halves (18 bytes) are not 32-byte aligned.
func.func @concat_mid_f16(%x: tensor<4x5x3x9xf16>, %y: tensor<4x2x3x9xf16>, %z: tensor<4x7x3x9xf16>) -> tensor<4x7x3x9xf16> {
  %0 = "ascend.exp"(%x) : (tensor<4x5x3x9xf16>) -> tensor<4x5x3x9xf16>
  %1 = "ascend.concat"(%0, %y) {axis = 1 : i64} : (tensor<4x5x3x9xf16>, tensor<4x2x3x9xf16>) -> tensor<4x7x3x9xf16>
  %2 = "ascend.relu"(%1) : (tensor<4x7x3x9xf16>) -> tensor<4x7x3x9xf16>
  %3 = "ascend.add"(%2, %z) : (tensor<4x7x3x9xf16>, tensor<4x7x3x9xf16>) -> tensor<4x7x3x9xf16>
  return %3 : tensor<4x7x3x9xf16>
}
