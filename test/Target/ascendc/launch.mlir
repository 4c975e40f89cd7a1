// RUN: %autofuse-opt %repo/examples/column_stats_scale.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false --group-launches=remarks=false \
// RUN:   | %autofuse-translate --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-opt %S/Inputs/independent_kernels.mlir --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false --group-launches=remarks=false \
// RUN:   | %autofuse-translate --mlir-to-ascendc -o - | FileCheck %s --check-prefix=FREE
// RUN: %autofuse-run -v %repo/examples/column_stats_scale.mlir --symbols s0=3,s1=5 --symbols s0=301,s1=37 | FileCheck %s --check-prefix=EMU
// RUN: %autofuse-run -v %repo/examples/column_stats_scale.mlir --symbols s0=3,s1=5 --no-group-launches | FileCheck %s --check-prefix=APART
// RUN: %vendor_env %autofuse-run -v %repo/examples/column_stats_scale.mlir --symbols s0=4096,s1=3 | FileCheck %s --check-prefix=RCORE
// RUN: %autofuse-run -v %S/Inputs/independent_kernels.mlir --symbols s0=1,s1=7 --symbols s0=200,s1=130 | FileCheck %s --check-prefix=FREE-EMU
// RUN: %vendor_env %autofuse-run -v %S/Inputs/shared_input_groups.mlir --symbols s0=37 --symbols s0=300 | FileCheck %s --check-prefix=SHARED

// A reduction whose result feeds work of another shape: one launch, the group kernels'
// cases in namespaces of their own, a SyncAll before the group that reads the column
// sums, which live in the workspace; the launch is a mix kernel (the hardware barrier).
// Only the launch is emitted: its groups are not kernels of their own.
// CHECK-NOT: ===== autofuse_reduce_0_Exp_ReduceSum/autofuse_reduce_0_Exp_ReduceSum.cpp
// CHECK-LABEL: // ===== autofuse_launch_0/autofuse_launch_0.cpp
// CHECK: // Launch autofuse_launch_0: 2 loop groups (autofuse_reduce_0_Exp_ReduceSum, autofuse_pointwise_2_Mul_Tanh) with 1 cross-core barrier(s).
// CHECK: namespace af_autofuse_launch_0_g0 {
// CHECK: using TilingData = af_autofuse_reduce_0_Exp_ReduceSum::TilingData;
// The reduction has a cross-core case (key 2): its Run and cases take the workspace.
// CHECK: __aicore__ inline void Run(GM_ADDR in0, GM_ADDR out0, GM_ADDR workspace, const TilingData& t) {
// CHECK-NEXT: if (t.tiling_key == 0) {
// CHECK-NEXT: af_autofuse_launch_0_g0::Case0(in0, out0, workspace, t);
// CHECK: namespace af_autofuse_launch_0_g1 {
// CHECK: using TilingData = af_autofuse_pointwise_2_Mul_Tanh::TilingData;
// CHECK: extern "C" __global__ __aicore__ void autofuse_launch_0(GM_ADDR in0, GM_ADDR in1, GM_ADDR out0, GM_ADDR workspace, GM_ADDR tiling) {
// CHECK-NEXT: // SyncAll (the hardware barrier) needs a mix kernel on A2/A3.
// CHECK-NEXT: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
// CHECK-NEXT: AF_GET_TILING(af_autofuse_launch_0::TilingData, t, tiling);
// CHECK-NEXT: GM_ADDR ws0 = workspace + t.ws0_offset;
// CHECK-NEXT: const int64_t block = GetBlockIdx();
// CHECK-NEXT: if (block < static_cast<int64_t>(t.g0.block_dim)) {  // @autofuse_reduce_0_Exp_ReduceSum
// CHECK-NEXT: af_autofuse_launch_0_g0::Run(in0, ws0, workspace + t.g0_ws_offset, t.g0);
// The blocks beyond the group's meet its cross-core barrier too.
// CHECK-NEXT: } else if (t.g0.tiling_key == 2) {
// CHECK-NEXT: SyncAll();
// CHECK-NEXT: }
// The emulations count each group's distinct GM reads per block apart.
// CHECK-NEXT: af::EndLoopGroup();
// CHECK-NEXT: // Group 1 reads what earlier groups wrote to GM: every block waits for all.
// CHECK-NEXT: SyncAll();
// CHECK-NEXT: if (block < static_cast<int64_t>(t.g1.block_dim)) {  // @autofuse_pointwise_2_Mul_Tanh
// CHECK-NEXT: af_autofuse_launch_0_g1::Run(in1, ws0, out0, t.g1);
// CHECK-LABEL: // ===== autofuse_launch_0/autofuse_launch_0_tiling.h
// CHECK: uint64_t ws0_offset;
// CHECK-NEXT: uint64_t g0_ws_offset;
// CHECK-NEXT: af_autofuse_reduce_0_Exp_ReduceSum::TilingData g0;
// CHECK-NEXT: af_autofuse_pointwise_2_Mul_Tanh::TilingData g1;
// The host function: each group's own tiling, the most blocks, the workspace layout.
// CHECK-LABEL: // ===== autofuse_launch_0/autofuse_launch_0_tiling.cpp
// CHECK: const int64_t group_sym[] = {s0};
// CHECK-NEXT: if (autofuse_reduce_0_Exp_ReduceSum_tiling(group_sym, cores, ub_bytes, &out->g0) != 0) return 1;
// CHECK: if (out->g0.block_dim > out->block_dim) out->block_dim = out->g0.block_dim;
// CHECK: const int64_t group_sym[] = {s1};
// CHECK: out->ws0_offset = workspace;
// CHECK-NEXT: workspace += (static_cast<uint64_t>(1024) + 31) / 32 * 32;
// CHECK-NEXT: out->g0_ws_offset = workspace;
// CHECK-NEXT: workspace += (static_cast<uint64_t>(out->g0.workspace_bytes) + 31) / 32 * 32;
// CHECK: out->workspace_bytes = workspace;
// CHECK: autofuse_add_kernel(autofuse_launch_0
// CHECK: TILING ${CMAKE_CURRENT_LIST_DIR}/autofuse_launch_0_tiling.cpp ${CMAKE_CURRENT_LIST_DIR}/autofuse_reduce_0_Exp_ReduceSum_tiling.cpp ${CMAKE_CURRENT_LIST_DIR}/autofuse_pointwise_2_Mul_Tanh_tiling.cpp

