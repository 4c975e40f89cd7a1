// A chain of 40 concats over inputs of distinct dynamic dims (issue 38, class 8):
// the k-th result's concat dim is s0 + ... + s(k+1), so --infer-symbolic-shapes names
// every 8 more terms by a derived symbol (ascend.derived_symbols). Used by
// test/Transforms/infer-symbolic-shapes-derived.mlir.
func.func @chain(%a0: tensor<4x?xf32>, %a1: tensor<4x?xf32>, %a2: tensor<4x?xf32>, %a3: tensor<4x?xf32>, %a4: tensor<4x?xf32>, %a5: tensor<4x?xf32>, %a6: tensor<4x?xf32>, %a7: tensor<4x?xf32>, %a8: tensor<4x?xf32>, %a9: tensor<4x?xf32>, %a10: tensor<4x?xf32>, %a11: tensor<4x?xf32>, %a12: tensor<4x?xf32>, %a13: tensor<4x?xf32>, %a14: tensor<4x?xf32>, %a15: tensor<4x?xf32>, %a16: tensor<4x?xf32>, %a17: tensor<4x?xf32>, %a18: tensor<4x?xf32>, %a19: tensor<4x?xf32>, %a20: tensor<4x?xf32>, %a21: tensor<4x?xf32>, %a22: tensor<4x?xf32>, %a23: tensor<4x?xf32>, %a24: tensor<4x?xf32>, %a25: tensor<4x?xf32>, %a26: tensor<4x?xf32>, %a27: tensor<4x?xf32>, %a28: tensor<4x?xf32>, %a29: tensor<4x?xf32>, %a30: tensor<4x?xf32>, %a31: tensor<4x?xf32>, %a32: tensor<4x?xf32>, %a33: tensor<4x?xf32>, %a34: tensor<4x?xf32>, %a35: tensor<4x?xf32>, %a36: tensor<4x?xf32>, %a37: tensor<4x?xf32>, %a38: tensor<4x?xf32>, %a39: tensor<4x?xf32>, %a40: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %c0 = "ascend.concat"(%a0, %a1) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c1 = "ascend.concat"(%c0, %a2) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c2 = "ascend.concat"(%c1, %a3) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c3 = "ascend.concat"(%c2, %a4) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c4 = "ascend.concat"(%c3, %a5) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c5 = "ascend.concat"(%c4, %a6) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c6 = "ascend.concat"(%c5, %a7) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c7 = "ascend.concat"(%c6, %a8) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c8 = "ascend.concat"(%c7, %a9) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c9 = "ascend.concat"(%c8, %a10) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c10 = "ascend.concat"(%c9, %a11) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c11 = "ascend.concat"(%c10, %a12) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c12 = "ascend.concat"(%c11, %a13) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c13 = "ascend.concat"(%c12, %a14) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c14 = "ascend.concat"(%c13, %a15) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c15 = "ascend.concat"(%c14, %a16) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c16 = "ascend.concat"(%c15, %a17) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c17 = "ascend.concat"(%c16, %a18) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c18 = "ascend.concat"(%c17, %a19) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c19 = "ascend.concat"(%c18, %a20) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c20 = "ascend.concat"(%c19, %a21) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c21 = "ascend.concat"(%c20, %a22) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c22 = "ascend.concat"(%c21, %a23) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c23 = "ascend.concat"(%c22, %a24) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c24 = "ascend.concat"(%c23, %a25) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c25 = "ascend.concat"(%c24, %a26) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c26 = "ascend.concat"(%c25, %a27) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c27 = "ascend.concat"(%c26, %a28) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c28 = "ascend.concat"(%c27, %a29) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c29 = "ascend.concat"(%c28, %a30) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c30 = "ascend.concat"(%c29, %a31) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c31 = "ascend.concat"(%c30, %a32) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c32 = "ascend.concat"(%c31, %a33) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c33 = "ascend.concat"(%c32, %a34) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c34 = "ascend.concat"(%c33, %a35) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c35 = "ascend.concat"(%c34, %a36) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c36 = "ascend.concat"(%c35, %a37) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c37 = "ascend.concat"(%c36, %a38) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c38 = "ascend.concat"(%c37, %a39) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c39 = "ascend.concat"(%c38, %a40) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  return %c39 : tensor<4x?xf32>
}
