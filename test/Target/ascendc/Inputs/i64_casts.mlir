func.func @i64_casts(%i: tensor<3x40xi64>) -> (tensor<3x40xf32>, tensor<3x40xi1>) {
  %0 = "ascend.cast"(%i) : (tensor<3x40xi64>) -> tensor<3x40xf32>
  %1 = "ascend.cast"(%i) : (tensor<3x40xi64>) -> tensor<3x40xi1>
  return %0, %1 : tensor<3x40xf32>, tensor<3x40xi1>
}
