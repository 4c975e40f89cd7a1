// RUN: %autofuse-opt %S/Inputs/strided_slice.mlir --infer-symbolic-shapes --decompose | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %S/Inputs/strided_slice.mlir --entry interleave --symbols s0=5 --symbols s0=33 | FileCheck %s --check-prefix=EXEC
// RUN: %autofuse-run -v %S/Inputs/strided_slice.mlir --entry odd --symbols s0=2 --symbols s0=40 | FileCheck %s --check-prefix=EXEC
// RUN: %autofuse-run -v %S/Inputs/strided_slice.mlir --entry tail | FileCheck %s --check-prefix=EXEC
// RUN: %autofuse-run -v %S/Inputs/strided_slice.mlir --entry even | FileCheck %s --check-prefix=EXEC
//
// --decompose rewrites a slice stepping k > 1 through the static innermost axis as
// contiguous data movement: the groups of k elements from the group holding the start
// (a contiguous slice, or the elements from the start padded with zeros when the axis
// ends inside the last group), reshaped to [count, k], the one column the start falls
// in (rows of one element), reshaped back; the other axes are sliced first. Every
// piece lowers, so the interleaved halves of a rotary embedding run as kernels, equal
// to the interpreter of the strided slice.
// EXEC: (0 left to the interpreter)
// EXEC: == PASS

// x[..., 0::2] of 8: [4, 2], column 0.
// CHECK-LABEL: func.func @even
// CHECK: %[[G:.*]] = "ascend.reshape"(%arg0) {{.*}} -> tensor<2x4x3x4x2xf32>
// CHECK: %[[C:.*]] = "ascend.slice"(%[[G]]) {axes = [4], ends = [1], starts = [0], steps = [1]}
// CHECK: "ascend.reshape"(%[[C]]) {{.*}} -> tensor<2x4x3x4xf32>

// x[1:, 1::3] of 9: the outer axis first, then [3, 3], column 1.
// CHECK-LABEL: func.func @odd
// CHECK: %[[O:.*]] = "ascend.slice"(%arg0) {axes = [0], {{.*}} starts = ["1"], steps = [1]}
// CHECK: %[[G:.*]] = "ascend.reshape"(%[[O]]) {{.*}} -> tensor<?x3x3xf16
// CHECK: "ascend.slice"(%[[G]]) {axes = [2], ends = [2], starts = [1], steps = [1]}

// The real and imaginary halves: columns 0 and 1 of [5, 2].
// CHECK-LABEL: func.func @interleave
// CHECK-NOT: steps = [2]
// CHECK: "ascend.slice"({{.*}}) {axes = [3], ends = [1], starts = [0], steps = [1]}
// CHECK: "ascend.slice"({{.*}}) {axes = [3], ends = [2], starts = [1], steps = [1]}

// x[:, -9::4] of 11 (elements 2, 6, 10): the axis ends inside the third group, so the
// nine elements from 2 are padded by 3 to [3, 4], column 0.
// CHECK-LABEL: func.func @tail
// CHECK: %[[S:.*]] = "ascend.slice"(%arg0) {axes = [1], ends = [11], starts = [2], steps = [1]}
// CHECK: %[[P:.*]] = "ascend.pad"(%[[S]]) {mode = "constant", pads = [0, 0, 0, 3]
// CHECK: %[[G:.*]] = "ascend.reshape"(%[[P]]) {{.*}} -> tensor<4x3x4xf32>
// CHECK: "ascend.slice"(%[[G]]) {axes = [2], ends = [1], starts = [0], steps = [1]}
