// An f16 matmul whose products overflow f16 while its sums do not (make_attention_block.py).
func.func @matmul_f16(%a: tensor<1x4xf16>, %b: tensor<4x2xf16>) -> tensor<1x2xf16> {
  %0 = "ascend.matmul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<1x4xf16>, tensor<4x2xf16>) -> tensor<1x2xf16>
  %1 = "ascend.abs"(%0) : (tensor<1x2xf16>) -> tensor<1x2xf16>
  return %1 : tensor<1x2xf16>
}
