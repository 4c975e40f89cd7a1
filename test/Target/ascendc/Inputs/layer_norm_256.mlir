// Layer normalization over rows of 256 f32 (four 256-byte chunks a row) with a dynamic
// row count, for whole-tile-calls.mlir.
func.func @layer_norm_256(%x: tensor<?x256xf32>, %gamma: tensor<256xf32>, %beta: tensor<256xf32>) -> tensor<?x256xf32> {
  %y = "ascend.layer_norm"(%x, %gamma, %beta) {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<?x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}
