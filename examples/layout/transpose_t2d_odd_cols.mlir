// transpose(x, [1, 0]) - y on [1000, 37] -> [37, 1000] f32: the source rows are 37
// floats (148 bytes, not 32-byte aligned), the innermost result axis has 15 full
// blocks of 64 and a tail of 40.
func.func @transpose_t2d_odd_cols(%x: tensor<1000x37xf32>, %y: tensor<37x1000xf32>) -> tensor<37x1000xf32> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<1000x37xf32>) -> tensor<37x1000xf32>
  %1 = "ascend.sub"(%0, %y) : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  return %1 : tensor<37x1000xf32>
}
