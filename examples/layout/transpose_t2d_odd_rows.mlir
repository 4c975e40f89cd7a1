// relu(transpose(x, [1, 0]) * y) on [37, 1000] -> [1000, 37] f32: odd extents, the
// innermost result axis (37) is one partial block, the split axis has a tail tile.
func.func @transpose_t2d_odd_rows(%x: tensor<37x1000xf32>, %y: tensor<1000x37xf32>) -> tensor<1000x37xf32> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<37x1000xf32>) -> tensor<1000x37xf32>
  %1 = "ascend.mul"(%0, %y) : (tensor<1000x37xf32>, tensor<1000x37xf32>) -> tensor<1000x37xf32>
  %2 = "ascend.relu"(%1) : (tensor<1000x37xf32>) -> tensor<1000x37xf32>
  return %2 : tensor<1000x37xf32>
}
