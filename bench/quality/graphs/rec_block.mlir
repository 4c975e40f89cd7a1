// A DLRM-style recommendation feature block on [65536, 64] f32 (a batch of feature rows
// and their embedding rows): a gate from the row dot product and a scaled residual,
// y = x * sigmoid(sum(x * emb, -1)) + emb * w, with a [64] scale w.
func.func @rec_block(%x: tensor<65536x64xf32>, %emb: tensor<65536x64xf32>, %w: tensor<64xf32>) -> tensor<65536x64xf32> {
  %p = "ascend.mul"(%x, %emb) : (tensor<65536x64xf32>, tensor<65536x64xf32>) -> tensor<65536x64xf32>
  %s = "ascend.reduce_sum"(%p) {axes = [-1], keep_dims = true} : (tensor<65536x64xf32>) -> tensor<65536x1xf32>
  %g = "ascend.sigmoid"(%s) : (tensor<65536x1xf32>) -> tensor<65536x1xf32>
  %a = "ascend.mul"(%x, %g) : (tensor<65536x64xf32>, tensor<65536x1xf32>) -> tensor<65536x64xf32>
  %r = "ascend.mul"(%emb, %w) : (tensor<65536x64xf32>, tensor<64xf32>) -> tensor<65536x64xf32>
  %y = "ascend.add"(%a, %r) : (tensor<65536x64xf32>, tensor<65536x64xf32>) -> tensor<65536x64xf32>
  return %y : tensor<65536x64xf32>
}
