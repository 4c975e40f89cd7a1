// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir --verify-diagnostics -o /dev/null
// RUN: %autofuse-run -v %S/Inputs/slice_one_column.mlir --symbols s0=3 --symbols s0=301 | FileCheck %s --check-prefix=COLUMN

// A slice is a view: the loop nest is the result's, the operand is read with its own
// row-major strides (times the step) from an element offset (the clamped starts times
// the strides). No data moves but the slice itself.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Slice
// CHECK: %[[D:.*]] = "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1], ["s0", "64"], ["128", "1"]>}
// CHECK: %[[L:.*]] = "ascir.load"(%[[D]]) {offset = "64", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "64"], ["64", "1"]>}
// CHECK: "ascir.store"(%[[L]]) {offset = "0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "64"], ["64", "1"]>}
func.func @upper_half(%x: tensor<?x128xf32, #ascend.dims<["s0", "128"]>>) -> tensor<?x64xf32> {
  %0 = "ascend.slice"(%x) {starts = [64], ends = [128], axes = [1], steps = [1]} : (tensor<?x128xf32, #ascend.dims<["s0", "128"]>>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// Negative starts count from the end of a symbolic dim, clamped at 0 as numpy does (s1
// may be below 3); a step on an outer axis scales its stride; an end past the dim clamps.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Slice
// CHECK: "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1, 2], ["4", "max(s1-max(s1-3, 0), 0)", "16"], ["32*s1", "16", "1"]>}
// CHECK: "ascir.load"{{.*}}{offset = "16*max(s1-3, 0)"
func.func @from_end(%x: tensor<8x?x16xf16, #ascend.dims<["8", "s1", "16"]>>) -> tensor<4x3x16xf16> {
  %0 = "ascend.slice"(%x) {starts = [0, -3], ends = [8, 2147483647], axes = [0, -2], steps = [2, 1]} : (tensor<8x?x16xf16, #ascend.dims<["8", "s1", "16"]>>) -> tensor<4x3x16xf16>
  return %0 : tensor<4x3x16xf16>
}

// -----

// Symbolic ends clamp to the dim: the view starts at the origin.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Slice
// CHECK: "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1], ["min(s0, s1)", "min(s0, s1)"], ["s0", "1"]>}
// CHECK: "ascir.load"{{.*}}{offset = "0"
func.func @causal_window(%m: tensor<?x?xf32, #ascend.dims<["s0", "s0"]>>, %q: tensor<?xf32, #ascend.dims<["s1"]>>) -> tensor<?x?xf32> {
  %0 = "ascend.slice"(%m) {starts = [0, 0], ends = ["s1", "s1"], axes = [0, 1], steps = [1, 1]} : (tensor<?x?xf32, #ascend.dims<["s0", "s0"]>>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A step on the innermost axis would need a gather of single elements: the slice stays
// a graph op.
// CHECK-LABEL: func.func @every_other
// CHECK: "ascend.slice"
// CHECK-NOT: call @
func.func @every_other(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  // expected-remark@+1 {{AF-LW001 not lowered: a slice whose innermost kept axis has stride 2 in its operand is not lowered (DataCopyPad copies contiguous rows)}}
  %0 = "ascend.slice"(%x) {starts = [0], ends = [16], axes = [1], steps = [2]} : (tensor<4x16xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// One element of the innermost dim (`x[..., 3:4]`): the view keeps stride 1 on that unit
// axis, so the schedule keeps it innermost and DataCopyPad reads rows of one element.
// CHECK-LABEL: func.func @one_column
// CHECK: call @autofuse_pointwise_0_Slice(%arg0)
// CHECK-LABEL: func.func @autofuse_pointwise_0_Slice
// CHECK: "ascir.data"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1, 2], ["s0", "10", "1"], ["50", "5", "1"]>}
// CHECK: "ascir.load"({{.*}}offset = "3"
func.func @one_column(%x: tensor<?x10x5xf32>) -> tensor<?x10x1xf32> {
  %0 = "ascend.slice"(%x) {starts = [3], ends = [4], axes = [2], steps = [1]} : (tensor<?x10x5xf32>) -> tensor<?x10x1xf32>
  return %0 : tensor<?x10x1xf32>
}

// The column fused with exp and add, on the emulation: one kernel, equal to the
// interpreter, reading only the column (its own minimum counts the elements it loads).
// COLUMN: kernel autofuse_pointwise_0_Slice_Exp_Add: ops Slice,Exp,Add
// COLUMN-COUNT-2: PASS
// COLUMN: model: 1 kernels (0 left to the interpreter) | 0 boundary ops | {{.*}} (1.000x) over 2 run(s)
