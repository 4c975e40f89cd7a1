// Slices stepping through the innermost axis (test/Transforms/decompose-strided-slice.mlir).
func.func @even(%x: tensor<2x4x3x8xf32>) -> tensor<2x4x3x4xf32> {
  %0 = "ascend.slice"(%x) {starts = [0], ends = [8], axes = [3], steps = [2]} : (tensor<2x4x3x8xf32>) -> tensor<2x4x3x4xf32>
  return %0 : tensor<2x4x3x4xf32>
}
func.func @odd(%x: tensor<?x9xf16, #ascend.dims<["s0", "9"]>>) -> tensor<?x3xf16> {
  %0 = "ascend.slice"(%x) {starts = [1, 1], ends = [9223372036854775807, 9], axes = [0, 1], steps = [1, 3]} : (tensor<?x9xf16, #ascend.dims<["s0", "9"]>>) -> tensor<?x3xf16>
  %1 = "ascend.exp"(%0) : (tensor<?x3xf16>) -> tensor<?x3xf16>
  return %1 : tensor<?x3xf16>
}
func.func @interleave(%x: tensor<3x?x10xbf16, #ascend.dims<["3", "s0", "10"]>>) -> tensor<3x?x10xbf16> {
  %re = "ascend.slice"(%x) {starts = [0], ends = [10], axes = [-1], steps = [2]} : (tensor<3x?x10xbf16, #ascend.dims<["3", "s0", "10"]>>) -> tensor<3x?x5xbf16>
  %im = "ascend.slice"(%x) {starts = [1], ends = [10], axes = [-1], steps = [2]} : (tensor<3x?x10xbf16, #ascend.dims<["3", "s0", "10"]>>) -> tensor<3x?x5xbf16>
  %n = "ascend.neg"(%im) : (tensor<3x?x5xbf16>) -> tensor<3x?x5xbf16>
  %a = "ascend.unsqueeze"(%n) {axes = [-1]} : (tensor<3x?x5xbf16>) -> tensor<3x?x5x1xbf16>
  %b = "ascend.unsqueeze"(%re) {axes = [-1]} : (tensor<3x?x5xbf16>) -> tensor<3x?x5x1xbf16>
  %c = "ascend.concat"(%a, %b) {axis = -1 : i64} : (tensor<3x?x5x1xbf16>, tensor<3x?x5x1xbf16>) -> tensor<3x?x5x2xbf16>
  %r = "ascend.reshape"(%c) : (tensor<3x?x5x2xbf16>) -> tensor<3x?x10xbf16>
  return %r : tensor<3x?x10xbf16>
}
func.func @tail(%x: tensor<4x11xf32>) -> tensor<4x3xf32> {
  %0 = "ascend.slice"(%x) {starts = [-9], ends = [11], axes = [1], steps = [4]} : (tensor<4x11xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
