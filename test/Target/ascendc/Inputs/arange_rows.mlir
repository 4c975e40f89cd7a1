// Ranges broadcast over the rows of a tile: key positions (the same in every row) and
// query positions (one per row), added to scores.
func.func @key_positions(%x: tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>) -> tensor<?x?xf32, #ascend.dims<["s0", "s1"]>> {
  %r = "ascend.range"() {delta = 2 : i64, start = -7 : i64} : () -> tensor<?xi32, #ascend.dims<["s1"]>>
  %f = "ascend.cast"(%r) : (tensor<?xi32, #ascend.dims<["s1"]>>) -> tensor<?xf32, #ascend.dims<["s1"]>>
  %y = "ascend.add"(%x, %f) : (tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>, tensor<?xf32, #ascend.dims<["s1"]>>) -> tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>
  return %y : tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>
}
func.func @query_positions(%x: tensor<?x64xf32, #ascend.dims<["s0", "64"]>>) -> tensor<?x64xf32, #ascend.dims<["s0", "64"]>> {
  %r = "ascend.range"() {delta = 3 : i64, start = 5 : i64} : () -> tensor<?xi32, #ascend.dims<["s0"]>>
  %q = "ascend.unsqueeze"(%r) {axes = [1]} : (tensor<?xi32, #ascend.dims<["s0"]>>) -> tensor<?x1xi32, #ascend.dims<["s0", "1"]>>
  %f = "ascend.cast"(%q) : (tensor<?x1xi32, #ascend.dims<["s0", "1"]>>) -> tensor<?x1xf32, #ascend.dims<["s0", "1"]>>
  %y = "ascend.add"(%x, %f) : (tensor<?x64xf32, #ascend.dims<["s0", "64"]>>, tensor<?x1xf32, #ascend.dims<["s0", "1"]>>) -> tensor<?x64xf32, #ascend.dims<["s0", "64"]>>
  return %y : tensor<?x64xf32, #ascend.dims<["s0", "64"]>>
}
