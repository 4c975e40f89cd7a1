// The int32 abs of a value that dies at it: abs is Muls into the result, then Max of
// the result and the operand, so it must not write over its operand (which lives in
// y's VECIN tensor, computed there by the sub).
func.func @int_abs_chain(%x: tensor<?x64xi32, #ascend.dims<["s0", "64"]>>, %y: tensor<?x64xi32, #ascend.dims<["s0", "64"]>>) -> tensor<?x64xi32, #ascend.dims<["s0", "64"]>> {
  %0 = "ascend.sub"(%y, %x) : (tensor<?x64xi32, #ascend.dims<["s0", "64"]>>, tensor<?x64xi32, #ascend.dims<["s0", "64"]>>) -> tensor<?x64xi32, #ascend.dims<["s0", "64"]>>
  %1 = "ascend.abs"(%0) : (tensor<?x64xi32, #ascend.dims<["s0", "64"]>>) -> tensor<?x64xi32, #ascend.dims<["s0", "64"]>>
  %2 = "ascend.add"(%1, %x) : (tensor<?x64xi32, #ascend.dims<["s0", "64"]>>, tensor<?x64xi32, #ascend.dims<["s0", "64"]>>) -> tensor<?x64xi32, #ascend.dims<["s0", "64"]>>
  return %2 : tensor<?x64xi32, #ascend.dims<["s0", "64"]>>
}
