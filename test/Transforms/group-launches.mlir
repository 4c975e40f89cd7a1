// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling --group-launches 2>/dev/null | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling --group-launches -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling --group-launches=max-groups=2 --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: not %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling --group-launches=max-groups=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// A column sum of one tensor scales another of a different row count: the two kernels
// cannot share a loop nest (AF-NF005), so they become one launch of two loop groups; the
// second reads what the first wrote (a barrier), and the column sum, read by nobody
// else, lives in the launch's workspace.
// REMARK: remark: AF-ML001 one-launch: @autofuse_reduce_0_Exp_ReduceSum, @autofuse_pointwise_2_Mul_Tanh run as one launch @autofuse_launch_0 of 2 loop groups with 1 cross-core barrier(s) and 1 value(s) in its workspace: saves 1 launch(es) (5550 cycles) for 1850 cycles of barriers
// CHECK-LABEL: func.func @column_scale(
// CHECK-NEXT: %[[L:.*]] = call @autofuse_launch_0(%arg0, %arg1) : (tensor<?x64xf32, #ascend.dims<["s0", "64"]>>, tensor<?x64xf32, #ascend.dims<["s1", "64"]>>) -> tensor<?x64xf32, #ascend.dims<["s1", "64"]>>
// CHECK-NEXT: return %[[L]]
// CHECK-LABEL: func.func @autofuse_launch_0(
// CHECK-SAME: attributes {ascir.launch = [@autofuse_reduce_0_Exp_ReduceSum, @autofuse_pointwise_2_Mul_Tanh], ascir.launch_waits = [false, true]}
// CHECK-NEXT: %[[S:.*]] = call @autofuse_reduce_0_Exp_ReduceSum(%arg0)
// CHECK-NEXT: %[[T:.*]] = call @autofuse_pointwise_2_Mul_Tanh(%arg1, %[[S]])
// CHECK-NEXT: return %[[T]]
func.func @column_scale(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %e = "ascend.exp"(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %s = "ascend.reduce_sum"(%e) {axes = [0], keep_dims = true} : (tensor<?x64xf32>) -> tensor<1x64xf32>
  %m = "ascend.mul"(%y, %s) : (tensor<?x64xf32>, tensor<1x64xf32>) -> tensor<?x64xf32>
  %t = "ascend.tanh"(%m) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %t : tensor<?x64xf32>
}

// -----

// Independent kernels (no shared buffer, AF-NF001): one launch, no barrier, both
// results are the launch's.
// REMARK: remark: AF-ML001 one-launch: @autofuse_pointwise_0_Exp_Abs, @autofuse_pointwise_2_Tanh_Neg run as one launch @autofuse_launch_0 of 2 loop groups with 0 cross-core barrier(s) and 0 value(s) in its workspace
// CHECK-LABEL: func.func @independent(
// CHECK-NEXT: %[[L:.*]]:2 = call @autofuse_launch_0(%arg0, %arg1)
// CHECK-NEXT: return %[[L]]#0, %[[L]]#1
// CHECK-LABEL: func.func @autofuse_launch_0(
// CHECK-SAME: ascir.launch_waits = [false, false]
func.func @independent(%x: tensor<?x64xf32>, %y: tensor<?x32xf32>) -> (tensor<?x64xf32>, tensor<?x32xf32>) {
  %a = "ascend.exp"(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %b = "ascend.abs"(%a) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %c = "ascend.tanh"(%y) : (tensor<?x32xf32>) -> tensor<?x32xf32>
  %d = "ascend.neg"(%c) : (tensor<?x32xf32>) -> tensor<?x32xf32>
  return %b, %d : tensor<?x64xf32>, tensor<?x32xf32>
}

// -----

// A boundary op (a matmul, a library kernel) between two kernels reads the first one's
// result: its GM write ends the run (AF-ML003) and both kernels stay launches of their own.
// REMARK: remark: AF-ML003 gm-boundary: @autofuse_pointwise_2_Tanh_Neg does not join the launch of @autofuse_pointwise_0_Exp_Abs: 'ascend.matmul' between them reads the launch's results through GM
// CHECK-LABEL: func.func @boundary(
// CHECK-NEXT: call @autofuse_pointwise_0_Exp_Abs(
// CHECK-NEXT: "ascend.matmul"
// CHECK-NEXT: call @autofuse_pointwise_2_Tanh_Neg(
// CHECK-NOT: ascir.launch
func.func @boundary(%x: tensor<?x64xf32>, %w: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %a = "ascend.exp"(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %b = "ascend.abs"(%a) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %m = "ascend.matmul"(%b, %w) {transpose_a = false, transpose_b = false} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
  %c = "ascend.tanh"(%m) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %d = "ascend.neg"(%c) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %d : tensor<?x64xf32>
}

// -----

// Three unrelated kernels and a boundary op that reads none of their results: it stays
// before the launch. With max-groups=2 the third kernel starts a run of its own.
// CHECK-LABEL: func.func @three(
// CHECK-NEXT: "ascend.matmul"
// CHECK-NEXT: call @autofuse_launch_0(%arg0, %arg1, %0)
// CHECK-LABEL: func.func @autofuse_launch_0(
// CHECK-SAME: ascir.launch = [@autofuse_pointwise_0_Exp_Abs, @autofuse_pointwise_2_Tanh_Neg, @autofuse_pointwise_4_Sqrt_Exp], ascir.launch_waits = [false, false, false]
// Statistics per chunk (the last one under max-groups=2: one launch of two kernels).
// STATS: 'group-launches'
// STATS-NEXT: (1) launches
// STATS-NEXT: (2) grouped-kernels
// STATS-NEXT: (1) barriers
// STATS: 'group-launches'
// STATS-NEXT: (1) launches
// STATS-NEXT: (2) grouped-kernels
// STATS-NEXT: (0) barriers
// STATS: 'group-launches'
// STATS-NEXT: (0) launches
// STATS: 'group-launches'
// STATS-NEXT: (1) launches
// STATS-NEXT: (2) grouped-kernels
// STATS-NEXT: (0) barriers
func.func @three(%x: tensor<?x64xf32>, %y: tensor<?x32xf32>, %v: tensor<?x64xf32>, %w: tensor<64x64xf32>) -> (tensor<?x64xf32>, tensor<?x32xf32>, tensor<?x64xf32>) {
  %a = "ascend.exp"(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %b = "ascend.abs"(%a) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %m = "ascend.matmul"(%v, %w) {transpose_a = false, transpose_b = false} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
  %c = "ascend.tanh"(%y) : (tensor<?x32xf32>) -> tensor<?x32xf32>
  %d = "ascend.neg"(%c) : (tensor<?x32xf32>) -> tensor<?x32xf32>
  %e = "ascend.sqrt"(%m) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %f = "ascend.exp"(%e) : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %b, %d, %f : tensor<?x64xf32>, tensor<?x32xf32>, tensor<?x64xf32>
}

// BAD: error: group-launches: max-groups=1 leaves no launch to form (at least 2)
