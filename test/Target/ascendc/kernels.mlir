// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --schedule --auto-tiling=remarks=false \
// RUN:   | %autofuse-translate --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --schedule --auto-tiling=remarks=false \
// RUN:   | %autofuse-translate --mlir-to-ascendc -o %t
// RUN: %sim_cxx -fsyntax-only -I%t/include -I%t/autofuse_pointwise_1_Add %t/autofuse_pointwise_1_Add/autofuse_pointwise_1_Add.cpp
// RUN: %sim_cxx -fsyntax-only -I%t/include -I%t/autofuse_pointwise_1_Add %t/autofuse_pointwise_1_Add/autofuse_pointwise_1_Add_tiling.cpp
// RUN: FileCheck %s --check-prefix=FILES --input-file %t/CMakeLists.txt
// Golden checks of the essential lines of emitted Ascend C, one kernel per kind.

// FILES: add_subdirectory(autofuse_pointwise_0_Exp)
// FILES: add_subdirectory(autofuse_pointwise_4_Select)

// Pointwise, dynamic: entry with inputs, outputs, workspace and tiling; AIV-only kernel
// type; tiling read from GM; TPipe with double-buffered VECIN/VECOUT queues; this
// block's tiles; DataCopyPad-based LoadBox/StoreBox around the vector API; queue protocol.
// CHECK-LABEL: // ===== autofuse_pointwise_0_Exp/autofuse_pointwise_0_Exp.cpp
// CHECK: #include "kernel_operator.h"
// CHECK: __aicore__ inline void Case0(GM_ADDR in0, GM_ADDR out0, const TilingData& t) {
// CHECK: constexpr int64_t kAlign = 8;
// CHECK: gm_in0.SetGlobalBuffer((__gm__ float*)in0, s0);
// CHECK: TPipe pipe;
// CHECK: TQue<TPosition::VECIN, 1> q0;
// CHECK-NEXT: pipe.InitBuffer(q0, 2, t.q0_size);
// CHECK: TQue<TPosition::VECOUT, 1> q1;
// CHECK: const int64_t first = static_cast<int64_t>(GetBlockIdx()) * t.z0Tb_size;
// CHECK: for (int64_t tile_id = first; tile_id < last; ++tile_id) {
// CHECK: const int64_t e_z0 = af_min(z0t_size, size_z0 - o_z0);
// CHECK: LocalTensor<float> r1 = q0.AllocTensor<float>();
// CHECK: // %1 = ascir.load  (source op at
// CHECK: af::LoadBox(r1, gm_in0, o_z0 * (1), x1, gs, kAlign);
// CHECK: q0.EnQue(r1);
// CHECK: LocalTensor<float> r1 = q0.DeQue<float>();
// CHECK: LocalTensor<float> s3 = q1.AllocTensor<float>();
// CHECK: Exp(v2, v1, n2);
// CHECK: q1.EnQue(s3);
// CHECK: q0.FreeTensor(r1);
// CHECK: af::StoreBox(gm_out0, s3, o_z0 * (1), x3, gs, kAlign);
// CHECK: q1.FreeTensor(s3);
// CHECK: extern "C" __global__ __aicore__ void autofuse_pointwise_0_Exp(GM_ADDR in0, GM_ADDR out0, GM_ADDR workspace, GM_ADDR tiling) {
// CHECK-NEXT: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
// CHECK-NEXT: AF_GET_TILING(af_autofuse_pointwise_0_Exp::TilingData, t, tiling);
// The tiling-data header and the host tiling function.
// CHECK-LABEL: // ===== autofuse_pointwise_0_Exp/autofuse_pointwise_0_Exp_tiling.h
// CHECK: struct TilingData {
// CHECK-NEXT: uint32_t block_dim;
// CHECK-NEXT: uint32_t tiling_key;
// CHECK-NEXT: int64_t s0;
// CHECK-NEXT: int64_t tiles_total;
// CHECK-NEXT: int64_t z0t_size;
// CHECK-NEXT: int64_t z0Tb_size;
// CHECK-NEXT: uint32_t q0_size;
// CHECK-NEXT: uint32_t q1_size;
// CHECK: extern "C" int autofuse_pointwise_0_Exp_tiling(const int64_t* symbols, uint32_t cores, uint32_t ub_bytes,
// CHECK-LABEL: // ===== autofuse_pointwise_0_Exp/autofuse_pointwise_0_Exp_tiling.cpp
// CHECK: return 16*af_align(af_align(z0t_size, 8), 64);
// The GM budget's base: the f32 input and output of s0 elements, each once.
// CHECK: int64_t MinBytes(const int64_t* sym) {
// CHECK: return 8*s0;
// CHECK: {0, 8, 0, Case0Split, Case0Outer, Case0Ub, Case0Work, Case0Once, 0, Case0Chunk},
// CHECK: const af_host::Solution s = af_host::Solve(af_autofuse_pointwise_0_Exp::kCases, 1, sym, chip, af_autofuse_pointwise_0_Exp::MinBytes(sym));
// CHECK: out->z0t_size = t;
// CHECK: out->z0Tb_size = s.per;
// CHECK-LABEL: // ===== autofuse_pointwise_0_Exp/CMakeLists.txt
// CHECK: include(${CMAKE_CURRENT_LIST_DIR}/../cmake/autofuse_ascendc.cmake)
func.func @unary(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "ascend.exp"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// Broadcast: two cases (rows in the tile, or chunks of one row) selected by tiling key;
// the add reads the row vector for every row through repeat strides (the broadcast is
// absorbed: no VECCALC buffer, no copy); GM strides 0 on broadcast axes.
// CHECK-LABEL: // ===== autofuse_pointwise_1_Add/autofuse_pointwise_1_Add.cpp
// CHECK: // Case 0: UB split of z0 (tile z0t_size), looped [], in tile [z0, z1].
// CHECK-NOT: TBuf<TPosition::VECCALC> b0;
// CHECK: const int64_t gs[2] = {0, 1};
// CHECK-NEXT: af::LoadBox(r3, gm_in1, 0, x3, gs, kAlign);
// CHECK-NOT: af::BroadcastBox
// CHECK: af::BinaryBroadcastBox<af::Bin::Add>(v5, v1, v3, false, x5, x3, kAlign, {{.*}});
// CHECK: // Case 1: UB split of z1 (tile z1t_size), looped [z0], in tile [z1].
// CHECK: const int64_t o_z0 = rest % size_z0;
// CHECK: af::LoadBox(r1, gm_in0, o_z0 * (100) + o_z1 * (1), x1, gs, kAlign);
// CHECK: __aicore__ inline void Run(GM_ADDR in0, GM_ADDR in1, GM_ADDR out0, const TilingData& t) {
// CHECK-NEXT: if (t.tiling_key == 0) {
// CHECK-NEXT: af_autofuse_pointwise_1_Add::Case0(in0, in1, out0, t);
// CHECK-NEXT: } else if (t.tiling_key == 1) {
// CHECK-NEXT: af_autofuse_pointwise_1_Add::Case1(in0, in1, out0, t);
// CHECK: AF_GET_TILING(af_autofuse_pointwise_1_Add::TilingData, t, tiling);
// CHECK-NEXT: (void)workspace;
// CHECK-NEXT: af_autofuse_pointwise_1_Add::Run(in0, in1, out0, t);
func.func @bias(%x: tensor<?x100xf32>, %b: tensor<100xf32>) -> tensor<?x100xf32> {
  %0 = "ascend.add"(%x, %b) : (tensor<?x100xf32>, tensor<100xf32>) -> tensor<?x100xf32>
  return %0 : tensor<?x100xf32>
}

// Reduction of f16 rows, accumulated in f32: Cast up (CAST_NONE), ReduceSum per row
// with a work buffer, Cast down (round to nearest even).
// CHECK-LABEL: // ===== autofuse_reduce_2_ReduceSum/autofuse_reduce_2_ReduceSum.cpp
// CHECK: constexpr int64_t kAlign = 16;
// CHECK: TBuf<TPosition::VECCALC> work;
// CHECK: Cast(v2, v1, RoundMode::CAST_NONE, static_cast<uint32_t>(n2));
// CHECK: af::ReduceBox<af::Red::Sum, float>(v3, v2, work.Get<float>(), t.work_size, {{.*}}, x2, x3, kAlign);
// CHECK: Cast(v4, v3, RoundMode::CAST_RINT, static_cast<uint32_t>(n4));
// CHECK: const int64_t gs[2] = {1, 0};
// CHECK-NEXT: af::StoreBox(gm_out0, s5, o_z0 * (1), x5, gs, kAlign);
func.func @row_sum(%x: tensor<?x77xf16>) -> tensor<?xf16> {
  %0 = "ascend.reduce_sum"(%x) {axes = [1], keep_dims = false} : (tensor<?x77xf16>) -> tensor<?xf16>
  return %0 : tensor<?xf16>
}

// Compare and select on static shapes: the tiling is baked in (kStaticTiling: two tiles
// of 32 and 5 elements on two blocks); Compare
// writes a bit mask over a 256-byte multiple, Select turns it into half 0/1, stored as
// bytes; the select kernel reads bytes, casts them to half and selects tensor-tensor.
// CHECK-LABEL: // ===== autofuse_pointwise_3_Gt/autofuse_pointwise_3_Gt.cpp
// CHECK: Compare(mk, v1, v3, CMPMODE::GT, static_cast<uint32_t>(af_align(n4, 256 / sizeof(float))));
// CHECK: Duplicate(v4, static_cast<half>(1.0f), n4);
// CHECK: Select(v4, mk, v4, static_cast<half>(0.0f), SELMODE::VSEL_TENSOR_SCALAR_MODE, static_cast<uint32_t>(n4));
// CHECK: Cast(s5, v4, RoundMode::CAST_NONE, static_cast<uint32_t>(n5));
// CHECK: const af_autofuse_pointwise_3_Gt::TilingData& t = af_autofuse_pointwise_3_Gt::kStaticTiling;
// CHECK-LABEL: // ===== autofuse_pointwise_3_Gt/autofuse_pointwise_3_Gt_tiling.h
// CHECK: inline constexpr TilingData kStaticTiling = {
// CHECK-NEXT: /* block_dim */ 2,
// CHECK-NEXT: /* tiling_key */ 0,
// CHECK-NEXT: /* tiles_total */ 2,
// CHECK-NEXT: /* z0t_size */ 32,
// CHECK-LABEL: // ===== autofuse_pointwise_4_Select/autofuse_pointwise_4_Select.cpp
// CHECK: LocalTensor<uint8_t> r1 = q0.AllocTensor<uint8_t>();
// CHECK: Cast(v1, r1, RoundMode::CAST_NONE, static_cast<uint32_t>(n1));
// CHECK: AF_COMPARES(mk, v1, static_cast<half>(0.0f), CMPMODE::NE, static_cast<uint32_t>(af_align(n6, 128)));
// CHECK: Select(v6, mk, v3, v5, SELMODE::VSEL_TENSOR_TENSOR_MODE, static_cast<uint32_t>(n6));
func.func @cmp(%x: tensor<37xf32>, %y: tensor<37xf32>) -> tensor<37xf32> {
  %c = "ascend.gt"(%x, %y) : (tensor<37xf32>, tensor<37xf32>) -> tensor<37xi1>
  %0 = "ascend.select"(%c, %x, %y) : (tensor<37xi1>, tensor<37xf32>, tensor<37xf32>) -> tensor<37xf32>
  return %0 : tensor<37xf32>
}
