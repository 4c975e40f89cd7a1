// Concats along the outermost axis: the tile splits the concat axis and holds the rows
// of each part that fall in it. @rows: exp of one part, a bias row every core reads;
// @flat: a three-way 1-D concat whose part boundaries fall inside tiles and off the
// 32-byte grid.
func.func @rows(%x: tensor<?x40xf32>, %y: tensor<?x40xf32>, %b: tensor<40xf32>) -> tensor<?x40xf32> {
  %0 = "ascend.exp"(%x) : (tensor<?x40xf32>) -> tensor<?x40xf32>
  %1 = "ascend.concat"(%0, %y) {axis = 0 : i64} : (tensor<?x40xf32>, tensor<?x40xf32>) -> tensor<?x40xf32>
  %2 = "ascend.add"(%1, %b) : (tensor<?x40xf32>, tensor<40xf32>) -> tensor<?x40xf32>
  return %2 : tensor<?x40xf32>
}

func.func @flat(%x: tensor<?xf16>, %y: tensor<?xf16>, %z: tensor<5xf16>) -> tensor<?xf16> {
  %0 = "ascend.concat"(%x, %y) {axis = 0 : i64} : (tensor<?xf16>, tensor<?xf16>) -> tensor<?xf16>
  %1 = "ascend.concat"(%0, %z) {axis = 0 : i64} : (tensor<?xf16>, tensor<5xf16>) -> tensor<?xf16>
  %2 = "ascend.relu"(%1) : (tensor<?xf16>) -> tensor<?xf16>
  return %2 : tensor<?xf16>
}

// A pad of the outermost axis (two rows before, one after) and of a symbolic last axis
// (one column on each side: the two fills are one value after CSE, each concat takes
// the columns its use needs).
func.func @padded(%m: tensor<?x8xf32, #ascend.dims<["s0", "8"]>>, %n: tensor<8x?xf32, #ascend.dims<["8", "s1"]>>) -> (tensor<?x8xf32>, tensor<8x?xf32>) {
  %e = "ascend.exp"(%m) : (tensor<?x8xf32, #ascend.dims<["s0", "8"]>>) -> tensor<?x8xf32, #ascend.dims<["s0", "8"]>>
  %o = "ascend.pad"(%e) {pads = [2, 0, 1, 0], mode = "constant", value = 0.5 : f64} : (tensor<?x8xf32, #ascend.dims<["s0", "8"]>>) -> tensor<?x8xf32>
  %w = "ascend.pad"(%n) {pads = [0, 1, 0, 1], mode = "constant", value = 0.0 : f64} : (tensor<8x?xf32, #ascend.dims<["8", "s1"]>>) -> tensor<8x?xf32>
  return %o, %w : tensor<?x8xf32>, tensor<8x?xf32>
}
