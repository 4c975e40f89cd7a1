// Causal attention probabilities: softmax(where(key <= query, scores * scale, -1e9)) over
// the keys of [batch, 4 heads, seq, seq] f32 scores. The mask comes from two ranges of the
// dynamic sequence length (what exporters write for `torch.tril` / `arange` masks); the
// kernel computes them in UB (ascir.arange), so the mask never exists in GM.
func.func @causal_softmax(%scores: tensor<?x4x?x?xf32, #ascend.dims<["b", "4", "s", "s"]>>) -> tensor<?x4x?x?xf32, #ascend.dims<["b", "4", "s", "s"]>> {
  %pos = "ascend.range"() {delta = 1 : i64, start = 0 : i64} : () -> tensor<?xi32, #ascend.dims<["s"]>>
  %query = "ascend.unsqueeze"(%pos) {axes = [1]} : (tensor<?xi32, #ascend.dims<["s"]>>) -> tensor<?x1xi32, #ascend.dims<["s", "1"]>>
  %keep = "ascend.le"(%pos, %query) : (tensor<?xi32, #ascend.dims<["s"]>>, tensor<?x1xi32, #ascend.dims<["s", "1"]>>) -> tensor<?x?xi1, #ascend.dims<["s", "s"]>>
  %scale = "ascend.constant"() {value = dense<0.125> : tensor<f32>} : () -> tensor<f32>
  %scaled = "ascend.mul"(%scores, %scale) : (tensor<?x4x?x?xf32, #ascend.dims<["b", "4", "s", "s"]>>, tensor<f32>) -> tensor<?x4x?x?xf32, #ascend.dims<["b", "4", "s", "s"]>>
  %masked_value = "ascend.constant"() {value = dense<-1.0e9> : tensor<f32>} : () -> tensor<f32>
  %masked = "ascend.select"(%keep, %scaled, %masked_value) : (tensor<?x?xi1, #ascend.dims<["s", "s"]>>, tensor<?x4x?x?xf32, #ascend.dims<["b", "4", "s", "s"]>>, tensor<f32>) -> tensor<?x4x?x?xf32, #ascend.dims<["b", "4", "s", "s"]>>
  %probs = "ascend.softmax"(%masked) {axis = -1 : i64} : (tensor<?x4x?x?xf32, #ascend.dims<["b", "4", "s", "s"]>>) -> tensor<?x4x?x?xf32, #ascend.dims<["b", "4", "s", "s"]>>
  return %probs : tensor<?x4x?x?xf32, #ascend.dims<["b", "4", "s", "s"]>>
}
