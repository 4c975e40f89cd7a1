func.func @to_bytes(%x: tensor<4x40xf32>) -> (tensor<4x40xui8>, tensor<4x40xi8>) {
  %0 = "ascend.cast"(%x) : (tensor<4x40xf32>) -> tensor<4x40xui8>
  %1 = "ascend.cast"(%x) : (tensor<4x40xf32>) -> tensor<4x40xi8>
  return %0, %1 : tensor<4x40xui8>, tensor<4x40xi8>
}
