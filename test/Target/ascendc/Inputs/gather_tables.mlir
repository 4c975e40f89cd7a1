// An embedding table of symbolic size [v, 64] f32 scaled per column
// (test/Target/ascendc/gather-table-in-ub.mlir): its table fits UB for small v.
func.func @lookup_scale(%table: tensor<?x64xf32, #ascend.dims<["v", "64"]>>, %ids: tensor<?x?xi32, #ascend.dims<["b", "s"]>>, %w: tensor<64xf32>) -> tensor<?x?x64xf32, #ascend.dims<["b", "s", "64"]>> {
  %0 = "ascend.gather"(%table, %ids) {axis = 0 : i64} : (tensor<?x64xf32, #ascend.dims<["v", "64"]>>, tensor<?x?xi32, #ascend.dims<["b", "s"]>>) -> tensor<?x?x64xf32, #ascend.dims<["b", "s", "64"]>>
  %1 = "ascend.mul"(%0, %w) : (tensor<?x?x64xf32, #ascend.dims<["b", "s", "64"]>>, tensor<64xf32>) -> tensor<?x?x64xf32, #ascend.dims<["b", "s", "64"]>>
  return %1 : tensor<?x?x64xf32, #ascend.dims<["b", "s", "64"]>>
}
