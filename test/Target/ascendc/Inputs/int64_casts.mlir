// 64-bit integers at the edge of kernels (test/Target/ascendc/int64-casts.mlir): an
// int64 input narrowed to int32 for arithmetic, an int32 result widened to int64, a
// float truncated to int64 (ArgMax's positions), and an int64 slice copied through.
func.func @narrow(%x: tensor<?x16xi64, #ascend.dims<["s", "16"]>>) -> tensor<?x16xi32, #ascend.dims<["s", "16"]>> {
  %0 = "ascend.cast"(%x) : (tensor<?x16xi64, #ascend.dims<["s", "16"]>>) -> tensor<?x16xi32, #ascend.dims<["s", "16"]>>
  %1 = "ascend.add"(%0, %0) : (tensor<?x16xi32, #ascend.dims<["s", "16"]>>, tensor<?x16xi32, #ascend.dims<["s", "16"]>>) -> tensor<?x16xi32, #ascend.dims<["s", "16"]>>
  return %1 : tensor<?x16xi32, #ascend.dims<["s", "16"]>>
}
func.func @widen(%x: tensor<?x24xi32, #ascend.dims<["s", "24"]>>) -> tensor<?x24xi64, #ascend.dims<["s", "24"]>> {
  %0 = "ascend.mul"(%x, %x) : (tensor<?x24xi32, #ascend.dims<["s", "24"]>>, tensor<?x24xi32, #ascend.dims<["s", "24"]>>) -> tensor<?x24xi32, #ascend.dims<["s", "24"]>>
  %1 = "ascend.cast"(%0) : (tensor<?x24xi32, #ascend.dims<["s", "24"]>>) -> tensor<?x24xi64, #ascend.dims<["s", "24"]>>
  return %1 : tensor<?x24xi64, #ascend.dims<["s", "24"]>>
}
func.func @positions(%x: tensor<?x8xf32, #ascend.dims<["s", "8"]>>) -> tensor<?x8xi64, #ascend.dims<["s", "8"]>> {
  %0 = "ascend.floor"(%x) : (tensor<?x8xf32, #ascend.dims<["s", "8"]>>) -> tensor<?x8xf32, #ascend.dims<["s", "8"]>>
  %1 = "ascend.cast"(%0) : (tensor<?x8xf32, #ascend.dims<["s", "8"]>>) -> tensor<?x8xi64, #ascend.dims<["s", "8"]>>
  return %1 : tensor<?x8xi64, #ascend.dims<["s", "8"]>>
}
func.func @copy(%x: tensor<?x10xi64, #ascend.dims<["s", "10"]>>) -> tensor<?x4xi64, #ascend.dims<["s", "4"]>> {
  %0 = "ascend.slice"(%x) {starts = [3], ends = [7], axes = [1], steps = [1]} : (tensor<?x10xi64, #ascend.dims<["s", "10"]>>) -> tensor<?x4xi64, #ascend.dims<["s", "4"]>>
  return %0 : tensor<?x4xi64, #ascend.dims<["s", "4"]>>
}
