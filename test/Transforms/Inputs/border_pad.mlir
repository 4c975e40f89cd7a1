// Edge / reflect / wrap pads (test/Transforms/decompose-border-pad.mlir).
func.func @reflect2d(%x: tensor<6x10xf32>) -> tensor<9x15xf32> {
  %0 = "ascend.pad"(%x) {pads = [2, 3, 1, 2], value = 0.0 : f32, mode = "reflect"} : (tensor<6x10xf32>) -> tensor<9x15xf32>
  return %0 : tensor<9x15xf32>
}
func.func @wrap_long(%x: tensor<4x3xf16>) -> tensor<4x11xf16> {
  %0 = "ascend.pad"(%x) {pads = [0, 4, 0, 4], value = 0.0 : f32, mode = "wrap"} : (tensor<4x3xf16>) -> tensor<4x11xf16>
  return %0 : tensor<4x11xf16>
}
func.func @edge_sym(%x: tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>) -> tensor<?x?xf32> {
  %0 = "ascend.pad"(%x) {pads = [1, 2, 3, 4], value = 0.0 : f32, mode = "edge"} : (tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>) -> tensor<?x?xf32>
  %1 = "ascend.exp"(%0) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}
func.func @reflect_i32(%x: tensor<2x3x5xi32>) -> tensor<2x5x7xi32> {
  %0 = "ascend.pad"(%x) {pads = [0, 1, 1, 0, 1, 1], value = 0.0 : f32, mode = "reflect"} : (tensor<2x3x5xi32>) -> tensor<2x5x7xi32>
  return %0 : tensor<2x5x7xi32>
}
