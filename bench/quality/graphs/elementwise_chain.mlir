// A chain of six elementwise ops on [4096, 1024] f32 with a broadcast [1024] scale:
// sigmoid(relu(abs(x * scale + y) - x)).
func.func @elementwise_chain(%x: tensor<4096x1024xf32>, %y: tensor<4096x1024xf32>, %scale: tensor<1024xf32>) -> tensor<4096x1024xf32> {
  %0 = "ascend.mul"(%x, %scale) : (tensor<4096x1024xf32>, tensor<1024xf32>) -> tensor<4096x1024xf32>
  %1 = "ascend.add"(%0, %y) : (tensor<4096x1024xf32>, tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  %2 = "ascend.abs"(%1) : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  %3 = "ascend.sub"(%2, %x) : (tensor<4096x1024xf32>, tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  %4 = "ascend.relu"(%3) : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  %5 = "ascend.sigmoid"(%4) : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  return %5 : tensor<4096x1024xf32>
}
