func.func @pow_mod(%x: tensor<4x40xf32>, %y: tensor<4x40xf32>, %a: tensor<4x40xf32>, %b: tensor<4x40xf32>) -> (tensor<4x40xf32>, tensor<4x40xf16>, tensor<4x40xf32>, tensor<4x40xf16>) {
  %p = "ascend.pow"(%x, %y) : (tensor<4x40xf32>, tensor<4x40xf32>) -> tensor<4x40xf32>
  %x16 = "ascend.cast"(%x) : (tensor<4x40xf32>) -> tensor<4x40xf16>
  %y16 = "ascend.cast"(%y) : (tensor<4x40xf32>) -> tensor<4x40xf16>
  %p16 = "ascend.pow"(%x16, %y16) : (tensor<4x40xf16>, tensor<4x40xf16>) -> tensor<4x40xf16>
  %m = "ascend.mod"(%a, %b) : (tensor<4x40xf32>, tensor<4x40xf32>) -> tensor<4x40xf32>
  %a16 = "ascend.cast"(%a) : (tensor<4x40xf32>) -> tensor<4x40xf16>
  %b16 = "ascend.cast"(%b) : (tensor<4x40xf32>) -> tensor<4x40xf16>
  %m16 = "ascend.mod"(%a16, %b16) : (tensor<4x40xf16>, tensor<4x40xf16>) -> tensor<4x40xf16>
  return %p, %p16, %m, %m16 : tensor<4x40xf32>, tensor<4x40xf16>, tensor<4x40xf32>, tensor<4x40xf16>
}
