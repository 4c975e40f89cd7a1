// A middle-axis gather of a [4, 10, 24] f16 table (test/Target/ascendc/gather-table-in-ub.mlir):
// rows of 48 bytes do not start on 32-byte blocks, so the table-in-UB case copies them
// with the scalar unit.
func.func @middle(%x: tensor<4x10x24xf16>, %ids: tensor<?xi32, #ascend.dims<["n"]>>) -> tensor<4x?x24xf16, #ascend.dims<["4", "n", "24"]>> {
  %0 = "ascend.gather"(%x, %ids) {axis = 1 : i64} : (tensor<4x10x24xf16>, tensor<?xi32, #ascend.dims<["n"]>>) -> tensor<4x?x24xf16, #ascend.dims<["4", "n", "24"]>>
  %1 = "ascend.abs"(%0) : (tensor<4x?x24xf16, #ascend.dims<["4", "n", "24"]>>) -> tensor<4x?x24xf16, #ascend.dims<["4", "n", "24"]>>
  return %1 : tensor<4x?x24xf16, #ascend.dims<["4", "n", "24"]>>
}
