// SwiGLU of a feed-forward block: silu(gate) * up over [tokens, 2816] f16; both inputs
// have the same dynamic token count s0.
func.func @swiglu(%gate: tensor<?x2816xf16, #ascend.dims<["s0", "2816"]>>, %up: tensor<?x2816xf16, #ascend.dims<["s0", "2816"]>>) -> tensor<?x2816xf16, #ascend.dims<["s0", "2816"]>> {
  %y = "ascend.swiglu"(%gate, %up) : (tensor<?x2816xf16, #ascend.dims<["s0", "2816"]>>, tensor<?x2816xf16, #ascend.dims<["s0", "2816"]>>) -> tensor<?x2816xf16, #ascend.dims<["s0", "2816"]>>
  return %y : tensor<?x2816xf16, #ascend.dims<["s0", "2816"]>>
}
