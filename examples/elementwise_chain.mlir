// A chain of six elementwise ops on [batch, 512] f32 with a broadcast scale:
// sigmoid(relu(abs(x * scale + y) - x)); x and y share the dynamic batch s0.
func.func @elementwise_chain(%x: tensor<?x512xf32, #ascend.dims<["s0", "512"]>>, %y: tensor<?x512xf32, #ascend.dims<["s0", "512"]>>, %scale: tensor<512xf32>) -> tensor<?x512xf32, #ascend.dims<["s0", "512"]>> {
  %0 = "ascend.mul"(%x, %scale) : (tensor<?x512xf32, #ascend.dims<["s0", "512"]>>, tensor<512xf32>) -> tensor<?x512xf32, #ascend.dims<["s0", "512"]>>
  %1 = "ascend.add"(%0, %y) : (tensor<?x512xf32, #ascend.dims<["s0", "512"]>>, tensor<?x512xf32, #ascend.dims<["s0", "512"]>>) -> tensor<?x512xf32, #ascend.dims<["s0", "512"]>>
  %2 = "ascend.abs"(%1) : (tensor<?x512xf32, #ascend.dims<["s0", "512"]>>) -> tensor<?x512xf32, #ascend.dims<["s0", "512"]>>
  %3 = "ascend.sub"(%2, %x) : (tensor<?x512xf32, #ascend.dims<["s0", "512"]>>, tensor<?x512xf32, #ascend.dims<["s0", "512"]>>) -> tensor<?x512xf32, #ascend.dims<["s0", "512"]>>
  %4 = "ascend.relu"(%3) : (tensor<?x512xf32, #ascend.dims<["s0", "512"]>>) -> tensor<?x512xf32, #ascend.dims<["s0", "512"]>>
  %5 = "ascend.sigmoid"(%4) : (tensor<?x512xf32, #ascend.dims<["s0", "512"]>>) -> tensor<?x512xf32, #ascend.dims<["s0", "512"]>>
  return %5 : tensor<?x512xf32, #ascend.dims<["s0", "512"]>>
}
