// A static dim of 2^40: 4 TiB of f32, 8 TiB as the interpreters' f64 values
// (autofuse-run-host-memory.test).
func.func @huge(%x: tensor<1099511627776xf32>) -> tensor<1099511627776xf32> {
  %y = "ascend.exp"(%x) : (tensor<1099511627776xf32>) -> tensor<1099511627776xf32>
  return %y : tensor<1099511627776xf32>
}
