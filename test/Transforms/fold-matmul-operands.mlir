// RUN: %autofuse-opt %s --infer-symbolic-shapes --fold-matmul-operands | FileCheck %s
// RUN: %autofuse-opt %s --infer-symbolic-shapes --fold-matmul-operands --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %autofuse-run %s --entry swap_b | FileCheck %s --check-prefix=EXEC
// RUN: %autofuse-run %s --entry swap_a | FileCheck %s --check-prefix=EXEC
// RUN: %autofuse-run %s --entry head_and_swap | FileCheck %s --check-prefix=EXEC
// RUN: %autofuse-run %s --entry shared | FileCheck %s --check-prefix=EXEC
// RUN: %autofuse-run %s --entry gqa_v --symbols s0=2,s1=5 --symbols s0=1,s1=33 | FileCheck %s --check-prefix=EXEC
// RUN: %autofuse-run %s --entry gqa_k --symbols s0=2,s1=5 --symbols s0=3,s1=17 | FileCheck %s --check-prefix=EXEC
//
// --fold-matmul-operands reads a transpose that puts its source's innermost axis second
// to last through the matmul's transpose flag, and a reshape(broadcast_to(y)) repeating
// K/V heads (grouped-query attention) through the matmul's batch broadcast. The compiled
// graphs (the runner's pipeline includes the pass) compute what the interpreter of the
// original graph does.
// EXEC: == PASS

// STATS: fold-matmul-operands
// STATS-DAG: (3) batch-broadcasts
// STATS-DAG: (5) transpose-flags

// The two innermost axes swapped, leading axes in place: the flag, the source read.
// CHECK-LABEL: func.func @swap_b
// CHECK-NOT: ascend.transpose
// CHECK: "ascend.matmul"(%arg0, %arg1) {transpose_a = false, transpose_b = true} : (tensor<2x3x4x8xf32>, tensor<2x3x6x8xf32>) -> tensor<2x3x4x6xf32>
// CHECK-NOT: ascend.transpose
// CHECK: return
func.func @swap_b(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x6x8xf32>) -> tensor<2x3x4x6xf32> {
  %kt = "ascend.transpose"(%k) {perm = [0, 1, 3, 2]} : (tensor<2x3x6x8xf32>) -> tensor<2x3x8x6xf32>
  %s = "ascend.matmul"(%q, %kt) {transpose_a = false, transpose_b = false} : (tensor<2x3x4x8xf32>, tensor<2x3x8x6xf32>) -> tensor<2x3x4x6xf32>
  return %s : tensor<2x3x4x6xf32>
}

// A flag already set flips back.
// CHECK-LABEL: func.func @swap_a
// CHECK-NOT: ascend.transpose
// CHECK: "ascend.matmul"(%arg0, %arg1) {transpose_a = false, transpose_b = false} : (tensor<5x7xf32>, tensor<7x3xf32>) -> tensor<5x3xf32>
func.func @swap_a(%a: tensor<5x7xf32>, %b: tensor<7x3xf32>) -> tensor<5x3xf32> {
  %at = "ascend.transpose"(%a) {perm = [1, 0]} : (tensor<5x7xf32>) -> tensor<7x5xf32>
  %s = "ascend.matmul"(%at, %b) {transpose_a = true, transpose_b = false} : (tensor<7x5xf32>, tensor<7x3xf32>) -> tensor<5x3xf32>
  return %s : tensor<5x3xf32>
}

