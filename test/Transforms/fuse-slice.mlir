// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir=remarks=false --fuse --verify-diagnostics | FileCheck %s
// Slices are loads at an offset: they fuse into their consumers like any load, and two
// slices of one input (a split) share its data node and load their own parts.

// split + swiglu: one kernel reading the projection twice at two offsets.
// CHECK-LABEL: func.func @split_swiglu
// CHECK: call @autofuse_pointwise_0_Slice_Slice_Sigmoid_Mul_Mul(%arg0)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Slice_Slice_Sigmoid_Mul_Mul
// CHECK: %[[D:.*]] = "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1], ["s0", "64"], ["128", "1"]>}
// CHECK-DAG: "ascir.load"(%[[D]]) {offset = "0"
// CHECK-DAG: "ascir.load"(%[[D]]) {offset = "64"
// CHECK-NOT: "ascir.data"
func.func @split_swiglu(%x: tensor<?x128xf16, #ascend.dims<["s0", "128"]>>) -> tensor<?x64xf16> {
  %g = "ascend.slice"(%x) {starts = [0], ends = [64], axes = [1], steps = [1]} : (tensor<?x128xf16, #ascend.dims<["s0", "128"]>>) -> tensor<?x64xf16>
  %u = "ascend.slice"(%x) {starts = [64], ends = [128], axes = [1], steps = [1]} : (tensor<?x128xf16, #ascend.dims<["s0", "128"]>>) -> tensor<?x64xf16>
  %y = "ascend.swiglu"(%g, %u) : (tensor<?x64xf16>, tensor<?x64xf16>) -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}

// -----

// rotate_half inside a rotary embedding: the halves, the negation, the concat and the
// broadcasting multiplies by the tables are one kernel. x is also read whole, so the
// halves are taken from that tile in UB (ascir.extract_slice), not loaded again.
// CHECK-LABEL: func.func @rotary
// CHECK: call @autofuse_pointwise_0_Slice_Slice_Neg_Concat_Mul_Mul_Add(%arg0, %arg1, %arg2)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Slice_Slice_Neg_Concat_Mul_Mul_Add
// CHECK: %[[X:.*]] = "ascir.load"
// CHECK-NOT: "ascir.load"({{.*}}) {offset = "64"
// CHECK-DAG: "ascir.extract_slice"(%[[X]]) {axis = 2 : i64, offset = "64", sched_axis = [0, 1, 2], view = #ascir.view<[0, 1, 2], ["8", "s", "64"], ["64*s", "64", "1"]>}
// CHECK-DAG: "ascir.extract_slice"(%[[X]]) {axis = 2 : i64, offset = "0"
// CHECK: "ascir.concat"
func.func @rotary(%x: tensor<8x?x128xf16, #ascend.dims<["8", "s", "128"]>>, %cos: tensor<?x128xf16, #ascend.dims<["s", "128"]>>, %sin: tensor<?x128xf16, #ascend.dims<["s", "128"]>>) -> tensor<8x?x128xf16, #ascend.dims<["8", "s", "128"]>> {
  %x1 = "ascend.slice"(%x) {starts = [0], ends = [64], axes = [2], steps = [1]} : (tensor<8x?x128xf16, #ascend.dims<["8", "s", "128"]>>) -> tensor<8x?x64xf16, #ascend.dims<["8", "s", "64"]>>
  %x2 = "ascend.slice"(%x) {starts = [64], ends = [128], axes = [2], steps = [1]} : (tensor<8x?x128xf16, #ascend.dims<["8", "s", "128"]>>) -> tensor<8x?x64xf16, #ascend.dims<["8", "s", "64"]>>
  %n = "ascend.neg"(%x2) : (tensor<8x?x64xf16, #ascend.dims<["8", "s", "64"]>>) -> tensor<8x?x64xf16, #ascend.dims<["8", "s", "64"]>>
  %r = "ascend.concat"(%n, %x1) {axis = 2 : i64} : (tensor<8x?x64xf16, #ascend.dims<["8", "s", "64"]>>, tensor<8x?x64xf16, #ascend.dims<["8", "s", "64"]>>) -> tensor<8x?x128xf16, #ascend.dims<["8", "s", "128"]>>
  %a = "ascend.mul"(%x, %cos) : (tensor<8x?x128xf16, #ascend.dims<["8", "s", "128"]>>, tensor<?x128xf16, #ascend.dims<["s", "128"]>>) -> tensor<8x?x128xf16, #ascend.dims<["8", "s", "128"]>>
  %b = "ascend.mul"(%r, %sin) : (tensor<8x?x128xf16, #ascend.dims<["8", "s", "128"]>>, tensor<?x128xf16, #ascend.dims<["s", "128"]>>) -> tensor<8x?x128xf16, #ascend.dims<["8", "s", "128"]>>
  %y = "ascend.add"(%a, %b) : (tensor<8x?x128xf16, #ascend.dims<["8", "s", "128"]>>, tensor<8x?x128xf16, #ascend.dims<["8", "s", "128"]>>) -> tensor<8x?x128xf16, #ascend.dims<["8", "s", "128"]>>
  return %y : tensor<8x?x128xf16, #ascend.dims<["8", "s", "128"]>>
}

// -----

// A part starting inside a 32-byte block of the innermost axis keeps its own load; the
// part at the row start is taken from the whole tile.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Slice_Slice_Concat_Add
// CHECK: %[[X:.*]] = "ascir.load"({{.*}}) {offset = "0"
// CHECK: "ascir.extract_slice"(%[[X]]) {axis = 1 : i64, offset = "0"
// CHECK: "ascir.load"({{.*}}) {offset = "3"
func.func @unaligned(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %t = "ascend.slice"(%x) {starts = [3], ends = [8], axes = [1], steps = [1]} : (tensor<4x8xf32>) -> tensor<4x5xf32>
  %h = "ascend.slice"(%x) {starts = [0], ends = [3], axes = [1], steps = [1]} : (tensor<4x8xf32>) -> tensor<4x3xf32>
  %r = "ascend.concat"(%t, %h) {axis = 1 : i64} : (tensor<4x5xf32>, tensor<4x3xf32>) -> tensor<4x8xf32>
  %y = "ascend.add"(%r, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A slice read under another layout than its producer's (here of a computed tensor)
// does not map onto one loop nest.
// CHECK-LABEL: func.func @slice_of_computed
// CHECK: "ascend.exp"
// CHECK: call @autofuse_pointwise_1_Slice_Abs
func.func @slice_of_computed(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_0_Exp lifted back to ascend.exp}}
  // expected-remark@+1 {{AF-NF005 axis-mismatch: autofuse_pointwise_0_Exp and autofuse_pointwise_1_Slice_Abs not fused: through the shared tensor tensor<4x16xf32>: a loop axis of extent 8 and stride 1 walks no dim of the 2-d tensor [4, 16]}}
  %e = "ascend.exp"(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  // expected-remark@+1 {{AF-NF005}}
  %s = "ascend.slice"(%e) {starts = [8], ends = [16], axes = [1], steps = [1]} : (tensor<4x16xf32>) -> tensor<4x8xf32>
  %y = "ascend.abs"(%s) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
