// Two kernels that share no buffer (AF-NF001): one launch of two loop groups, no barrier.
func.func @independent(%x: tensor<?x64xf32>, %y: tensor<?x33xf16>) -> (tensor<?x64xf32>, tensor<?x33xf16>) {
  %a = "ascend.exp"(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %b = "ascend.abs"(%a) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %c = "ascend.tanh"(%y) : (tensor<?x33xf16>) -> tensor<?x33xf16>
  %d = "ascend.neg"(%c) : (tensor<?x33xf16>) -> tensor<?x33xf16>
  return %b, %d : tensor<?x64xf32>, tensor<?x33xf16>
}
