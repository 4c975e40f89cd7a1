// A one-op kernel (exp) feeding an op lowering leaves in the graph (cumsum): --fuse
// lifts the exp back to its op, and nothing was refused between the two.
func.func @exp_cumsum(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = "ascend.exp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "ascend.cumsum"(%0) {axis = -1 : i64, exclusive = false, reverse = false} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
