// concat + relu: two [4096, 512] f32 halves joined along the last axis, then relu.
func.func @concat_relu(%a: tensor<4096x512xf32>, %b: tensor<4096x512xf32>) -> tensor<4096x1024xf32> {
  %c = "ascend.concat"(%a, %b) {axis = 1 : i64} : (tensor<4096x512xf32>, tensor<4096x512xf32>) -> tensor<4096x1024xf32>
  %y = "ascend.relu"(%c) : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  return %y : tensor<4096x1024xf32>
}
