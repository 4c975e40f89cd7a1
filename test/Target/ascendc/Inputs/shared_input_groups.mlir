// Column sums of exp(x) and row maxima of |x|: reductions over different axes, two
// kernels that share no loop nest, grouped into one launch; both read x.
func.func @column_sums_row_maxima(%x: tensor<?x64xf32>) -> (tensor<1x64xf32>, tensor<?x1xf32>) {
  %e = "ascend.exp"(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %s = "ascend.reduce_sum"(%e) {axes = [0], keep_dims = true} : (tensor<?x64xf32>) -> tensor<1x64xf32>
  %a = "ascend.abs"(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %m = "ascend.reduce_max"(%a) {axes = [1], keep_dims = true} : (tensor<?x64xf32>) -> tensor<?x1xf32>
  return %s, %m : tensor<1x64xf32>, tensor<?x1xf32>
}
