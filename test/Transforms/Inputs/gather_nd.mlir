// gather_nd over symbolic [batch, seq] position data with pairs of indices (the mask code
// of exported LLaMA/GPT-NeoX), and with one batch dim over a static table, fused with exp
// (test/Transforms/decompose-gather-nd.mlir).
func.func @pos(%data: tensor<?x?xi32, #ascend.dims<["batch", "seq"]>>, %idx: tensor<?x1x?x1x2xi32, #ascend.dims<["batch", "1", "seq", "1", "2"]>>) -> tensor<?x1x?x1xi32, #ascend.dims<["batch", "1", "seq", "1"]>> {
  %0 = "ascend.gather_nd"(%data, %idx) {batch_dims = 0 : i64} : (tensor<?x?xi32, #ascend.dims<["batch", "seq"]>>, tensor<?x1x?x1x2xi32, #ascend.dims<["batch", "1", "seq", "1", "2"]>>) -> tensor<?x1x?x1xi32, #ascend.dims<["batch", "1", "seq", "1"]>>
  return %0 : tensor<?x1x?x1xi32, #ascend.dims<["batch", "1", "seq", "1"]>>
}
func.func @batched(%data: tensor<2x3x4x5xf32>, %idx: tensor<2x6x2xi64>) -> tensor<2x6x5xf32> {
  %0 = "ascend.gather_nd"(%data, %idx) {batch_dims = 1 : i64} : (tensor<2x3x4x5xf32>, tensor<2x6x2xi64>) -> tensor<2x6x5xf32>
  %1 = "ascend.exp"(%0) : (tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  return %1 : tensor<2x6x5xf32>
}
