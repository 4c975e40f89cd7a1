// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule=ub-bytes=12288 --auto-tiling=remarks=false \
// RUN:   | %autofuse-translate --mlir-to-ascendc -o - | FileCheck %s
//
// A bf16 mean over the outer axis, split-reduction case: the mean accumulates in f32
// and its cast back to bf16 is a final computed once per row group after the chunk
// pass. The accumulated sum must be scaled by 1/N before that cast reads it.

// CHECK-LABEL: __aicore__ inline void Case1(
// CHECK: // After pass 0: values computed once per row group.
// CHECK-NOT: ascir.cast
// CHECK: // %6: the mean divides the accumulated sum once.
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Muls(v6, v6, static_cast<float>(1.0f / static_cast<float>(size_z0))
// CHECK-NEXT: // %7 = ascir.cast
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK: Cast(v7, v6, RoundMode::CAST_RINT
// CHECK: // Pass 1: chunks of z0.
func.func @main(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %n = "ascend.neg"(%x) : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %m = "ascend.reduce_mean"(%n) {axes = [0], keep_dims = true} : (tensor<?x?xbf16>) -> tensor<1x?xbf16>
  %y = "ascend.sub"(%n, %m) : (tensor<?x?xbf16>, tensor<1x?xbf16>) -> tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}
