// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --verify-diagnostics -o /dev/null
// RUN: %autofuse-run -v %S/Inputs/concat_outermost.mlir --entry padded --symbols s0=3,s1=5 --symbols s0=2001,s1=3001 --vendor-headers %vendor_headers | FileCheck %s --check-prefix=SPLIT
// RUN: %autofuse-run -v %S/Inputs/pad_exp_mul.mlir --symbols s0=7 --symbols s0=300 --vendor-headers %vendor_headers | FileCheck %s --check-prefix=E2E

// A constant pad on one axis is concat(fill, x, fill) along it: each fill a Duplicate of
// the pad value over its slab (3 and 5 columns here, not 32-byte multiples), x one load
// of the whole operand; the first concat covers 3 + 40 columns, the second all 48.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Pad
// CHECK: %[[X:.*]] = "ascir.load"(%{{.*}}) {offset = "0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "40"], ["40", "1"]>}
// CHECK: %[[B:.*]] = "ascir.fill"() {sched_axis = [0, 1], value = "-1.5", view = #ascir.view<[0, 1], ["s0", "3"], ["3", "1"]>}
// CHECK: %[[A:.*]] = "ascir.fill"() {sched_axis = [0, 1], value = "-1.5", view = #ascir.view<[0, 1], ["s0", "5"], ["5", "1"]>}
// CHECK: %[[C:.*]] = "ascir.concat"(%[[B]], %[[X]]) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "43"], ["43", "1"]>}
// CHECK: %[[D:.*]] = "ascir.concat"(%[[C]], %[[A]]) {sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "48"], ["48", "1"]>}
// CHECK: "ascir.store"(%[[D]]) {offset = "0", sched_axis = [0, 1], view = #ascir.view<[0, 1], ["s0", "48"], ["48", "1"]>}
func.func @pad_last(%x: tensor<?x40xf32, #ascend.dims<["s0", "40"]>>) -> tensor<?x48xf32> {
  %p = "ascend.pad"(%x) {pads = [0, 3, 0, 5], mode = "constant", value = -1.5 : f64} : (tensor<?x40xf32, #ascend.dims<["s0", "40"]>>) -> tensor<?x48xf32>
  return %p : tensor<?x48xf32>
}

// -----

// Padding after only, on a middle axis of f16: one fill of 3 rows after x.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Pad
// CHECK: %[[X:.*]] = "ascir.load"
// CHECK: %[[A:.*]] = "ascir.fill"() {sched_axis = [0, 1, 2], value = "0.0", view = #ascir.view<[0, 1, 2], ["s0", "3", "24"], ["72", "24", "1"]>} : () -> tensor<?x3x24xf16>
// CHECK: "ascir.concat"(%[[X]], %[[A]]) {sched_axis = [0, 1, 2], view = #ascir.view<[0, 1, 2], ["s0", "8", "24"], ["192", "24", "1"]>}
func.func @pad_middle(%x: tensor<?x5x24xf16, #ascend.dims<["s0", "5", "24"]>>) -> tensor<?x8x24xf16> {
  %p = "ascend.pad"(%x) {pads = [0, 0, 0, 0, 3, 0], mode = "constant", value = 0.0 : f64} : (tensor<?x5x24xf16, #ascend.dims<["s0", "5", "24"]>>) -> tensor<?x8x24xf16>
  return %p : tensor<?x8x24xf16>
}

// -----

// A pad on two axes becomes (--decompose) two pads of one axis each, innermost first:
// two kernels, each a concat along its own axis.
// CHECK-LABEL: func.func @pad_two_axes
// CHECK: %[[P:.*]] = call @autofuse_pointwise_0_Pad(%arg0) : {{.*}} -> tensor<?x5x26xf32
// CHECK: call @autofuse_pointwise_1_Pad(%[[P]]) : {{.*}} -> tensor<?x6x26xf32
// CHECK-LABEL: func.func @autofuse_pointwise_0_Pad
// CHECK: "ascir.concat"{{.*}}view = #ascir.view<[0, 1, 2], ["s0", "5", "25"]
// CHECK: "ascir.concat"{{.*}}view = #ascir.view<[0, 1, 2], ["s0", "5", "26"]
// CHECK-LABEL: func.func @autofuse_pointwise_1_Pad
// CHECK: "ascir.concat"{{.*}}view = #ascir.view<[0, 1, 2], ["s0", "6", "26"]
func.func @pad_two_axes(%x: tensor<?x5x24xf32, #ascend.dims<["s0", "5", "24"]>>) -> tensor<?x6x26xf32> {
  %p = "ascend.pad"(%x) {pads = [0, 1, 1, 0, 0, 1], mode = "constant", value = 2.0 : f64} : (tensor<?x5x24xf32, #ascend.dims<["s0", "5", "24"]>>) -> tensor<?x6x26xf32>
  return %p : tensor<?x6x26xf32>
}

// -----

// Pads this lowering refuses stay graph ops with a reason.
// (--decompose rewrites edge pads, and reflect / wrap pads of static axes, as concats
// of slices: a reflect of a symbolic axis is left.)
// A pad whose padded row (the axes after the padded one) is symbolic is lowered: its
// schedule also has a case cutting rows into blocks, for rows longer than UB.
// CHECK-LABEL: func.func @refused
// CHECK: "ascend.pad"(%arg0) {mode = "reflect"
// CHECK: call @autofuse_pointwise_0_Pad(%arg1)
func.func @refused(%x: tensor<?x8xf32, #ascend.dims<["s0", "8"]>>, %n: tensor<8x?xf32, #ascend.dims<["8", "s1"]>>) -> (tensor<?x8xf32>, tensor<?x6xf32>, tensor<?x12xf32>, tensor<10x?xf32>) {
  // expected-remark@+1 {{AF-LW001 not lowered: pad mode 'reflect' is not lowered (constant only)}}
  %e = "ascend.pad"(%x) {pads = [1, 0, 1, 0], mode = "reflect", value = 0.0 : f64} : (tensor<?x8xf32, #ascend.dims<["s0", "8"]>>) -> tensor<?x8xf32>
  // expected-remark@+1 {{AF-LW001 not lowered: negative pads (crops) are not lowered}}
  %c = "ascend.pad"(%x) {pads = [0, -1, 0, -1], mode = "constant", value = 0.0 : f64} : (tensor<?x8xf32, #ascend.dims<["s0", "8"]>>) -> tensor<?x6xf32>
  // expected-remark@+1 {{AF-LW001 not lowered: pads of axis 1 are symbolic (not lowered)}}
  %s = "ascend.pad"(%x) {pads = [0, 0, 0, "s1"], mode = "constant", value = 0.0 : f64} : (tensor<?x8xf32, #ascend.dims<["s0", "8"]>>) -> tensor<?x12xf32>
  %o = "ascend.pad"(%n) {pads = [1, 0, 1, 0], mode = "constant", value = 0.0 : f64} : (tensor<8x?xf32, #ascend.dims<["8", "s1"]>>) -> tensor<10x?xf32>
  return %e, %c, %s, %o : tensor<?x8xf32>, tensor<?x6xf32>, tensor<?x12xf32>, tensor<10x?xf32>
}

// E2E: kernel autofuse_pointwise_0_Exp_Pad_Mul: ops Exp,Pad,Mul
// E2E-COUNT-2: vendor path: 1 kernel(s) run, max error {{.*}} (vs sim {{.*}}): PASS
// E2E: model: 1 kernels (0 left to the interpreter) | 0 boundary ops | {{.*}} (1.000x) over 2 run(s) | with per-core copies {{.*}} (1.000x)

// -----

// Pads of the outermost axis and of a symbolic last axis are kernels: their tiles split
// the padded axis (rows of the fills and of x that fall in each tile).
// CHECK-LABEL: func.func @split_pads
// CHECK: call @autofuse_pointwise_0_Pad(%arg0)
// CHECK: call @autofuse_pointwise_1_Pad(%arg1)
func.func @split_pads(%m: tensor<?x8xf32, #ascend.dims<["s0", "8"]>>, %n: tensor<8x?xf32, #ascend.dims<["8", "s1"]>>) -> (tensor<?x8xf32>, tensor<8x?xf32>) {
  %o = "ascend.pad"(%m) {pads = [2, 0, 1, 0], mode = "constant", value = 0.5 : f64} : (tensor<?x8xf32, #ascend.dims<["s0", "8"]>>) -> tensor<?x8xf32>
  %w = "ascend.pad"(%n) {pads = [0, 0, 0, 2], mode = "constant", value = 0.0 : f64} : (tensor<8x?xf32, #ascend.dims<["8", "s1"]>>) -> tensor<8x?xf32>
  return %o, %w : tensor<?x8xf32>, tensor<8x?xf32>
}
// The outermost-axis pad (fused with its exp) and the last-axis pad on the emulation and
// the vendor path, at the minimum GM bytes.
// SPLIT: kernel autofuse_pointwise_{{[0-9]+}}_Exp_Pad: ops Exp,Pad
// SPLIT-COUNT-2: vendor path: 1 kernel(s) run, max error {{.*}} (vs sim {{.*}}): PASS
// SPLIT: model: 2 kernels in 1 launch(es) (0 left to the interpreter) | 0 boundary ops | {{.*}} (1.000x) over 2 run(s) | with per-core copies {{.*}} (1.000x)
