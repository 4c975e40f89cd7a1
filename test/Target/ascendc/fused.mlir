// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false \
// RUN:   | %autofuse-translate --mlir-to-ascendc -o - | FileCheck %s
// Golden checks of fused kernels: a reduction whose result is broadcast back (softmax in
// one kernel) and a multi-output kernel (the residual sum and its row sums).

// CHECK-LABEL: // ===== autofuse_reduce_0_ReduceMax_Sub_Exp_ReduceSum_Div/autofuse_reduce_0_ReduceMax_Sub_Exp_ReduceSum_Div.cpp
// CHECK: // Kernel autofuse_reduce_0_ReduceMax_Sub_Exp_ReduceSum_Div: fused ops ReduceMax, Sub, Exp, ReduceSum, Div.
// CHECK: // Loop axes (normalized): z0 = s0, z1 = 1024; TilingGroup y = [z0], r = [z1].
// CHECK: // Case 0: UB split of z0 (tile z0t_size), looped [], in tile [z0, z1].
// CHECK: // %2 = ascir.max  (source op at
// CHECK: af::ReduceBox<af::Red::Max, float>(v2, v1, work.Get<float>(), t.work_size, {{.*}}, x1, x2, kAlign);
// The broadcasts of the row max and sum are absorbed: sub and div read the row scalars
// through repeat strides.
// CHECK-NOT: af::BroadcastBox
// CHECK: af::BinaryBroadcastBox<af::Bin::Sub>(v4, v1, v2, false, x4, x2, kAlign, scratch.Get<float>(), t.scratch_size);
// CHECK: Exp(v5, v4, n5);
// CHECK: af::ReduceBox<af::Red::Sum, float>(v6, v5, work.Get<float>(), t.work_size, {{.*}}, x5, x6, kAlign);
// CHECK: af::BinaryBroadcastBox<af::Bin::Div>(v8, v5, v6, false, x8, x6, kAlign, scratch.Get<float>(), t.scratch_size);
// CHECK: af::StoreBox(gm_out0, s9, o_z0 * (1024), x9, gs, kAlign);
// Case 1 for rows longer than UB: three passes over the chunks of a row.
// CHECK: // Case 1: UB split of z1 (tile z1t_size), looped [z0], in tile [z1].
// CHECK: // Each block takes whole row groups; the reduced axis z1 is processed in 3 pass(es) over its chunks.
// CHECK: // Pass 0: chunks of z1.
// CHECK: af::Combine<af::Red::Max>(v2, part_v, count);
// CHECK: // Pass 1: chunks of z1.
// CHECK: LocalTensor<float> v2 = b0.Get<float>();
// CHECK: af::BinaryBroadcastBox<af::Bin::Sub>(v4, v1, v2, false, x4, x2, kAlign, {{.*}});
// CHECK: af::Combine<af::Red::Sum>(v6, part_v, count);
// CHECK: // Pass 2: chunks of z1.
// CHECK: af::BinaryBroadcastBox<af::Bin::Div>(v8, v5, v6, false, x8, x6, kAlign, {{.*}});
// CHECK: af::StoreBox(gm_out0, s9, o_z0 * (1024) + o_z1 * (1), x9, gs, kAlign);
func.func @softmax(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %y = "ascend.softmax"(%x) {axis = -1 : i64} : (tensor<?x1024xf32>) -> tensor<?x1024xf32>
  return %y : tensor<?x1024xf32>
}

// Two outputs: two VECOUT queues; the sum is read again by the cast, so it is copied
// into its output queue. Case 1 (rows longer than UB) accumulates the row sums over
// chunks and stores them once per row group, after the pass.
// CHECK-LABEL: // ===== autofuse_reduce_5_Add_Cast_ReduceSum/autofuse_reduce_5_Add_Cast_ReduceSum.cpp
// CHECK: __aicore__ inline void Case0(GM_ADDR in0, GM_ADDR in1, GM_ADDR out0, GM_ADDR out1, const TilingData& t) {
// CHECK: TQue<TPosition::VECOUT, 1> q2;
// CHECK: TQue<TPosition::VECOUT, 1> q3;
// CHECK: Add(v4, v1, v3, n4);
// CHECK: DataCopy(s5, v4, static_cast<uint32_t>(n5));
// CHECK: Cast(v7, v4, RoundMode::CAST_NONE, static_cast<uint32_t>(n7));
// CHECK: af::ReduceBox<af::Red::Sum, float>(v8, v7, work.Get<float>(), t.work_size, {{.*}}, x7, x8, kAlign);
// CHECK: DataCopy(s9, v8, static_cast<uint32_t>(n9));
// CHECK: af::StoreBox(gm_out0, s5,
// CHECK: af::StoreBox(gm_out1, s9,
// CHECK: __aicore__ inline void Case1(
// CHECK: for (int64_t group = first; group < last; ++group) {
// CHECK: // Pass 0: chunks of z1.
// CHECK-NEXT: for (int64_t chunk = 0; chunk < chunks; ++chunk) {
// CHECK: // %8 = ascir.sum  (source op at {{.*}}), accumulated over the chunks
// CHECK: af::ReduceBox<af::Red::Sum, float>(part_v, v7, work.Get<float>(), t.work_size, {{.*}}, x7, x8, kAlign);
// CHECK: if (chunk == 0) {
// CHECK-NEXT: DataCopy(v8, part_v, static_cast<uint32_t>(count));
// CHECK-NEXT: } else {
// CHECK-NEXT: af::Combine<af::Red::Sum>(v8, part_v, count);
// CHECK: af::StoreBox(gm_out0, s5, o_z0 * (64) + o_z1 * (1), x5, gs, kAlign);
// CHECK: // After pass 0: values computed once per row group.
// CHECK: af::StoreBox(gm_out1, s9, o_z0 * (1), x9, gs, kAlign);
// CHECK: extern "C" __global__ __aicore__ void autofuse_reduce_5_Add_Cast_ReduceSum(GM_ADDR in0, GM_ADDR in1, GM_ADDR out0, GM_ADDR out1, GM_ADDR workspace, GM_ADDR tiling) {
func.func @residual(%x: tensor<?x64xf16>, %r: tensor<?x64xf16>) -> (tensor<?x64xf16>, tensor<?x1xf32>) {
  %h = "ascend.add"(%x, %r) : (tensor<?x64xf16>, tensor<?x64xf16>) -> tensor<?x64xf16>
  %f = "ascend.cast"(%h) : (tensor<?x64xf16>) -> tensor<?x64xf32>
  %s = "ascend.reduce_sum"(%f) {axes = [1], keep_dims = true} : (tensor<?x64xf32>) -> tensor<?x1xf32>
  return %h, %s : tensor<?x64xf16>, tensor<?x1xf32>
}
