// The input layer of a transformer with two embedding tables (BERT's token and segment
// embeddings, concatenated instead of summed, as recommendation models join feature
// embeddings): gather [tokens] rows of a [1000, 96] and a [16, 32] f32 table by their id
// tensors [batch, seq], concatenate to [batch, seq, 128] and layer-normalize. The rows
// are picked by index (ascir.gather: the scalar unit reads each id), joined in UB and
// normalized in one kernel. The token table (375 KiB) stays in GM, one DataCopyPad per
// row; the 2 KiB segment table is copied whole into UB once per block when that is
// cheaper (the table-in-UB case, chosen by tiling key), else read by row from GM too.
func.func @embedding_concat_layer_norm(%tokens: tensor<1000x96xf32>, %segments: tensor<16x32xf32>, %token_ids: tensor<?x?xi32, #ascend.dims<["b", "s"]>>, %segment_ids: tensor<?x?xi32, #ascend.dims<["b", "s"]>>, %gamma: tensor<128xf32>, %beta: tensor<128xf32>) -> tensor<?x?x128xf32, #ascend.dims<["b", "s", "128"]>> {
  %t = "ascend.gather"(%tokens, %token_ids) {axis = 0 : i64} : (tensor<1000x96xf32>, tensor<?x?xi32, #ascend.dims<["b", "s"]>>) -> tensor<?x?x96xf32, #ascend.dims<["b", "s", "96"]>>
  %g = "ascend.gather"(%segments, %segment_ids) {axis = 0 : i64} : (tensor<16x32xf32>, tensor<?x?xi32, #ascend.dims<["b", "s"]>>) -> tensor<?x?x32xf32, #ascend.dims<["b", "s", "32"]>>
  %x = "ascend.concat"(%t, %g) {axis = 2 : i64} : (tensor<?x?x96xf32, #ascend.dims<["b", "s", "96"]>>, tensor<?x?x32xf32, #ascend.dims<["b", "s", "32"]>>) -> tensor<?x?x128xf32, #ascend.dims<["b", "s", "128"]>>
  %y = "ascend.layer_norm"(%x, %gamma, %beta) {axis = -1 : i64, epsilon = 1.0e-12 : f32} : (tensor<?x?x128xf32, #ascend.dims<["b", "s", "128"]>>, tensor<128xf32>, tensor<128xf32>) -> tensor<?x?x128xf32, #ascend.dims<["b", "s", "128"]>>
  return %y : tensor<?x?x128xf32, #ascend.dims<["b", "s", "128"]>>
}
