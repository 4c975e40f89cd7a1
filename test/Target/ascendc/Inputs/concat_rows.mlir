// Concats whose rows (the axes after the concat axis) may be longer than UB holds.
func.func @rows(%x: tensor<2x?xf32, #ascend.dims<["2", "s1"]>>, %y: tensor<3x?xf32, #ascend.dims<["3", "s1"]>>) -> tensor<5x?xf32, #ascend.dims<["5", "s1"]>> {
  %0 = "ascend.concat"(%x, %y) {axis = 0 : i64} : (tensor<2x?xf32, #ascend.dims<["2", "s1"]>>, tensor<3x?xf32, #ascend.dims<["3", "s1"]>>) -> tensor<5x?xf32, #ascend.dims<["5", "s1"]>>
  %1 = "ascend.exp"(%0) : (tensor<5x?xf32, #ascend.dims<["5", "s1"]>>) -> tensor<5x?xf32, #ascend.dims<["5", "s1"]>>
  return %1 : tensor<5x?xf32, #ascend.dims<["5", "s1"]>>
}
func.func @heads(%x: tensor<?x2x?xf16, #ascend.dims<["s0", "2", "s1"]>>, %y: tensor<?x3x?xf16, #ascend.dims<["s0", "3", "s1"]>>, %b: tensor<?x5x?xf16, #ascend.dims<["s0", "5", "s1"]>>) -> tensor<?x5x?xf16, #ascend.dims<["s0", "5", "s1"]>> {
  %n = "ascend.neg"(%y) : (tensor<?x3x?xf16, #ascend.dims<["s0", "3", "s1"]>>) -> tensor<?x3x?xf16, #ascend.dims<["s0", "3", "s1"]>>
  %0 = "ascend.concat"(%x, %n) {axis = 1 : i64} : (tensor<?x2x?xf16, #ascend.dims<["s0", "2", "s1"]>>, tensor<?x3x?xf16, #ascend.dims<["s0", "3", "s1"]>>) -> tensor<?x5x?xf16, #ascend.dims<["s0", "5", "s1"]>>
  %1 = "ascend.add"(%0, %b) : (tensor<?x5x?xf16, #ascend.dims<["s0", "5", "s1"]>>, tensor<?x5x?xf16, #ascend.dims<["s0", "5", "s1"]>>) -> tensor<?x5x?xf16, #ascend.dims<["s0", "5", "s1"]>>
  return %1 : tensor<?x5x?xf16, #ascend.dims<["s0", "5", "s1"]>>
}
func.func @wide(%x: tensor<2x1x5000xf32>, %y: tensor<2x2x5000xf32>) -> tensor<2x3x5000xf32> {
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<2x1x5000xf32>, tensor<2x2x5000xf32>) -> tensor<2x3x5000xf32>
  %1 = "ascend.relu"(%0) : (tensor<2x3x5000xf32>) -> tensor<2x3x5000xf32>
  return %1 : tensor<2x3x5000xf32>
}
func.func @pad_rows(%x: tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>) -> tensor<?x?xf32, #ascend.dims<["s0+3", "s1"]>> {
  %0 = "ascend.pad"(%x) {pads = [1, 0, 2, 0], mode = "constant", value = 1.5 : f64} : (tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>) -> tensor<?x?xf32, #ascend.dims<["s0+3", "s1"]>>
  return %0 : tensor<?x?xf32, #ascend.dims<["s0+3", "s1"]>>
}
func.func @bias_part(%x: tensor<?x3xf32, #ascend.dims<["s0", "3"]>>, %b: tensor<3xf32>, %y: tensor<?x5xf32, #ascend.dims<["s0", "5"]>>) -> tensor<?x8xf32, #ascend.dims<["s0", "8"]>> {
  %0 = "ascend.add"(%x, %b) : (tensor<?x3xf32, #ascend.dims<["s0", "3"]>>, tensor<3xf32>) -> tensor<?x3xf32, #ascend.dims<["s0", "3"]>>
  %1 = "ascend.concat"(%0, %y) {axis = 1 : i64} : (tensor<?x3xf32, #ascend.dims<["s0", "3"]>>, tensor<?x5xf32, #ascend.dims<["s0", "5"]>>) -> tensor<?x8xf32, #ascend.dims<["s0", "8"]>>
  return %1 : tensor<?x8xf32, #ascend.dims<["s0", "8"]>>
}
func.func @edge_rows(%x: tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>) -> tensor<?x?xf32, #ascend.dims<["s0+3", "s1"]>> {
  %0 = "ascend.pad"(%x) {pads = [1, 0, 2, 0], mode = "edge", value = 0.0 : f64} : (tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>) -> tensor<?x?xf32, #ascend.dims<["s0+3", "s1"]>>
  %1 = "ascend.sigmoid"(%0) : (tensor<?x?xf32, #ascend.dims<["s0+3", "s1"]>>) -> tensor<?x?xf32, #ascend.dims<["s0+3", "s1"]>>
  return %1 : tensor<?x?xf32, #ascend.dims<["s0+3", "s1"]>>
}
func.func @edge_cols(%x: tensor<?x?xf16, #ascend.dims<["s0", "s1"]>>) -> tensor<?x?xf16, #ascend.dims<["s0", "s1+5"]>> {
  %0 = "ascend.pad"(%x) {pads = [0, 2, 0, 3], mode = "edge", value = 0.0 : f64} : (tensor<?x?xf16, #ascend.dims<["s0", "s1"]>>) -> tensor<?x?xf16, #ascend.dims<["s0", "s1+5"]>>
  return %0 : tensor<?x?xf16, #ascend.dims<["s0", "s1+5"]>>
}
