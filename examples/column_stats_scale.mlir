// A multi-group launch (GE's FusedAscBackend): column sums of exp(x) over s0 rows scale
// s1 other rows, tanh(y * sum_rows exp(x)). The reduction over x's rows and the
// pointwise work over y's rows cannot share a loop nest (AF-NF005), so they are two
// kernels; --group-launches runs them as one launch of two loop groups with one SyncAll
// between them, the column sums in the launch's workspace.
func.func @column_stats_scale(%x: tensor<?x256xf32>, %y: tensor<?x256xf32>) -> tensor<?x256xf32> {
  %e = "ascend.exp"(%x) : (tensor<?x256xf32>) -> tensor<?x256xf32>
  %s = "ascend.reduce_sum"(%e) {axes = [0], keep_dims = true} : (tensor<?x256xf32>) -> tensor<1x256xf32>
  %m = "ascend.mul"(%y, %s) : (tensor<?x256xf32>, tensor<1x256xf32>) -> tensor<?x256xf32>
  %t = "ascend.tanh"(%m) : (tensor<?x256xf32>) -> tensor<?x256xf32>
  return %t : tensor<?x256xf32>
}
