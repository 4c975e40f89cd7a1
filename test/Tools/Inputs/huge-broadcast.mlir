// A small argument broadcast to 2^40 elements (autofuse-run-host-memory.test).
func.func @huge(%x: tensor<1xf32>) -> tensor<1099511627776xf32> {
  %y = "ascend.broadcast_to"(%x) : (tensor<1xf32>) -> tensor<1099511627776xf32>
  return %y : tensor<1099511627776xf32>
}
