// gather_elements along both axes of a 2-D table (negative indices count from the
// end), fused with pointwise consumers.
func.func @gather_elements_exp(%x: tensor<?x40xf32, #ascend.dims<["s0", "40"]>>, %rows: tensor<8x40xi32>, %cols: tensor<?x5xi64, #ascend.dims<["s0", "5"]>>) -> (tensor<8x40xf32>, tensor<?x5xf32>) {
  %0 = "ascend.gather_elements"(%x, %rows) {axis = 0 : i64} : (tensor<?x40xf32, #ascend.dims<["s0", "40"]>>, tensor<8x40xi32>) -> tensor<8x40xf32>
  %1 = "ascend.exp"(%0) : (tensor<8x40xf32>) -> tensor<8x40xf32>
  %2 = "ascend.gather_elements"(%x, %cols) {axis = 1 : i64} : (tensor<?x40xf32, #ascend.dims<["s0", "40"]>>, tensor<?x5xi64, #ascend.dims<["s0", "5"]>>) -> tensor<?x5xf32>
  %3 = "ascend.abs"(%2) : (tensor<?x5xf32>) -> tensor<?x5xf32>
  return %1, %3 : tensor<8x40xf32>, tensor<?x5xf32>
}
