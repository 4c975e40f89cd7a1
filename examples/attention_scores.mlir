// Attention probabilities from scores laid out [batch, query, heads, key] (what a batched
// matmul over [b, s, h, d] x K^T writes when the heads stay in the middle): transpose to
// [batch, heads, query, key], scale by 1/sqrt(64), add the [batch, 1, 1, key] padding mask
// and softmax over the keys. The transpose keeps the key axis innermost, so it is the
// strided load of the scores: one kernel reads the scores and the mask once and writes
// the probabilities.
func.func @attention_scores(%scores: tensor<?x?x12x?xf16, #ascend.dims<["b", "s", "12", "s"]>>, %mask: tensor<?x1x1x?xf16, #ascend.dims<["b", "1", "1", "s"]>>) -> tensor<?x12x?x?xf16, #ascend.dims<["b", "12", "s", "s"]>> {
  %t = "ascend.transpose"(%scores) {perm = [0, 2, 1, 3]} : (tensor<?x?x12x?xf16, #ascend.dims<["b", "s", "12", "s"]>>) -> tensor<?x12x?x?xf16, #ascend.dims<["b", "12", "s", "s"]>>
  %scale = "ascend.constant"() {value = dense<0.125> : tensor<f16>} : () -> tensor<f16>
  %scaled = "ascend.mul"(%t, %scale) : (tensor<?x12x?x?xf16, #ascend.dims<["b", "12", "s", "s"]>>, tensor<f16>) -> tensor<?x12x?x?xf16, #ascend.dims<["b", "12", "s", "s"]>>
  %masked = "ascend.add"(%scaled, %mask) : (tensor<?x12x?x?xf16, #ascend.dims<["b", "12", "s", "s"]>>, tensor<?x1x1x?xf16, #ascend.dims<["b", "1", "1", "s"]>>) -> tensor<?x12x?x?xf16, #ascend.dims<["b", "12", "s", "s"]>>
  %probs = "ascend.softmax"(%masked) {axis = -1 : i64} : (tensor<?x12x?x?xf16, #ascend.dims<["b", "12", "s", "s"]>>) -> tensor<?x12x?x?xf16, #ascend.dims<["b", "12", "s", "s"]>>
  return %probs : tensor<?x12x?x?xf16, #ascend.dims<["b", "12", "s", "s"]>>
}
