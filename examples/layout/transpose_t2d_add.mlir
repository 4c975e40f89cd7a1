// transpose(x, [1, 0]) + y on [256, 640] -> [640, 256] f32: the transpose moves the
// innermost axis, so the fused kernel loads [64 x t] source blocks and transposes them
// in UB (Transpose API), then adds y on the transposed tile.
func.func @transpose_t2d_add(%x: tensor<256x640xf32>, %y: tensor<640x256xf32>) -> tensor<640x256xf32> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<256x640xf32>) -> tensor<640x256xf32>
  %1 = "ascend.add"(%0, %y) : (tensor<640x256xf32>, tensor<640x256xf32>) -> tensor<640x256xf32>
  return %1 : tensor<640x256xf32>
}