// Independent groups: no barrier, an AIV-only kernel, no workspace.
// FREE-LABEL: // ===== autofuse_launch_0/autofuse_launch_0.cpp
// FREE: with 0 cross-core barrier(s).
// FREE: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
// FREE-NOT: SyncAll
// FREE: (void)workspace;
// FREE: af_autofuse_launch_0_g0::Run(in0, out0, t.g0);
// FREE: af_autofuse_launch_0_g1::Run(in1, out1, t.g1);
// FREE-LABEL: // ===== autofuse_launch_0/autofuse_launch_0_tiling.cpp
// FREE-NOT: workspace = 32
// FREE: out->workspace_bytes = workspace;

// On the emulation: one launch per run, equal to the interpreter.
// EMU: launch autofuse_launch_0: 2 loop groups (autofuse_reduce_0_Exp_ReduceSum, autofuse_pointwise_2_Mul_Tanh) | 1 cross-core barrier(s) | 1 workspace value(s)
// EMU: -- inputs [3, 256] [5, 256]
// EMU-NEXT: autofuse_launch_0: blocks
// EMU-NEXT: pipes: S
// EMU-NEXT: GM bytes
// EMU-NEXT: PASS
// EMU: -- inputs [301, 256] [37, 256]
// EMU-NEXT: autofuse_launch_0: blocks
// EMU-NEXT: pipes: S
// EMU-NEXT: GM bytes
// EMU-NEXT: PASS
// EMU: model: 2 kernels in 1 launch(es) (0 left to the interpreter)
// EMU: == PASS
// 4096 rows: the column sums take the cross-core case inside the launch (partials in
// the group's own workspace region, its SyncAll met by every block of the launch).
// RCORE: -- inputs [4096, 256] [3, 256]
// RCORE-NEXT: autofuse_launch_0: blocks {{[0-9]+}} g0.z0t_size={{[0-9]+}} g0.rcore_parts={{[0-9]+}},
// RCORE: max error {{.*}}: PASS
// RCORE: == PASS
// Without --group-launches the same graph is two launches.
// APART-NOT: launch autofuse_launch_0
// APART: -- inputs [3, 256] [5, 256]
// APART-NEXT: autofuse_reduce_0_Exp_ReduceSum: blocks
// APART-NEXT: pipes: S
// APART-NEXT: autofuse_pointwise_2_Mul_Tanh: blocks
// APART-NEXT: pipes: S
// APART: model: 2 kernels
// FREE-EMU: launch autofuse_launch_0: 2 loop groups {{.*}} | 0 cross-core barrier(s) | 0 workspace value(s)
// FREE-EMU: -- inputs [1, 64] [7, 33]
// FREE-EMU-NEXT: autofuse_launch_0: blocks
// FREE-EMU: PASS
// FREE-EMU: -- inputs [200, 64] [130, 33]
// FREE-EMU-NEXT: autofuse_launch_0: blocks
// FREE-EMU: == PASS

// Two groups of one launch that both read x (column sums of exp(x), row maxima of |x|):
// each group is a fused kernel of its own, so the emulations count the distinct bytes a
// block reads per group (af::EndLoopGroup); counted over the whole launch, a block's
// second group would seem to re-read what its first read (1.012x).
// SHARED: launch autofuse_launch_0: 2 loop groups (autofuse_reduce_0_Exp_ReduceSum, autofuse_reduce_2_Abs_ReduceMax) | 0 cross-core barrier(s)
// SHARED: max error {{.*}}: PASS
// SHARED: max error {{.*}}: PASS
// SHARED: model: 2 kernels in 1 launch(es) (0 left to the interpreter) | 0 boundary ops | {{.*}} | with per-core copies {{.*}} (1.000x)
// SHARED: == PASS
