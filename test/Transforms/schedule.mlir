// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --schedule | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --schedule="target=ascend950 cores=8" | FileCheck %s --check-prefix=CHIP
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule | FileCheck %s --check-prefix=FUSED
// RUN: not %autofuse-opt %s --lower-to-ascir --schedule=target=ascend310 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADCHIP

// BADCHIP: error: unknown target 'ascend310' (known: ascend910b, ascend910_93, ascend950)

// Pointwise: contiguous axes merge into one (z0z1z2); one case splits it for UB with
// 8-element (32-byte) aligned tiles; two VECIN queues and one VECOUT queue, double
// buffered; the add writes straight into the store's queue (no VECCALC slot).
// CHECK-LABEL: func.func @autofuse_pointwise_0_Add
// CHECK-SAME: #ascir.axis<3 : i64, "z0z1z2", "2048", "merged", [0, 1, 2]>
// CHECK-SAME: #ascir.axis<4 : i64, "z0z1z2T", "ceil(2048/z0z1z2t_size)", "tile_outer", [3]>
// CHECK-SAME: #ascir.axis<5 : i64, "z0z1z2t", "z0z1z2t_size", "tile_inner", [3]>
// CHECK-SAME: ascir.form = "impl"
// CHECK-SAME: ascir.target = "ascend910b", ascir.ub_bytes = 188160 : i64
// CHECK: "ascir.load"{{.*}}mem = "VECIN"{{.*}}que = 0 : i64
// CHECK: "ascir.load"{{.*}}mem = "VECIN"{{.*}}que = 1 : i64
// CHECK: "ascir.add"{{.*}}mem = "VECOUT"{{.*}}que = 2 : i64
// GE's TilingGroup of every node and of the kernel (over the hint axes) is recorded too.
// CHECK-SAME: tiling_group = "()(z0,z1,z2)()"
// CHECK: "tiling.group"() {hint_group = "()(z0,z1,z2)()", kernel = @autofuse_pointwise_0_Add, r = [], x = [], y = [3]}
// CHECK: "tiling.split"() {axis = 3 : i64, inner = 5 : i64, kernel = @autofuse_pointwise_0_Add, kind = "tile", outer = 4 : i64, size_var = "z0z1z2t_size"}
// CHECK: "tiling.split"() {axis = 4 : i64, inner = 7 : i64, kernel = @autofuse_pointwise_0_Add, kind = "block", outer = 6 : i64, size_var = "z0z1z2Tb_size"}
// CHECK: "tiling.case"() {block_split = [4], kernel = @autofuse_pointwise_0_Add, key = 0 : i64, looped_axis = [], tile_align = 8 : i64, ub_split = [3], vectorized_axis = [3]}
// CHECK: "tiling.buffer"() {bytes = "{{.*}}z0z1z2t_size{{.*}}", case = 0 : i64, count = 2 : i64, id = 0 : i64, kernel = @autofuse_pointwise_0_Add, name = "q0", position = "VECIN"}
// CHECK: name = "q2", position = "VECOUT"
// CHIP: ascir.cores = 8 : i64
// CHIP-SAME: ascir.target = "ascend950", ascir.ub_bytes = 253952 : i64
func.func @pointwise(%x: tensor<4x64x8xf32>, %y: tensor<4x64x8xf32>) -> tensor<4x64x8xf32> {
  %0 = "ascend.add"(%x, %y) : (tensor<4x64x8xf32>, tensor<4x64x8xf32>) -> tensor<4x64x8xf32>
  return %0 : tensor<4x64x8xf32>
}

// -----

// Broadcast of a row vector: the axes stay apart (the operand is broadcast along z0),
// one case per y axis (rows in the tile, or a chunk of a row with z0 looped); the add
// reads the row through repeat strides, so the broadcast is absorbed: no buffer, no
// VECCALC slot (only the queues and the hoisted row). Size-1 axes of the operand are
// dropped.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Add
// CHECK: "ascir.broadcast"(%{{[0-9]+}}) {sched_axis = [0, 1], tiling_group = "()(z0,z1)()", view
// CHECK: "tiling.group"() {hint_group = "{{.*}}", kernel = @autofuse_pointwise_0_Add, r = [], x = [], y = [0, 1]}
// CHECK: "tiling.case"() {{{.*}}key = 0 : i64, looped_axis = [], tile_align = 1 : i64, ub_split = [0], vectorized_axis = [0, 1]}
// CHECK: "tiling.case"() {{{.*}}key = 1 : i64, looped_axis = [0], tile_align = 8 : i64, ub_split = [1], vectorized_axis = [1]}
// CHECK: "tiling.buffer"() {{{.*}}case = 0 : i64, count = 2 : i64, id = 2 : i64{{.*}}name = "q2", position = "VECOUT"}
// CHECK-NEXT: "tiling.buffer"() {{{.*}}case = 0 : i64, count = 1 : i64, id = 3 : i64{{.*}}name = "hoist", position = "VECCALC"}
func.func @bias(%x: tensor<?x100xf32>, %b: tensor<1x100xf32>) -> tensor<?x100xf32> {
  %0 = "ascend.add"(%x, %b) : (tensor<?x100xf32>, tensor<1x100xf32>) -> tensor<?x100xf32>
  return %0 : tensor<?x100xf32>
}

// -----

