// A bf16 transpose of the two innermost axes feeding an add.
func.func @t(%x: tensor<2x3x6x8xbf16>, %y: tensor<2x3x8x6xbf16>) -> tensor<2x3x8x6xbf16> {
  %0 = "ascend.transpose"(%x) {perm = [0, 1, 3, 2]} : (tensor<2x3x6x8xbf16>) -> tensor<2x3x8x6xbf16>
  %1 = "ascend.add"(%0, %y) : (tensor<2x3x8x6xbf16>, tensor<2x3x8x6xbf16>) -> tensor<2x3x8x6xbf16>
  return %1 : tensor<2x3x8x6xbf16>
}
