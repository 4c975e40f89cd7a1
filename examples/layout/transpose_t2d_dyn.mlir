// exp(x) transposed [s0, s1] -> [s1, s0], plus y, f32 with symbolic extents: the
// pointwise producer runs on the transposed tile, the tails are decided at run time.
func.func @transpose_t2d_dyn(%x: tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>, %y: tensor<?x?xf32, #ascend.dims<["s1", "s0"]>>) -> tensor<?x?xf32, #ascend.dims<["s1", "s0"]>> {
  %0 = "ascend.exp"(%x) : (tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>) -> tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>
  %1 = "ascend.transpose"(%0) {perm = [1, 0]} : (tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>) -> tensor<?x?xf32, #ascend.dims<["s1", "s0"]>>
  %2 = "ascend.add"(%1, %y) : (tensor<?x?xf32, #ascend.dims<["s1", "s0"]>>, tensor<?x?xf32, #ascend.dims<["s1", "s0"]>>) -> tensor<?x?xf32, #ascend.dims<["s1", "s0"]>>
  return %2 : tensor<?x?xf32, #ascend.dims<["s1", "s0"]>>
}
