// transpose + add: x [1024, 4096] f32 transposed to [4096, 1024], plus y.
func.func @transpose_add(%x: tensor<1024x4096xf32>, %y: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %t = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<1024x4096xf32>) -> tensor<4096x1024xf32>
  %z = "ascend.add"(%t, %y) : (tensor<4096x1024xf32>, tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  return %z : tensor<4096x1024xf32>
}
