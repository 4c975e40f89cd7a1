// transpose(x, [0, 2, 1]) * y + x' on a batch [s0, 48, 72] -> [s0, 72, 48] f32: the batch
// axis is looped, every tile transposes one 2-D block of one batch element.
func.func @transpose_t3d_021(%x: tensor<?x48x72xf32, #ascend.dims<["s0", "48", "72"]>>, %y: tensor<?x72x48xf32, #ascend.dims<["s0", "72", "48"]>>) -> tensor<?x72x48xf32, #ascend.dims<["s0", "72", "48"]>> {
  %0 = "ascend.transpose"(%x) {perm = [0, 2, 1]} : (tensor<?x48x72xf32, #ascend.dims<["s0", "48", "72"]>>) -> tensor<?x72x48xf32, #ascend.dims<["s0", "72", "48"]>>
  %1 = "ascend.mul"(%0, %y) : (tensor<?x72x48xf32, #ascend.dims<["s0", "72", "48"]>>, tensor<?x72x48xf32, #ascend.dims<["s0", "72", "48"]>>) -> tensor<?x72x48xf32, #ascend.dims<["s0", "72", "48"]>>
  %2 = "ascend.add"(%1, %y) : (tensor<?x72x48xf32, #ascend.dims<["s0", "72", "48"]>>, tensor<?x72x48xf32, #ascend.dims<["s0", "72", "48"]>>) -> tensor<?x72x48xf32, #ascend.dims<["s0", "72", "48"]>>
  return %2 : tensor<?x72x48xf32, #ascend.dims<["s0", "72", "48"]>>
}
