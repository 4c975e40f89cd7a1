// RUN: %autofuse-opt %S/Inputs/border_pad.mlir --infer-symbolic-shapes --decompose | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %S/Inputs/border_pad.mlir --entry reflect2d | FileCheck %s --check-prefix=EXEC
// RUN: %vendor_env %autofuse-run -v %S/Inputs/border_pad.mlir --entry wrap_long | FileCheck %s --check-prefix=EXEC
// RUN: %autofuse-run -v %S/Inputs/border_pad.mlir --entry reflect_i32 | FileCheck %s --check-prefix=EXEC
// RUN: %vendor_env %autofuse-run -v %S/Inputs/border_pad.mlir --entry edge_sym --symbols s0=1,s1=1 --symbols s0=5,s1=40 --symbols s0=2,s1=70001 | FileCheck %s --check-prefix=EXEC
//
// --decompose rewrites edge / reflect / wrap pads axis by axis (innermost first) as a
// concat chain of the operand and slices of it: each output position along the axis is
// a copy of the input position its mode maps it to (edge: clamp; reflect: mirror
// without the border; wrap: modulo), grouped into runs of consecutive elements (one
// slice each) and repeated borders (a one-element slice and broadcast_to). The kernels
// run on the emulation (and the vendor path) equal to the interpreter of the pad.
// EXEC: (0 left to the interpreter)
// EXEC: == PASS

// Reflect of [6, 10] by (2, 1) rows and (3, 2) columns: columns 3, 2, 1 | x | 8, 7,
// then rows 2, 1 | . | 4 of the column-padded tensor.
// CHECK-LABEL: func.func @reflect2d
// CHECK-NOT: ascend.pad
// CHECK: %[[C3:.*]] = "ascend.slice"(%arg0) {axes = [1], ends = ["4"], starts = ["3"], steps = [1]}
// CHECK: %[[C2:.*]] = "ascend.slice"(%arg0) {axes = [1], ends = ["3"], starts = ["2"], steps = [1]}
// CHECK: %[[J0:.*]] = "ascend.concat"(%[[C3]], %[[C2]]) {axis = 1 : i64}
// CHECK: %[[C1:.*]] = "ascend.slice"(%arg0) {axes = [1], ends = ["2"], starts = ["1"], steps = [1]}
// CHECK: %[[J1:.*]] = "ascend.concat"(%[[J0]], %[[C1]]) {axis = 1 : i64}
// CHECK: %[[J2:.*]] = "ascend.concat"(%[[J1]], %arg0) {axis = 1 : i64} {{.*}} -> tensor<6x13xf32>
// CHECK: "ascend.slice"(%arg0) {axes = [1], ends = ["9"], starts = ["8"], steps = [1]}
// CHECK: "ascend.slice"(%arg0) {axes = [1], ends = ["8"], starts = ["7"], steps = [1]}
// CHECK: %[[COLS:.*]] = "ascend.concat"({{.*}}) {axis = 1 : i64} {{.*}} -> tensor<6x15xf32>
// CHECK: "ascend.slice"(%[[COLS]]) {axes = [0], ends = ["3"], starts = ["2"], steps = [1]}
// CHECK: "ascend.slice"(%[[COLS]]) {axes = [0], ends = ["2"], starts = ["1"], steps = [1]}
// CHECK: "ascend.slice"(%[[COLS]]) {axes = [0], ends = ["5"], starts = ["4"], steps = [1]}
// CHECK: "ascend.concat"({{.*}}) {axis = 0 : i64} {{.*}} -> tensor<9x15xf32>

// Wrap by more than the extent (4 of 3 on each side): 2 | 0 1 2 | x | 0 1 2 | 0.
// CHECK-LABEL: func.func @wrap_long
// CHECK: "ascend.slice"(%arg0) {axes = [1], ends = ["3"], starts = ["2"], steps = [1]} {{.*}} -> tensor<4x1xf16>
// CHECK: "ascend.slice"(%arg0) {axes = [1], ends = ["3"], starts = ["0"], steps = [1]} {{.*}} -> tensor<4x3xf16>
// CHECK: "ascend.slice"(%arg0) {axes = [1], ends = ["3"], starts = ["0"], steps = [1]} {{.*}} -> tensor<4x3xf16>
// CHECK: "ascend.slice"(%arg0) {axes = [1], ends = ["1"], starts = ["0"], steps = [1]} {{.*}} -> tensor<4x1xf16>
// CHECK: "ascend.concat"({{.*}}) {axis = 1 : i64} {{.*}} -> tensor<4x11xf16>

// Edge with symbolic extents: the same chains, with symbolic slice bounds. A row of
// the padded result (s1 + 6 elements) may outgrow UB; the concat kernels then take the
// case that cuts rows into blocks (the EXEC run at s1 = 70001 needs it: 274 KiB rows).
// CHECK-LABEL: func.func @edge_sym
// CHECK-NOT: ascend.pad
// CHECK: "ascend.slice"(%arg0) {axes = [1], ends = ["s1"], starts = ["s1-1"], steps = [1]}
// CHECK: "ascend.concat"({{.*}}) {axis = 1 : i64} {{.*}} -> tensor<?x?xf32, #ascend.dims<["s0", "s1+6"]>>
// CHECK: "ascend.slice"(%{{.*}}) {axes = [0], ends = ["s0"], starts = ["s0-1"], steps = [1]}
// CHECK: "ascend.concat"({{.*}}) {axis = 0 : i64} {{.*}} -> tensor<?x?xf32, #ascend.dims<["s0+4", "s1+6"]>>
// CHECK: return

// CHECK-LABEL: func.func @reflect_i32
// CHECK-NOT: ascend.pad
// CHECK: return {{.*}} : tensor<2x5x7xi32>
