// Parameters the verifier rejects (weights.test).
func.func @dynamic() -> tensor<?x4xf32> {
  %w = "ascend.parameter"() {file = "w.bin", offset = 0 : i64} : () -> tensor<?x4xf32>
  return %w : tensor<?x4xf32>
}
func.func @negative() -> tensor<2x4xf32> {
  %w = "ascend.parameter"() {file = "w.bin", offset = -8 : i64} : () -> tensor<2x4xf32>
  return %w : tensor<2x4xf32>
}
