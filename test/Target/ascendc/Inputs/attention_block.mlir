// A small attention block: softmax(Q K^T * 0.25 + mask) V, f32, [batch 2, heads 2,
// seq 8, head dim 16]. Inputs and the expected output: make_attention_block.py.
func.func @attention(%q: tensor<2x2x8x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>, %mask: tensor<8x8xf32>) -> tensor<2x2x8x16xf32> {
  %s = "ascend.matmul"(%q, %k) {transpose_a = false, transpose_b = true} : (tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>) -> tensor<2x2x8x8xf32>
  %scale = "ascend.constant"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %scaled = "ascend.mul"(%s, %scale) : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8x8xf32>
  %masked = "ascend.add"(%scaled, %mask) : (tensor<2x2x8x8xf32>, tensor<8x8xf32>) -> tensor<2x2x8x8xf32>
  %p = "ascend.softmax"(%masked) {axis = -1 : i64} : (tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  %o = "ascend.matmul"(%p, %v) {transpose_a = false, transpose_b = false} : (tensor<2x2x8x8xf32>, tensor<2x2x8x16xf32>) -> tensor<2x2x8x16xf32>
  return %o : tensor<2x2x8x16xf32>
}