// BERT's K^T: [b, s, h, d] -> [b, h, d, s] (perm [0, 2, 3, 1]) is the head transpose
// [0, 2, 1, 3], which keeps the innermost axis, read transposed.
// CHECK-LABEL: func.func @head_and_swap
// CHECK: %[[T:.*]] = "ascend.transpose"(%arg1) {perm = [0, 2, 1, 3]} : (tensor<2x6x3x8xf32>) -> tensor<2x3x6x8xf32>
// CHECK: "ascend.matmul"(%arg0, %[[T]]) {transpose_a = false, transpose_b = true}
// CHECK-NOT: perm = [0, 2, 3, 1]
// CHECK: return
func.func @head_and_swap(%q: tensor<2x3x4x8xf32>, %k: tensor<2x6x3x8xf32>) -> tensor<2x3x4x6xf32> {
  %kt = "ascend.transpose"(%k) {perm = [0, 2, 3, 1]} : (tensor<2x6x3x8xf32>) -> tensor<2x3x8x6xf32>
  %s = "ascend.matmul"(%q, %kt) {transpose_a = false, transpose_b = false} : (tensor<2x3x4x8xf32>, tensor<2x3x8x6xf32>) -> tensor<2x3x4x6xf32>
  return %s : tensor<2x3x4x6xf32>
}

// A transpose with another user stays for it; the matmul reads the source.
// CHECK-LABEL: func.func @shared
// CHECK: %[[T:.*]] = "ascend.transpose"(%arg1) {perm = [0, 2, 1]}
// CHECK: %[[M:.*]] = "ascend.matmul"(%arg0, %arg1) {transpose_a = false, transpose_b = true}
// CHECK: return %[[M]], %[[T]]
func.func @shared(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>) -> (tensor<2x4x6xf32>, tensor<2x8x6xf32>) {
  %kt = "ascend.transpose"(%k) {perm = [0, 2, 1]} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
  %s = "ascend.matmul"(%q, %kt) {transpose_a = false, transpose_b = false} : (tensor<2x4x8xf32>, tensor<2x8x6xf32>) -> tensor<2x4x6xf32>
  return %s, %kt : tensor<2x4x6xf32>, tensor<2x8x6xf32>
}

