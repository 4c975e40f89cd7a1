// RUN: %autofuse-opt %s --split-input-file --verify-diagnostics
// The verifier's checks of ascend.derived_symbols (dialects/ascend/src/derived.rs): the
// attribute is well formed, and a dim spelling a derived symbol is checked through its
// definition.

// A derived symbol cannot be an argument symbol: the caller would give its value.
// expected-error@+1 {{ascend.derived_symbols: 's1' is a symbol of the arguments, it cannot be derived}}
func.func @derives_an_argument(%x: tensor<4x?xf32, #ascend.dims<["4", "s0"]>>, %y: tensor<4x?xf32, #ascend.dims<["4", "s1"]>>) -> tensor<4x?xf32, #ascend.dims<["4", "s0+s1"]>> attributes {ascend.derived_symbols = ["s1 = s0 + 1"]} {
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<4x?xf32, #ascend.dims<["4", "s0"]>>, tensor<4x?xf32, #ascend.dims<["4", "s1"]>>) -> tensor<4x?xf32, #ascend.dims<["4", "s0+s1"]>>
  return %0 : tensor<4x?xf32, #ascend.dims<["4", "s0+s1"]>>
}

// -----

// A definition uses only argument symbols and derived symbols defined before it.
// expected-error@+1 {{definition of 'd0' uses 'd1', which is neither an argument symbol nor derived before it}}
func.func @defined_out_of_order(%x: tensor<4x?xf32, #ascend.dims<["4", "s0"]>>) -> tensor<4x?xf32, #ascend.dims<["4", "s0"]>> attributes {ascend.derived_symbols = ["d0 = d1 + s0", "d1 = s0"]} {
  return %x : tensor<4x?xf32, #ascend.dims<["4", "s0"]>>
}

// -----

// The concat computes s0 + s1, but d0 is defined as s0 + s1 + s2: provably different.
func.func @wrong_definition(%x: tensor<4x?xf32, #ascend.dims<["4", "s0"]>>, %y: tensor<4x?xf32, #ascend.dims<["4", "s1"]>>, %z: tensor<4x?xf32, #ascend.dims<["4", "s2"]>>) -> tensor<4x?xf32, #ascend.dims<["4", "d0"]>> attributes {ascend.derived_symbols = ["d0 = s0 + s1 + s2"]} {
  // expected-error@+1 {{result #0: dim 1 is 'd0', expected 's0+s1'}}
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<4x?xf32, #ascend.dims<["4", "s0"]>>, tensor<4x?xf32, #ascend.dims<["4", "s1"]>>) -> tensor<4x?xf32, #ascend.dims<["4", "d0"]>>
  return %0 : tensor<4x?xf32, #ascend.dims<["4", "d0"]>>
}

// -----

// The same op with the right definition verifies (no diagnostic expected).
func.func @right_definition(%x: tensor<4x?xf32, #ascend.dims<["4", "s0"]>>, %y: tensor<4x?xf32, #ascend.dims<["4", "s1"]>>) -> tensor<4x?xf32, #ascend.dims<["4", "d0"]>> attributes {ascend.derived_symbols = ["d0 = s0 + s1"]} {
  %0 = "ascend.concat"(%x, %y) {axis = 1 : i64} : (tensor<4x?xf32, #ascend.dims<["4", "s0"]>>, tensor<4x?xf32, #ascend.dims<["4", "s1"]>>) -> tensor<4x?xf32, #ascend.dims<["4", "d0"]>>
  return %0 : tensor<4x?xf32, #ascend.dims<["4", "d0"]>>
}
