func.func @tests(%x: tensor<4x40xf32>) -> (tensor<4x40xi1>, tensor<4x40xi1>, tensor<4x40xf32>) {
  %0 = "ascend.isnan"(%x) : (tensor<4x40xf32>) -> tensor<4x40xi1>
  %1 = "ascend.isfinite"(%x) : (tensor<4x40xf32>) -> tensor<4x40xi1>
  %2 = "ascend.sign"(%x) : (tensor<4x40xf32>) -> tensor<4x40xf32>
  return %0, %1, %2 : tensor<4x40xi1>, tensor<4x40xi1>, tensor<4x40xf32>
}
