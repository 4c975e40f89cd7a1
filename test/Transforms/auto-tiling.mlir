// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --schedule --auto-tiling --verify-diagnostics | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --decompose --lower-to-ascir --schedule=ub-bytes=4096 --auto-tiling=remarks=false -o - 2>/dev/null | FileCheck %s --check-prefix=SMALL
// Static shapes are solved at compile time (remark AF-AT001, solution on the
// tiling.function record); dynamic shapes get fields and a tiling function only.

// A tail that is not 32-byte aligned: 1003 floats; tiles are multiples of 8 elements
// and spread over cores (42 tiles of 24 elements, the last one 19).
// CHECK: "tiling.field"() {expr = "min(cores, tiles_total){{.*}}", kernel = @autofuse_pointwise_0_Exp, name = "block_dim", type = "uint32_t"}
// CHECK: "tiling.field"() {{{.*}}name = "tiling_key", type = "uint32_t"}
// CHECK: "tiling.field"() {expr = "case 0: ceil(1003/z0t_size)", kernel = @autofuse_pointwise_0_Exp, name = "tiles_total", type = "int64_t"}
// CHECK: "tiling.field"() {{{.*}}name = "z0t_size", type = "int64_t"}
// CHECK: "tiling.field"() {{{.*}}name = "z0Tb_size", type = "int64_t"}
// CHECK: "tiling.field"() {expr = "case 0: {{.*}}z0t_size{{.*}}", kernel = @autofuse_pointwise_0_Exp, name = "q0_size", type = "uint32_t"}
// CHECK: "tiling.function"() {block_dim = 42 : i64, cores = 48 : i64, feasible = true, kernel = @autofuse_pointwise_0_Exp, key = 0 : i64, static = true, symbols = [], tile = 24 : i64, ub_bytes = 188160 : i64, ub_used = 1024 : i64}
// SMALL: "tiling.function"() {block_dim = 42 : i64, cores = 48 : i64, feasible = true, kernel = @autofuse_pointwise_0_Exp, key = 0 : i64, static = true, symbols = [], tile = 24 : i64, ub_bytes = 4096 : i64, ub_used = 1024 : i64}
func.func @tail(%x: tensor<1003xf32>) -> tensor<1003xf32> {
  // expected-remark@+1 {{AF-AT001 @autofuse_pointwise_0_Exp: case 0 (z0t_size = 24), 42 tiles on block_dim 42, UB 1024/188160 bytes}}
  %0 = "ascend.exp"(%x) : (tensor<1003xf32>) -> tensor<1003xf32>
  return %0 : tensor<1003xf32>
}

// -----

// One element: a one-tile kernel on one block.
func.func @one(%x: tensor<1xf16>) -> tensor<1xf16> {
  // expected-remark@+1 {{AF-AT001 @autofuse_pointwise_0_Abs: case 0 (zst_size = 1), 1 tiles on block_dim 1}}
  %0 = "ascend.abs"(%x) : (tensor<1xf16>) -> tensor<1xf16>
  return %0 : tensor<1xf16>
}
// CHECK: "tiling.function"() {block_dim = 1 : i64{{.*}}kernel = @autofuse_pointwise_0_Abs, key = 0 : i64, static = true, symbols = [], tile = 1 : i64

// -----

// One row: the size-1 row axis is dropped, the reduced axis stays whole; one tile.
func.func @row(%x: tensor<1x1000xf32>) -> tensor<1x1xf32> {
  // expected-remark@+1 {{AF-AT001 @autofuse_reduce_0_ReduceSum: case 0 (one tile, no split), 1 tiles on block_dim 1, UB 9472/188160 bytes}}
  %0 = "ascend.reduce_sum"(%x) {axes = [1], keep_dims = true} : (tensor<1x1000xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
// With 4 KiB of UB the 1000-float row no longer fits: the reduction is split.
// SMALL: "tiling.function"() {block_dim = 1 : i64, cores = 48 : i64, feasible = true, kernel = @autofuse_reduce_0_ReduceSum, key = 1 : i64

// -----

// A reduction row longer than UB (10^6 floats): the split-reduction case accumulates
// chunks of a row. With two rows it would keep 46 of 48 cores idle, so its cross-core
// twin (case 2) is chosen: each row's chunks are shared by 24 blocks, whose partials
// (one padded f32 each, 32 bytes) meet in the workspace and are combined after SyncAll.
func.func @long(%x: tensor<2x1000000xf32>) -> tensor<2x1xf32> {
  // expected-remark@+1 {{AF-AT003 @autofuse_reduce_0_ReduceMax: reduction rows do not fit UB; case 2 splits the reduced axis z1 into chunks (z1t_size = 20840) over 1 pass(es) and across cores: 2 row group(s) of 24 blocks each (partials in a 1536-byte workspace, SyncAll, combine) on block_dim 48, UB 170752/188160 bytes}}
  %0 = "ascend.reduce_max"(%x) {axes = [1], keep_dims = true} : (tensor<2x1000000xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}
// CHECK: "tiling.case"() {{{.*}}cross_core = true, kernel = @autofuse_reduce_0_ReduceMax, key = 2 : i64, {{.*}}reduce_split = true
// CHECK: "tiling.field"() {expr = "cross-core cases: blocks sharing a row group{{.*}}", kernel = @autofuse_reduce_0_ReduceMax, name = "rcore_parts", type = "int64_t"}
// CHECK: "tiling.function"() {block_dim = 48 : i64, cores = 48 : i64, feasible = true, kernel = @autofuse_reduce_0_ReduceMax, key = 2 : i64, static = true, symbols = [], tile = 20840 : i64

// -----

// A large broadcast multiply: rows of 1024 floats; the solver fills UB (11 rows per
// tile, 180 KiB of 188160 bytes: the [1024] row is loaded once per block, outside the
// double-buffered queues, and the mul reads it through repeat strides, no broadcast
// buffer) and balances 373 tiles over 47 blocks of 8 tiles.
func.func @big(%x: tensor<4096x1024xf32>, %y: tensor<1024xf32>) -> tensor<4096x1024xf32> {
  // expected-remark@+1 {{AF-AT001 @autofuse_pointwise_0_Mul: case 0 (z0t_size = 11), 373 tiles on block_dim 47, UB 184384/188160 bytes}}
  %0 = "ascend.mul"(%x, %y) : (tensor<4096x1024xf32>, tensor<1024xf32>) -> tensor<4096x1024xf32>
  return %0 : tensor<4096x1024xf32>
}
// SMALL: "tiling.function"() {block_dim = 48 : i64{{.*}}kernel = @autofuse_pointwise_0_Mul, key = 1 : i64, static = true, symbols = [], tile = 176 : i64, ub_bytes = 4096 : i64

// -----

// Dynamic shapes: one tile-size field per case, solved by the host at run time.
func.func @dynamic(%x: tensor<?x?xf32>, %y: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %0 = "ascend.sub"(%x, %y) : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
// CHECK: "tiling.field"() {expr = "s0", kernel = @autofuse_pointwise_0_Sub, name = "s0", type = "int64_t"}
// CHECK: "tiling.field"() {{{.*}}name = "z0t_size", type = "int64_t"}
// CHECK: "tiling.field"() {{{.*}}name = "z1t_size", type = "int64_t"}
// CHECK: "tiling.function"() {cores = 48 : i64, kernel = @autofuse_pointwise_0_Sub, static = false, symbols = ["s0", "s1", "s2"], ub_bytes = 188160 : i64}