// A last-axis reduction: z1 is in the r group. Case 0 keeps rows whole in the tile and
// splits z0; case 1 splits the reduction itself (chunks of a row, accumulated in one
// pass, z0 looped) for rows longer than UB, case 2 also across cores. A work buffer serves ReduceSum, a part
// buffer holds a chunk's partial sum; f16 input is cast to f32.
// CHECK-LABEL: func.func @autofuse_reduce_0_ReduceSum
// CHECK: "tiling.group"() {hint_group = "{{.*}}", kernel = @autofuse_reduce_0_ReduceSum, r = [1], x = [], y = [0]}
// CHECK: "tiling.case"() {{{.*}}key = 0 : i64, looped_axis = [], tile_align = 1 : i64, ub_split = [0], vectorized_axis = [0, 1]}
// CHECK: "tiling.case"() {{{.*}}key = 1 : i64, looped_axis = [0], passes = 1 : i64, reduce_split = true, tile_align = 16 : i64, ub_split = [1], vectorized_axis = [1]}
// Its cross-core twin (few rows: each row's chunks shared by several cores).
// CHECK: "tiling.case"() {{{.*}}cross_core = true, {{.*}}key = 2 : i64, looped_axis = [0], passes = 1 : i64, reduce_split = true, tile_align = 16 : i64, ub_split = [1], vectorized_axis = [1]}
// CHECK-NOT: "tiling.case"
// CHECK: name = "work", position = "VECCALC"
// CHECK: name = "part", position = "VECCALC"
func.func @row_sum(%x: tensor<?x77xf16>) -> tensor<?xf16> {
  %0 = "ascend.reduce_sum"(%x) {axes = [1], keep_dims = false} : (tensor<?x77xf16>) -> tensor<?xf16>
  return %0 : tensor<?xf16>
}

// -----

// A first-axis reduction (RA): the reduced axis z0 stays whole, z1 is split; looped
// axes are empty. The split-reduction case chunks z0 with z1 whole.
// CHECK-LABEL: func.func @autofuse_reduce_0_ReduceMax
// CHECK: "tiling.group"() {hint_group = "{{.*}}", kernel = @autofuse_reduce_0_ReduceMax, r = [0], x = [], y = [1]}
// CHECK: "tiling.case"() {{{.*}}key = 0 : i64, looped_axis = [], tile_align = 8 : i64, ub_split = [1], vectorized_axis = [0, 1]}
// CHECK: "tiling.case"() {{{.*}}key = 1 : i64, looped_axis = [], passes = 1 : i64, reduce_split = true, tile_align = 1 : i64, ub_split = [0], vectorized_axis = [0, 1]}
func.func @col_max(%x: tensor<?x?xf32>) -> tensor<1x?xf32> {
  %0 = "ascend.reduce_max"(%x) {axes = [0], keep_dims = true} : (tensor<?x?xf32>) -> tensor<1x?xf32>
  return %0 : tensor<1x?xf32>
}

// -----

// Compare and select: booleans are bytes in GM (u8 raw tensor), half 0/1 in UB; the
// kernel aligns rows for its narrowest type (32 elements for 1-byte booleans) and gets
// a mask buffer for Compare/Select.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Gt
// CHECK: "tiling.case"() {{{.*}}tile_align = 32 : i64
// CHECK: name = "mask", position = "VECCALC"
// CHECK-LABEL: func.func @autofuse_pointwise_1_Select
// CHECK: "ascir.load"{{.*}}buf = {{[0-9]+}} : i64{{.*}}mem = "VECIN"
// CHECK: name = "mask", position = "VECCALC"
func.func @cmp_select(%x: tensor<37xf32>, %y: tensor<37xf32>) -> tensor<37xf32> {
  %c = "ascend.gt"(%x, %y) : (tensor<37xf32>, tensor<37xf32>) -> tensor<37xi1>
  %0 = "ascend.select"(%c, %x, %y) : (tensor<37xi1>, tensor<37xf32>, tensor<37xf32>) -> tensor<37xf32>
  return %0 : tensor<37xf32>
}

// -----

// A fused softmax (one kernel): reduce, broadcast back, reduce again; the row axis stays
// in UB, slots are reused by lifetime; the sub and exp are computed over x's VECIN tensor
// (x dies at the sub); the broadcasts of the row max and sum are absorbed into the sub
// and div (no slot).
// For rows longer than UB, case 1 makes three passes over the chunks of a row (max,
// sum of exp, output), reloading x in each.
// FUSED-LABEL: func.func @autofuse_reduce_0_ReduceMax_Sub_Exp_ReduceSum_Div
// FUSED: "ascir.max"{{.*}}buf = 0 : i64, mem = "VECCALC"
// FUSED: "ascir.broadcast"(%{{[0-9]+}}) {sched_axis = [0, 1], tiling_group
// FUSED: "ascir.sub"{{.*}}mem = "VECIN", que = 0 : i64, que_member = 0 : i64
// FUSED: "ascir.exp"{{.*}}mem = "VECIN", que = 0 : i64, que_member = 0 : i64
// FUSED: "ascir.sum"{{.*}}buf = 1 : i64, mem = "VECCALC"
// FUSED: "ascir.div"{{.*}}mem = "VECOUT"
// FUSED: "tiling.group"() {hint_group = "{{.*}}", kernel = @autofuse_reduce_0_ReduceMax_Sub_Exp_ReduceSum_Div, r = [1], x = [], y = [0]}
// FUSED: "tiling.case"() {{{.*}}key = 0 : i64
// FUSED: "tiling.case"() {{{.*}}key = 1 : i64, looped_axis = [0], passes = 3 : i64, reduce_split = true
// FUSED-NOT: "tiling.case"
func.func @softmax(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %y = "ascend.softmax"(%x) {axis = -1 : i64} : (tensor<?x1024xf32>) -> tensor<?x1024xf32>
  return %y : tensor<?x1024xf32>
}
