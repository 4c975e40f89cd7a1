// SwiGLU: silu(gate) * up over [4096, 1024] f32.
func.func @swiglu(%gate: tensor<4096x1024xf32>, %up: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %y = "ascend.swiglu"(%gate, %up) : (tensor<4096x1024xf32>, tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  return %y : tensor<4096x1024xf32>
}
