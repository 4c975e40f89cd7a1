// RUN: %autofuse-opt %s --split-input-file --verify-diagnostics
// Every AscGraph check of the Rust verifier fires with a located error.

// View lists need one entry per axis.
func.func @view_lengths(%a: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ascir.axes = [#ascir.axis<0, "z0", "4", "original", []>, #ascir.axis<1, "z1", "8", "original", []>], ascir.sizes = []} {
  // expected-error@+1 {{view has 2 axes but 1 repeats and 2 strides}}
  %d = "ascir.data"(%a) {index = 0, view = #ascir.view<[0, 1], ["4"], ["8", "1"]>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// -----

// Axis ids must be defined.
func.func @undefined_axis(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ascir.axes = [#ascir.axis<0, "z0", "4", "original", []>], ascir.sizes = []} {
  %d = "ascir.data"(%a) {index = 0, view = #ascir.view<[0], ["4"], ["1"]>} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{sched_axis names undefined axis 3}}
  %l = "ascir.load"(%d) {offset = "0", sched_axis = [3], view = #ascir.view<[0], ["4"], ["1"]>} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// Views name defined axes too.
func.func @undefined_view_axis(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ascir.axes = [#ascir.axis<0, "z0", "4", "original", []>], ascir.sizes = []} {
  // expected-error@+1 {{view names undefined axis 7}}
  %d = "ascir.data"(%a) {index = 0, view = #ascir.view<[7], ["4"], ["1"]>} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// Symbols in sizes must be declared.
func.func @undeclared_symbol(%a: tensor<?xf32>) -> tensor<?xf32> attributes {ascir.axes = [#ascir.axis<0, "z0", "s0", "original", []>], ascir.sizes = ["s0"]} {
  // expected-error@+1 {{view repeat uses undefined symbol(s) s9}}
  %d = "ascir.data"(%a) {index = 0, view = #ascir.view<[0], ["s9"], ["1"]>} : (tensor<?xf32>) -> tensor<?xf32>
  return %a : tensor<?xf32>
}

// -----

// Malformed expressions are reported.
func.func @bad_expr(%a: tensor<?xf32>) -> tensor<?xf32> attributes {ascir.axes = [#ascir.axis<0, "z0", "s0", "original", []>], ascir.sizes = ["s0"]} {
  // expected-error@+1 {{view stride: 's0 +' is not an expression}}
  %d = "ascir.data"(%a) {index = 0, view = #ascir.view<[0], ["s0"], ["s0 +"]>} : (tensor<?xf32>) -> tensor<?xf32>
  return %a : tensor<?xf32>
}

// -----

// Axis ids are unique and kinds known.
// expected-error@+2 {{axis id 0 is defined twice}}
// expected-error@+1 {{axis 0 has kind Some("sideways")}}
func.func @dup_axis(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ascir.axes = [#ascir.axis<0, "z0", "4", "original", []>, #ascir.axis<0, "z1", "4", "sideways", []>], ascir.sizes = []} {
  return %a : tensor<4xf32>
}

// -----

// Axis names are identifiers: tile and block splits name size symbols after them.
// expected-error@+1 {{axis 0 has name 'z-0'; expected an identifier}}
func.func @bad_axis_name(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ascir.axes = [#ascir.axis<0, "z-0", "4", "original", []>], ascir.sizes = []} {
  return %a : tensor<4xf32>
}

// -----

// Sizes must list symbols.
// expected-error@+1 {{'ascir.sizes' entry 's0*2' is not a symbol name}}
func.func @bad_sizes(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ascir.axes = [#ascir.axis<0, "z0", "4", "original", []>], ascir.sizes = ["s0*2"]} {
  return %a : tensor<4xf32>
}

// -----

// IRDL checks the view attribute kind.
func.func @view_kind(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ascir.axes = [#ascir.axis<0, "z0", "4", "original", []>], ascir.sizes = []} {
  // expected-error@+1 {{expected base attribute 'ascir.view' but got 'builtin.array'}}
  %d = "ascir.data"(%a) {index = 0, view = [0]} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// The verifier remembers only what it found valid: an invalid view repeated on several
// nodes and in several kernels with the same axes is reported at every node, and a valid
// view seen first does not hide an invalid sched_axis with the same axes.
func.func @repeat_a(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ascir.axes = [#ascir.axis<0, "z0", "4", "original", []>], ascir.sizes = []} {
  %d = "ascir.data"(%a) {index = 0, view = #ascir.view<[0], ["4"], ["1"]>} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{view names undefined axis 5}}
  %l = "ascir.load"(%d) {offset = "0", sched_axis = [0], view = #ascir.view<[5], ["4"], ["1"]>} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{view names undefined axis 5}}
  %m = "ascir.abs"(%l) {sched_axis = [0], view = #ascir.view<[5], ["4"], ["1"]>} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
func.func @repeat_b(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ascir.axes = [#ascir.axis<0, "z0", "4", "original", []>], ascir.sizes = []} {
  %d = "ascir.data"(%a) {index = 0, view = #ascir.view<[0], ["4"], ["1"]>} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{view names undefined axis 5}}
  %l = "ascir.load"(%d) {offset = "0", sched_axis = [0], view = #ascir.view<[5], ["4"], ["1"]>} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{sched_axis names undefined axis 2}}
  %m = "ascir.abs"(%l) {sched_axis = [2], view = #ascir.view<[0], ["4"], ["1"]>} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