// Not folded: a transpose of leading axes only (the innermost axis stays: no flag
// expresses it), and one that moves the innermost axis to the front.
// CHECK-LABEL: func.func @leading_only
// CHECK: %[[T:.*]] = "ascend.transpose"(%arg1) {perm = [0, 2, 1, 3]}
// CHECK: "ascend.matmul"(%arg0, %[[T]]) {transpose_a = false, transpose_b = false}
// CHECK: %[[U:.*]] = "ascend.transpose"(%arg2) {perm = [2, 0, 1]}
// CHECK: "ascend.matmul"(%[[U]], %arg3) {transpose_a = false, transpose_b = false}
func.func @leading_only(%q: tensor<2x3x5x4xf32>, %v: tensor<2x4x3x8xf32>, %x: tensor<4x2x3xf32>, %y: tensor<2x5xf32>) -> (tensor<2x3x5x8xf32>, tensor<3x4x5xf32>) {
  %vt = "ascend.transpose"(%v) {perm = [0, 2, 1, 3]} : (tensor<2x4x3x8xf32>) -> tensor<2x3x4x8xf32>
  %o = "ascend.matmul"(%q, %vt) {transpose_a = false, transpose_b = false} : (tensor<2x3x5x4xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x5x8xf32>
  %xt = "ascend.transpose"(%x) {perm = [2, 0, 1]} : (tensor<4x2x3xf32>) -> tensor<3x4x2xf32>
  %r = "ascend.matmul"(%xt, %y) {transpose_a = false, transpose_b = false} : (tensor<3x4x2xf32>, tensor<2x5xf32>) -> tensor<3x4x5xf32>
  return %o, %r : tensor<2x3x5x8xf32>, tensor<3x4x5xf32>
}

// GQA's V: 2 KV heads repeated to 4 (unsqueeze, broadcast_to, reshape) feed the value
// product. The matmul broadcasts the KV heads itself: probabilities reshaped to
// [b, 2, 2, s, s], V read as [b, 2, 1, s, 8], the product reshaped back.
// CHECK-LABEL: func.func @gqa_v
// CHECK-NOT: ascend.broadcast_to
// CHECK: %[[U:.*]] = "ascend.unsqueeze"(%arg1)
// CHECK-NOT: ascend.broadcast_to
// CHECK: %[[P:.*]] = "ascend.reshape"(%arg0) : (tensor<?x4x?x?xf32, #ascend.dims<["s0", "4", "s1", "s1"]>>) -> tensor<?x2x2x?x?xf32, #ascend.dims<["s0", "2", "2", "s1", "s1"]>>
// CHECK: %[[M:.*]] = "ascend.matmul"(%[[P]], %[[U]]) {transpose_a = false, transpose_b = false} : {{.*}} -> tensor<?x2x2x?x8xf32, #ascend.dims<["s0", "2", "2", "s1", "8"]>>
// CHECK: %[[R:.*]] = "ascend.reshape"(%[[M]]) {{.*}} -> tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>>
// CHECK-NOT: ascend.broadcast_to
// CHECK: return %[[R]]
func.func @gqa_v(%p: tensor<?x4x?x?xf32, #ascend.dims<["s0", "4", "s1", "s1"]>>, %v: tensor<?x2x?x8xf32, #ascend.dims<["s0", "2", "s1", "8"]>>) -> tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>> {
  %u = "ascend.unsqueeze"(%v) {axes = [2]} : (tensor<?x2x?x8xf32, #ascend.dims<["s0", "2", "s1", "8"]>>) -> tensor<?x2x1x?x8xf32, #ascend.dims<["s0", "2", "1", "s1", "8"]>>
  %e = "ascend.broadcast_to"(%u) : (tensor<?x2x1x?x8xf32, #ascend.dims<["s0", "2", "1", "s1", "8"]>>) -> tensor<?x2x2x?x8xf32, #ascend.dims<["s0", "2", "2", "s1", "8"]>>
  %r = "ascend.reshape"(%e) : (tensor<?x2x2x?x8xf32, #ascend.dims<["s0", "2", "2", "s1", "8"]>>) -> tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>>
  %o = "ascend.matmul"(%p, %r) {transpose_a = false, transpose_b = false} : (tensor<?x4x?x?xf32, #ascend.dims<["s0", "4", "s1", "s1"]>>, tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>>) -> tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>>
  return %o : tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>>
}

// GQA's K: repeated, then K^T; both fold (flag, then batch broadcast). A second score
// product reads a repeat that also leaves the function: that broadcast stays.
// CHECK-LABEL: func.func @gqa_k
// CHECK: %[[U:.*]] = "ascend.unsqueeze"(%arg1)
// CHECK: %[[E:.*]] = "ascend.broadcast_to"(%[[U]])
// CHECK: %[[R:.*]] = "ascend.reshape"(%[[E]])
// CHECK-NOT: ascend.transpose
// CHECK: %[[Q:.*]] = "ascend.reshape"(%arg0) {{.*}} -> tensor<?x2x2x?x8xf32, #ascend.dims<["s0", "2", "2", "s1", "8"]>>
// CHECK: %[[M:.*]] = "ascend.matmul"(%[[Q]], %[[U]]) {transpose_a = false, transpose_b = true} : {{.*}} -> tensor<?x2x2x?x?xf32, #ascend.dims<["s0", "2", "2", "s1", "s1"]>>
// CHECK: %[[S:.*]] = "ascend.reshape"(%[[M]])
// CHECK: %[[Q2:.*]] = "ascend.reshape"(%arg0)
// CHECK: %[[M2:.*]] = "ascend.matmul"(%[[Q2]], %[[U]]) {transpose_a = false, transpose_b = true}
// CHECK: %[[S2:.*]] = "ascend.reshape"(%[[M2]])
// CHECK: %[[SUM:.*]] = "ascend.add"(%[[S]], %[[S2]])
// CHECK: return %[[SUM]], %[[R]]
func.func @gqa_k(%q: tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>>, %k: tensor<?x2x?x8xf32, #ascend.dims<["s0", "2", "s1", "8"]>>) -> (tensor<?x4x?x?xf32, #ascend.dims<["s0", "4", "s1", "s1"]>>, tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>>) {
  %u = "ascend.unsqueeze"(%k) {axes = [2]} : (tensor<?x2x?x8xf32, #ascend.dims<["s0", "2", "s1", "8"]>>) -> tensor<?x2x1x?x8xf32, #ascend.dims<["s0", "2", "1", "s1", "8"]>>
  %e = "ascend.broadcast_to"(%u) : (tensor<?x2x1x?x8xf32, #ascend.dims<["s0", "2", "1", "s1", "8"]>>) -> tensor<?x2x2x?x8xf32, #ascend.dims<["s0", "2", "2", "s1", "8"]>>
  %r = "ascend.reshape"(%e) : (tensor<?x2x2x?x8xf32, #ascend.dims<["s0", "2", "2", "s1", "8"]>>) -> tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>>
  %kt = "ascend.transpose"(%r) {perm = [0, 1, 3, 2]} : (tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>>) -> tensor<?x4x8x?xf32, #ascend.dims<["s0", "4", "8", "s1"]>>
  %s = "ascend.matmul"(%q, %kt) {transpose_a = false, transpose_b = false} : (tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>>, tensor<?x4x8x?xf32, #ascend.dims<["s0", "4", "8", "s1"]>>) -> tensor<?x4x?x?xf32, #ascend.dims<["s0", "4", "s1", "s1"]>>
  %s2 = "ascend.matmul"(%q, %r) {transpose_a = false, transpose_b = true} : (tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>>, tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>>) -> tensor<?x4x?x?xf32, #ascend.dims<["s0", "4", "s1", "s1"]>>
  %sum = "ascend.add"(%s, %s2) : (tensor<?x4x?x?xf32, #ascend.dims<["s0", "4", "s1", "s1"]>>, tensor<?x4x?x?xf32, #ascend.dims<["s0", "4", "s1", "s1"]>>) -> tensor<?x4x?x?xf32, #ascend.dims<["s0", "4", "s1", "s1"]>>
  return %sum, %r : tensor<?x4x?x?xf32, #ascend.dims<["s0", "4", "s1", "s1"]>>, tensor<?x4x?x8xf32, #ascend.dims<["s0", "4", "s1", "8"]>>
}

// Not folded: the broadcast changes an inner dim (a row repeat, not a head repeat), and
// the other operand broadcasts over the batch (its batch dims differ).
// CHECK-LABEL: func.func @not_head_repeat
// CHECK: "ascend.broadcast_to"
// CHECK: "ascend.matmul"(%arg0, %{{.*}}) {transpose_a = false, transpose_b = false} : (tensor<2x4x6x5xf32>, tensor<2x4x5x8xf32>)
// CHECK: "ascend.broadcast_to"
// CHECK: "ascend.matmul"(%arg2, %{{.*}}) {transpose_a = false, transpose_b = false} : (tensor<1x4x6x5xf32>, tensor<2x4x5x8xf32>)
func.func @not_head_repeat(%p: tensor<2x4x6x5xf32>, %row: tensor<2x4x1x8xf32>, %p1: tensor<1x4x6x5xf32>, %v: tensor<2x2x5x8xf32>) -> (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) {
  %e = "ascend.broadcast_to"(%row) : (tensor<2x4x1x8xf32>) -> tensor<2x4x5x8xf32>
  %r = "ascend.reshape"(%e) : (tensor<2x4x5x8xf32>) -> tensor<2x4x5x8xf32>
  %o = "ascend.matmul"(%p, %r) {transpose_a = false, transpose_b = false} : (tensor<2x4x6x5xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x6x8xf32>
  %u = "ascend.unsqueeze"(%v) {axes = [2]} : (tensor<2x2x5x8xf32>) -> tensor<2x2x1x5x8xf32>
  %e2 = "ascend.broadcast_to"(%u) : (tensor<2x2x1x5x8xf32>) -> tensor<2x2x2x5x8xf32>
  %r2 = "ascend.reshape"(%e2) : (tensor<2x2x2x5x8xf32>) -> tensor<2x4x5x8xf32>
  %o2 = "ascend.matmul"(%p1, %r2) {transpose_a = false, transpose_b = false} : (tensor<1x4x6x5xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x6x8xf32>
  return %o, %o2 : tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>
}
