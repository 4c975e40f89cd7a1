// Rotary position embedding of LLaMA's attention (rotate_half form) over query heads
// [batch, 32 heads, seq, 128] f16: out = x * cos + rotate_half(x) * sin, where
// rotate_half(x) = concat(-x[..., 64:], x[..., :64]) and cos/sin are the [seq, 128]
// tables of the positions, shared by every batch and head. The halves are views of x
// (loads at an offset), the concat joins them in UB, and the tables broadcast over
// batch and heads: one kernel reads x and the tables and writes the result.
func.func @rotary_embedding(%x: tensor<?x32x?x128xf16, #ascend.dims<["b", "32", "s", "128"]>>, %cos: tensor<?x128xf16, #ascend.dims<["s", "128"]>>, %sin: tensor<?x128xf16, #ascend.dims<["s", "128"]>>) -> tensor<?x32x?x128xf16, #ascend.dims<["b", "32", "s", "128"]>> {
  %x1 = "ascend.slice"(%x) {starts = [0], ends = [64], axes = [3], steps = [1]} : (tensor<?x32x?x128xf16, #ascend.dims<["b", "32", "s", "128"]>>) -> tensor<?x32x?x64xf16, #ascend.dims<["b", "32", "s", "64"]>>
  %x2 = "ascend.slice"(%x) {starts = [64], ends = [128], axes = [3], steps = [1]} : (tensor<?x32x?x128xf16, #ascend.dims<["b", "32", "s", "128"]>>) -> tensor<?x32x?x64xf16, #ascend.dims<["b", "32", "s", "64"]>>
  %neg = "ascend.neg"(%x2) : (tensor<?x32x?x64xf16, #ascend.dims<["b", "32", "s", "64"]>>) -> tensor<?x32x?x64xf16, #ascend.dims<["b", "32", "s", "64"]>>
  %rot = "ascend.concat"(%neg, %x1) {axis = 3 : i64} : (tensor<?x32x?x64xf16, #ascend.dims<["b", "32", "s", "64"]>>, tensor<?x32x?x64xf16, #ascend.dims<["b", "32", "s", "64"]>>) -> tensor<?x32x?x128xf16, #ascend.dims<["b", "32", "s", "128"]>>
  %xc = "ascend.mul"(%x, %cos) : (tensor<?x32x?x128xf16, #ascend.dims<["b", "32", "s", "128"]>>, tensor<?x128xf16, #ascend.dims<["s", "128"]>>) -> tensor<?x32x?x128xf16, #ascend.dims<["b", "32", "s", "128"]>>
  %rs = "ascend.mul"(%rot, %sin) : (tensor<?x32x?x128xf16, #ascend.dims<["b", "32", "s", "128"]>>, tensor<?x128xf16, #ascend.dims<["s", "128"]>>) -> tensor<?x32x?x128xf16, #ascend.dims<["b", "32", "s", "128"]>>
  %y = "ascend.add"(%xc, %rs) : (tensor<?x32x?x128xf16, #ascend.dims<["b", "32", "s", "128"]>>, tensor<?x32x?x128xf16, #ascend.dims<["b", "32", "s", "128"]>>) -> tensor<?x32x?x128xf16, #ascend.dims<["b", "32", "s", "128"]>>
  return %y : tensor<?x32x?x128xf16, #ascend.dims<["b", "32", "s", "128"]>>
}
