// SwiGLU of a LLaMA feed-forward block after one fused gate/up projection: the matmul
// writes [tokens, 2 x 1408] f16, split into gate and up halves along the last axis, then
// silu(gate) * up. The split is two slices; each half is a strided load of the projection
// (an offset and a row stride), so the kernel reads the projection once and writes the
// result once: no copy of either half exists in GM.
func.func @split_swiglu(%proj: tensor<?x2816xf16, #ascend.dims<["s0", "2816"]>>) -> tensor<?x1408xf16, #ascend.dims<["s0", "1408"]>> {
  %gate = "ascend.slice"(%proj) {starts = [0], ends = [1408], axes = [1], steps = [1]} : (tensor<?x2816xf16, #ascend.dims<["s0", "2816"]>>) -> tensor<?x1408xf16, #ascend.dims<["s0", "1408"]>>
  %up = "ascend.slice"(%proj) {starts = [1408], ends = [2816], axes = [1], steps = [1]} : (tensor<?x2816xf16, #ascend.dims<["s0", "2816"]>>) -> tensor<?x1408xf16, #ascend.dims<["s0", "1408"]>>
  %y = "ascend.swiglu"(%gate, %up) : (tensor<?x1408xf16, #ascend.dims<["s0", "1408"]>>, tensor<?x1408xf16, #ascend.dims<["s0", "1408"]>>) -> tensor<?x1408xf16, #ascend.dims<["s0", "1408"]>>
  return %y : tensor<?x1408xf16, #ascend.dims<["s0", "1408"]>>
}
