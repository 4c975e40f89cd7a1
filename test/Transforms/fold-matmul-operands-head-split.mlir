// RUN: %autofuse-opt %s --infer-symbolic-shapes --fold-matmul-operands | FileCheck %s
// RUN: %autofuse-opt %s --infer-symbolic-shapes --fold-matmul-operands --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %autofuse-run %s --entry qkv --symbols b=2,s=5 --symbols b=1,s=33 | FileCheck %s --check-prefix=EXEC
// RUN: %autofuse-run %s --entry qkv_static | FileCheck %s --check-prefix=EXEC
//
// --fold-matmul-operands, step 3: when every user of a value is a head transpose of a
// slice of its innermost axis (GPT-2's fused QKV projection split into Q, K and V, each
// reshaped to [b, s, heads, d] and transposed to [b, heads, s, d]), the value is
// reshaped and transposed once and the heads are sliced from that, so the transpose can
// fuse into the value's producer. The compiled graphs (the runner's pipeline includes
// the pass) compute what the interpreter of the original graph does.
// EXEC: == PASS

// STATS: fold-matmul-operands
// STATS-DAG: (5) head-transposes-above-split
// STATS-DAG: (1) transpose-flags

// GPT-2's attention after its QKV projection: 3 heads of 4, split at 12 and 24. K's
// [0, 2, 3, 1] transpose is first read through transpose_b (step 1), which leaves the
// head transpose [0, 2, 1, 3] every chain shares.
// CHECK-LABEL: func.func @qkv
// CHECK: %[[W:.*]] = "ascend.reshape"(%arg0) : (tensor<?x?x36xf32, #ascend.dims<["b", "s", "36"]>>) -> tensor<?x?x9x4xf32, #ascend.dims<["b", "s", "9", "4"]>>
// CHECK: %[[T:.*]] = "ascend.transpose"(%[[W]]) {perm = [0, 2, 1, 3]} : (tensor<?x?x9x4xf32, #ascend.dims<["b", "s", "9", "4"]>>) -> tensor<?x9x?x4xf32, #ascend.dims<["b", "9", "s", "4"]>>
// CHECK-DAG: %[[Q:.*]] = "ascend.slice"(%[[T]]) {axes = [1], ends = [3], starts = [0], steps = [1]}
// CHECK-DAG: %[[K:.*]] = "ascend.slice"(%[[T]]) {axes = [1], ends = [6], starts = [3], steps = [1]}
// CHECK-DAG: %[[V:.*]] = "ascend.slice"(%[[T]]) {axes = [1], ends = [9], starts = [6], steps = [1]}
// CHECK-NOT: ascend.transpose
// CHECK: "ascend.matmul"(%[[Q]], %[[K]]) {transpose_a = false, transpose_b = true}
// CHECK: "ascend.matmul"(%{{.*}}, %[[V]]) {transpose_a = false, transpose_b = false}
// CHECK-NOT: ascend.transpose
// CHECK: return
func.func @qkv(%x: tensor<?x?x36xf32, #ascend.dims<["b", "s", "36"]>>) -> tensor<?x3x?x4xf32, #ascend.dims<["b", "3", "s", "4"]>> {
  %q = "ascend.slice"(%x) {axes = [2], ends = [12], starts = [0], steps = [1]} : (tensor<?x?x36xf32, #ascend.dims<["b", "s", "36"]>>) -> tensor<?x?x12xf32, #ascend.dims<["b", "s", "12"]>>
  %k = "ascend.slice"(%x) {axes = [2], ends = [24], starts = [12], steps = [1]} : (tensor<?x?x36xf32, #ascend.dims<["b", "s", "36"]>>) -> tensor<?x?x12xf32, #ascend.dims<["b", "s", "12"]>>
  %v = "ascend.slice"(%x) {axes = [2], ends = [36], starts = [24], steps = [1]} : (tensor<?x?x36xf32, #ascend.dims<["b", "s", "36"]>>) -> tensor<?x?x12xf32, #ascend.dims<["b", "s", "12"]>>
  %qr = "ascend.reshape"(%q) : (tensor<?x?x12xf32, #ascend.dims<["b", "s", "12"]>>) -> tensor<?x?x3x4xf32, #ascend.dims<["b", "s", "3", "4"]>>
  %kr = "ascend.reshape"(%k) : (tensor<?x?x12xf32, #ascend.dims<["b", "s", "12"]>>) -> tensor<?x?x3x4xf32, #ascend.dims<["b", "s", "3", "4"]>>
  %vr = "ascend.reshape"(%v) : (tensor<?x?x12xf32, #ascend.dims<["b", "s", "12"]>>) -> tensor<?x?x3x4xf32, #ascend.dims<["b", "s", "3", "4"]>>
  %qt = "ascend.transpose"(%qr) {perm = [0, 2, 1, 3]} : (tensor<?x?x3x4xf32, #ascend.dims<["b", "s", "3", "4"]>>) -> tensor<?x3x?x4xf32, #ascend.dims<["b", "3", "s", "4"]>>
  %kt = "ascend.transpose"(%kr) {perm = [0, 2, 3, 1]} : (tensor<?x?x3x4xf32, #ascend.dims<["b", "s", "3", "4"]>>) -> tensor<?x3x4x?xf32, #ascend.dims<["b", "3", "4", "s"]>>
  %vt = "ascend.transpose"(%vr) {perm = [0, 2, 1, 3]} : (tensor<?x?x3x4xf32, #ascend.dims<["b", "s", "3", "4"]>>) -> tensor<?x3x?x4xf32, #ascend.dims<["b", "3", "s", "4"]>>
  %sc = "ascend.matmul"(%qt, %kt) {transpose_a = false, transpose_b = false} : (tensor<?x3x?x4xf32, #ascend.dims<["b", "3", "s", "4"]>>, tensor<?x3x4x?xf32, #ascend.dims<["b", "3", "4", "s"]>>) -> tensor<?x3x?x?xf32, #ascend.dims<["b", "3", "s", "s"]>>
  %o = "ascend.matmul"(%sc, %vt) {transpose_a = false, transpose_b = false} : (tensor<?x3x?x?xf32, #ascend.dims<["b", "3", "s", "s"]>>, tensor<?x3x?x4xf32, #ascend.dims<["b", "3", "s", "4"]>>) -> tensor<?x3x?x4xf32, #ascend.dims<["b", "3", "s", "4"]>>
  return %o : tensor<?x3x?x4xf32, #ascend.dims<["b", "3", "s", "4"]>>
}

// Static shapes, rank 2 (no batch): [s, 16] split into two halves of 2 heads of 4,
// the head axis moved first ([1, 0, 2]); the heads are sliced on axis 0.
// CHECK-LABEL: func.func @qkv_static
// CHECK: %[[W:.*]] = "ascend.reshape"(%arg0) : (tensor<5x16xf32>) -> tensor<5x4x4xf32>
// CHECK: %[[T:.*]] = "ascend.transpose"(%[[W]]) {perm = [1, 0, 2]} : (tensor<5x4x4xf32>) -> tensor<4x5x4xf32>
// CHECK-DAG: %[[A:.*]] = "ascend.slice"(%[[T]]) {axes = [0], ends = [2], starts = [0], steps = [1]} : (tensor<4x5x4xf32>) -> tensor<2x5x4xf32>
// CHECK-DAG: %[[B:.*]] = "ascend.slice"(%[[T]]) {axes = [0], ends = [4], starts = [2], steps = [1]} : (tensor<4x5x4xf32>) -> tensor<2x5x4xf32>
// CHECK: "ascend.matmul"(%[[A]], %[[B]]) {transpose_a = false, transpose_b = true}
func.func @qkv_static(%x: tensor<5x16xf32>) -> tensor<2x5x5xf32> {
  %a = "ascend.slice"(%x) {axes = [-1], ends = [8], starts = [0], steps = [1]} : (tensor<5x16xf32>) -> tensor<5x8xf32>
  %b = "ascend.slice"(%x) {axes = [1], ends = [16], starts = [8], steps = [1]} : (tensor<5x16xf32>) -> tensor<5x8xf32>
  %ar = "ascend.reshape"(%a) : (tensor<5x8xf32>) -> tensor<5x2x4xf32>
  %br = "ascend.reshape"(%b) : (tensor<5x8xf32>) -> tensor<5x2x4xf32>
  %at = "ascend.transpose"(%ar) {perm = [1, 0, 2]} : (tensor<5x2x4xf32>) -> tensor<2x5x4xf32>
  %bt = "ascend.transpose"(%br) {perm = [1, 0, 2]} : (tensor<5x2x4xf32>) -> tensor<2x5x4xf32>
  %s = "ascend.matmul"(%at, %bt) {transpose_a = false, transpose_b = true} : (tensor<2x5x4xf32>, tensor<2x5x4xf32>) -> tensor<2x5x5xf32>
  return %s : tensor<2x5x5xf32>
}

// Left alone: the slices cover 8 of 16 elements (a transpose of the whole would move
// twice the data); the heads of the two slices differ in size; a slice also read as it
// is; no transpose feeds a matmul.
// CHECK-LABEL: func.func @partial
// CHECK-NOT: tensor<5x4x4xf32>
// CHECK: "ascend.transpose"(%{{.*}}) {perm = [1, 0, 2]} : (tensor<5x2x4xf32>) -> tensor<2x5x4xf32>
func.func @partial(%x: tensor<5x16xf32>, %y: tensor<2x4x5xf32>) -> tensor<2x5x5xf32> {
  %a = "ascend.slice"(%x) {axes = [1], ends = [8], starts = [0], steps = [1]} : (tensor<5x16xf32>) -> tensor<5x8xf32>
  %ar = "ascend.reshape"(%a) : (tensor<5x8xf32>) -> tensor<5x2x4xf32>
  %at = "ascend.transpose"(%ar) {perm = [1, 0, 2]} : (tensor<5x2x4xf32>) -> tensor<2x5x4xf32>
  %s = "ascend.matmul"(%at, %y) {transpose_a = false, transpose_b = false} : (tensor<2x5x4xf32>, tensor<2x4x5xf32>) -> tensor<2x5x5xf32>
  return %s : tensor<2x5x5xf32>
}

// CHECK-LABEL: func.func @mixed_heads
// CHECK-NOT: tensor<5x4x4xf32>
// CHECK: return
func.func @mixed_heads(%x: tensor<5x16xf32>) -> tensor<2x5x5xf32> {
  %a = "ascend.slice"(%x) {axes = [1], ends = [8], starts = [0], steps = [1]} : (tensor<5x16xf32>) -> tensor<5x8xf32>
  %b = "ascend.slice"(%x) {axes = [1], ends = [16], starts = [8], steps = [1]} : (tensor<5x16xf32>) -> tensor<5x8xf32>
  %ar = "ascend.reshape"(%a) : (tensor<5x8xf32>) -> tensor<5x2x4xf32>
  %br = "ascend.reshape"(%b) : (tensor<5x8xf32>) -> tensor<5x4x2xf32>
  %at = "ascend.transpose"(%ar) {perm = [1, 0, 2]} : (tensor<5x2x4xf32>) -> tensor<2x5x4xf32>
  %bt = "ascend.transpose"(%br) {perm = [1, 0, 2]} : (tensor<5x4x2xf32>) -> tensor<4x5x2xf32>
  %bb = "ascend.reshape"(%bt) : (tensor<4x5x2xf32>) -> tensor<2x5x4xf32>
  %s = "ascend.matmul"(%at, %bb) {transpose_a = false, transpose_b = true} : (tensor<2x5x4xf32>, tensor<2x5x4xf32>) -> tensor<2x5x5xf32>
  return %s : tensor<2x5x5xf32>
}

// CHECK-LABEL: func.func @slice_read_twice
// CHECK-NOT: tensor<5x4x4xf32>
// CHECK: return
func.func @slice_read_twice(%x: tensor<5x16xf32>) -> (tensor<2x5x5xf32>, tensor<5x8xf32>) {
  %a = "ascend.slice"(%x) {axes = [1], ends = [8], starts = [0], steps = [1]} : (tensor<5x16xf32>) -> tensor<5x8xf32>
  %b = "ascend.slice"(%x) {axes = [1], ends = [16], starts = [8], steps = [1]} : (tensor<5x16xf32>) -> tensor<5x8xf32>
  %ar = "ascend.reshape"(%a) : (tensor<5x8xf32>) -> tensor<5x2x4xf32>
  %br = "ascend.reshape"(%b) : (tensor<5x8xf32>) -> tensor<5x2x4xf32>
  %at = "ascend.transpose"(%ar) {perm = [1, 0, 2]} : (tensor<5x2x4xf32>) -> tensor<2x5x4xf32>
  %bt = "ascend.transpose"(%br) {perm = [1, 0, 2]} : (tensor<5x2x4xf32>) -> tensor<2x5x4xf32>
  %s = "ascend.matmul"(%at, %bt) {transpose_a = false, transpose_b = true} : (tensor<2x5x4xf32>, tensor<2x5x4xf32>) -> tensor<2x5x5xf32>
  return %s, %b : tensor<2x5x5xf32>, tensor<5x8xf32>
}

// CHECK-LABEL: func.func @no_matmul
// CHECK-NOT: tensor<5x4x4xf32>
// CHECK: return
func.func @no_matmul(%x: tensor<5x16xf32>) -> (tensor<2x5x4xf32>, tensor<2x5x4xf32>) {
  %a = "ascend.slice"(%x) {axes = [1], ends = [8], starts = [0], steps = [1]} : (tensor<5x16xf32>) -> tensor<5x8xf32>
  %b = "ascend.slice"(%x) {axes = [1], ends = [16], starts = [8], steps = [1]} : (tensor<5x16xf32>) -> tensor<5x8xf32>
  %ar = "ascend.reshape"(%a) : (tensor<5x8xf32>) -> tensor<5x2x4xf32>
  %br = "ascend.reshape"(%b) : (tensor<5x8xf32>) -> tensor<5x2x4xf32>
  %at = "ascend.transpose"(%ar) {perm = [1, 0, 2]} : (tensor<5x2x4xf32>) -> tensor<2x5x4xf32>
  %bt = "ascend.transpose"(%br) {perm = [1, 0, 2]} : (tensor<5x2x4xf32>) -> tensor<2x5x4xf32>
  return %at, %bt : tensor<2x5x4xf32>, tensor<2x5x4xf32>
}
