// Layer normalization over rows of 64 f32 (one 256-byte chunk a row) with a dynamic row
// count, for whole-tile-calls.mlir.
func.func @layer_norm_64(%x: tensor<?x64xf32>, %gamma: tensor<64xf32>, %beta: tensor<64xf32>) -> tensor<?x64xf32> {
  %y = "ascend.layer_norm"(%x, %gamma, %beta) {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
