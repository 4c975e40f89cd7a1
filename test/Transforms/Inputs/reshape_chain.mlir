// Reshapes between fused ops: a merge of heads ([s0, 12, 64] -> [s0, 768]) before a bias
// add, a split of rows ([s0, 768] -> [s0, 12, 64]) after a softmax, and a merge of two
// symbolic dims ([s0, s1, 64] -> [s0*s1, 64]) before a row normalisation.
func.func @merge_heads(%x: tensor<?x12x64xf32>, %b: tensor<768xf32>) -> tensor<?x768xf32> {
  %0 = "ascend.exp"(%x) : (tensor<?x12x64xf32>) -> tensor<?x12x64xf32>
  %1 = "ascend.reshape"(%0) {shape = [-1, 768]} : (tensor<?x12x64xf32>) -> tensor<?x768xf32>
  %2 = "ascend.add"(%1, %b) : (tensor<?x768xf32>, tensor<768xf32>) -> tensor<?x768xf32>
  return %2 : tensor<?x768xf32>
}

func.func @split_rows(%x: tensor<?x768xf32>, %g: tensor<12x64xf32>) -> tensor<?x12x64xf32> {
  %0 = "ascend.softmax"(%x) {axis = 1 : i64} : (tensor<?x768xf32>) -> tensor<?x768xf32>
  %1 = "ascend.reshape"(%0) {shape = [-1, 12, 64]} : (tensor<?x768xf32>) -> tensor<?x12x64xf32>
  %2 = "ascend.mul"(%1, %g) : (tensor<?x12x64xf32>, tensor<12x64xf32>) -> tensor<?x12x64xf32>
  return %2 : tensor<?x12x64xf32>
}

func.func @merge_symbolic(%x: tensor<?x?x64xf16>) -> tensor<?x64xf32> {
  %0 = "ascend.exp"(%x) : (tensor<?x?x64xf16>) -> tensor<?x?x64xf16>
  %1 = "ascend.reshape"(%0) {shape = [-1, 64]} : (tensor<?x?x64xf16>) -> tensor<?x64xf16>
  %2 = "ascend.cast"(%1) {dtype = f32} : (tensor<?x64xf16>) -> tensor<?x64xf32>
  %3 = "ascend.reduce_sum"(%2) {axes = [1], keep_dims = true} : (tensor<?x64xf32>) -> tensor<?x1xf32>
  %4 = "ascend.div"(%2, %3) : (tensor<?x64xf32>, tensor<?x1xf32>) -> tensor<?x64xf32>
  return %4 : tensor<?x64xf32>
}
