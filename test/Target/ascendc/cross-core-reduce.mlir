// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule="ub-bytes=16384 cores=8" --auto-tiling=remarks=false -o %t.mlir
// RUN: FileCheck %s --check-prefix=CASES --input-file %t.mlir
// RUN: %autofuse-translate %t.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %s --entry col_sum --ub-bytes 16384 --cores 8 --inputs %S/Inputs/cross_core.x600.npy --expect %S/Inputs/cross_core.sum600.npy --inputs %S/Inputs/cross_core.x5.npy --expect %S/Inputs/cross_core.sum5.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry col_max --ub-bytes 16384 --cores 8 --inputs %S/Inputs/cross_core.x600.npy --expect %S/Inputs/cross_core.max600.npy --inputs %S/Inputs/cross_core.x5.npy --expect %S/Inputs/cross_core.max5.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry col_mean --ub-bytes 16384 --cores 8 --inputs %S/Inputs/cross_core.x600.npy --expect %S/Inputs/cross_core.mean600.npy --inputs %S/Inputs/cross_core.x5.npy --expect %S/Inputs/cross_core.mean5.npy | FileCheck %s --check-prefix=E2E
//
// Reductions over the outer axis of [s0, 16] (column sum, max, mean) have one row
// group: the split-reduction case runs on one core. Its cross-core twin (GE's RCore
// template, docs/schedule.md) shares the chunks of s0 among blocks; each writes its
// partial to the workspace, and after SyncAll one block combines them (max for max, a
// sum divided once for the mean). With 16 KiB of UB and 8 cores, 600 rows take the
// cross-core case on all 8 cores; 5 rows fit one tile of the all-load case. Expected
// values are numpy's (Inputs/cross_core_reduce_data.py), compared besides the
// interpreter, on the emulation and on the vendor path.

// CASES: "tiling.case"() {{.*}}kernel = @autofuse_reduce_0_Neg_ReduceSum, key = 1 {{.*}}reduce_split = true
// CASES: "tiling.case"() {{.*}}cross_core = true, kernel = @autofuse_reduce_0_Neg_ReduceSum, key = 2 {{.*}}reduce_split = true
// x - mean(x) over the outer axis takes two passes (its store varies along s0): no twin.
// CASES: "tiling.case"() {{.*}}kernel = @autofuse_reduce_6_Neg_ReduceMean_Sub, key = 1 {{.*}}passes = 2 : i64, reduce_split = true
// CASES-NOT: cross_core = true, kernel = @autofuse_reduce_6

// CHECK-LABEL: namespace af_autofuse_reduce_0_Neg_ReduceSum {
// CHECK: __aicore__ inline void Case2(GM_ADDR in0, GM_ADDR out0, GM_ADDR workspace, const TilingData& t) {
// CHECK: const int64_t parts = t.rcore_parts;
// CHECK: for (int64_t chunk = chunk0; chunk < chunk_end; ++chunk) {
// CHECK: if (chunk == chunk0) {
// CHECK: af::SyncVectorToStore();
// CHECK: af::StoreBox(ws,
// CHECK: SyncAll();
// CHECK: af::LoadBox(part_v, ws,
// CHECK: af::Combine<af::Red::Sum>(acc,
// CHECK: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
// CHECK-LABEL: namespace af_autofuse_reduce_2_Neg_ReduceMax {
// CHECK: af::Combine<af::Red::Max>(acc,
// CHECK-LABEL: namespace af_autofuse_reduce_4_Neg_ReduceMean {
// CHECK: af::Combine<af::Red::Sum>(acc,
// CHECK: // After the combine: values computed once per row group.
// CHECK: the mean divides the accumulated sum once.

// E2E-NOT: AF-SC001
// E2E: -- inputs [600, 16]
// E2E-NEXT: autofuse_reduce_{{[0-9]+}}_Neg_Reduce{{Sum|Max|Mean}}: blocks 8 z0t_size=
// E2E: max error {{.*}}: PASS
// E2E-NEXT: vendor path: 1 kernel(s) run, {{.*}}: PASS
// E2E-NEXT: vs expected outputs: {{.*}}: PASS
// E2E: -- inputs [5, 16]
// E2E-NEXT: autofuse_reduce_{{[0-9]+}}_Neg_Reduce{{Sum|Max|Mean}}: blocks {{[0-9]+}} z1t_size=
// E2E: max error {{.*}}: PASS
// E2E-NEXT: vendor path: 1 kernel(s) run, {{.*}}: PASS
// E2E-NEXT: vs expected outputs: {{.*}}: PASS
// E2E: == PASS

func.func @col_sum(%x: tensor<?x16xf32>) -> tensor<1x16xf32> {
  %n = "ascend.neg"(%x) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %s = "ascend.reduce_sum"(%n) {axes = [0], keep_dims = true} : (tensor<?x16xf32>) -> tensor<1x16xf32>
  return %s : tensor<1x16xf32>
}

func.func @col_max(%x: tensor<?x16xf32>) -> tensor<1x16xf32> {
  %n = "ascend.neg"(%x) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %s = "ascend.reduce_max"(%n) {axes = [0], keep_dims = true} : (tensor<?x16xf32>) -> tensor<1x16xf32>
  return %s : tensor<1x16xf32>
}

func.func @col_mean(%x: tensor<?x16xf32>) -> tensor<16xf32> {
  %n = "ascend.neg"(%x) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %s = "ascend.reduce_mean"(%n) {axes = [0], keep_dims = false} : (tensor<?x16xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

func.func @centered(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %n = "ascend.neg"(%x) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %m = "ascend.reduce_mean"(%n) {axes = [0], keep_dims = true} : (tensor<?x16xf32>) -> tensor<1x16xf32>
  %y = "ascend.sub"(%n, %m) : (tensor<?x16xf32>, tensor<1x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
