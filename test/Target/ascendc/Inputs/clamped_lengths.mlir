// A causal mask shifted by per-batch key counts (i64 input), as ONNX Attention's nonpad_kv_seqlen.
func.func @f(%n: tensor<3xi64>) -> tensor<3x2x6xi1> {
  %c2 = "ascend.constant"() {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %s = "ascend.sub"(%n, %c2) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %u = "ascend.unsqueeze"(%s) {axes = [1, 2]} : (tensor<3xi64>) -> tensor<3x1x1xi64>
  %r = "ascend.range"() {delta = 1 : i64, start = 0 : i64} : () -> tensor<2xi64>
  %r2 = "ascend.unsqueeze"(%r) {axes = [1]} : (tensor<2xi64>) -> tensor<2x1xi64>
  %a = "ascend.add"(%r2, %u) : (tensor<2x1xi64>, tensor<3x1x1xi64>) -> tensor<3x2x1xi64>
  %k = "ascend.range"() {delta = 1 : i64, start = 0 : i64} : () -> tensor<6xi64>
  %k2 = "ascend.unsqueeze"(%k) {axes = [0]} : (tensor<6xi64>) -> tensor<1x6xi64>
  %le = "ascend.le"(%k2, %a) : (tensor<1x6xi64>, tensor<3x2x1xi64>) -> tensor<3x2x6xi1>
  return %le : tensor<3x2x6xi1>
}
