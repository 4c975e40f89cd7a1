// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false \
// RUN:   | %autofuse-translate --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false \
// RUN:   | %autofuse-translate --mlir-to-ascendc -o %t
// RUN: %sim_cxx -fsyntax-only -I%t/include -I%t/autofuse_pointwise_0_Transpose_Add_Sigmoid %t/autofuse_pointwise_0_Transpose_Add_Sigmoid/autofuse_pointwise_0_Transpose_Add_Sigmoid.cpp
// RUN: %autofuse-run -v %s --symbols s0=3 --symbols s0=77 --symbols s0=1000 | FileCheck %s --check-prefix=EMU
// RUN: %autofuse-run -v %repo/bench/quality/graphs/transpose_add.mlir | FileCheck %s --check-prefix=BENCH
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule | FileCheck %s --check-prefix=REC
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule=ub-bytes=20000 | FileCheck %s --check-prefix=SMALL
// RUN: %autofuse-run -v %s --symbols s0=300 --ub-bytes=16000 --cores=3 | FileCheck %s --check-prefix=TIGHT
// Golden check of a kernel whose load transposes the innermost axis (x_group): the
// second-to-last axis is split by the tile size, the innermost axis in blocks of 64;
// each tile loads the source block [64 rows, t columns] (DataCopyPad with the row
// stride) and transposes it in UB with Transpose (NCHW2NHWC, n = 1, c = rows, w = cols)
// into the store's staging tensor (sized for the transposed block, both innermost
// extents padded), then the pointwise ops run on the transposed tile: the add over y's
// tensor (y dies there), the sigmoid back into the staging tensor.

// CHECK-LABEL: // ===== autofuse_pointwise_0_Transpose_Add_Sigmoid/autofuse_pointwise_0_Transpose_Add_Sigmoid.cpp
// CHECK: // Loop axes (normalized): z0 = 100, z1 = s0;
// CHECK: // Case 0: UB split of z0 (tile z0t_size), looped [], in tile [z0, z1]; z1 in blocks of 64 (loads transpose in UB).
// CHECK-NOT: // Case 1
// CHECK-NOT: TBuf<TPosition::VECCALC> b0;
// CHECK: TBuf<TPosition::VECCALC> scratch;
// CHECK: const int64_t o_z1 = (rest % af_ceildiv(size_z1, 64)) * 64;
// CHECK: const int64_t e_z1 = af_min(64, size_z1 - o_z1);
// CHECK: const int64_t o_z0 = chunk * z0t_size;
// CHECK: const int64_t e_z0 = af_min(z0t_size, size_z0 - o_z0);
// CHECK: const int64_t gs[2] = {1, 100};
// CHECK: af::LoadBoxSwapped(r1, gm_in0, o_z0 * (1) + o_z1 * (100), x1, gs, kAlign);
// CHECK: LocalTensor<half> v1 = [[S:s[0-9]+]];
// CHECK: af::TransposeBlock(v1, r1, scratch.Get<uint8_t>(), x1, kAlign);
// CHECK: LocalTensor<half> v4 = r3;
// CHECK-NEXT: Add(v4, v1, v3, n4);
// CHECK: LocalTensor<half> v5 = [[S]];
// CHECK-NEXT: Sigmoid(v5, v4,
// CHECK: af::StoreBox(gm_out0, s{{[0-9]+}}, o_z0 * (s0) + o_z1 * (1), x{{[0-9]+}}, gs, kAlign);
// The host tiling: tiles count the blocks of the innermost axis, the temporary is
// (64 + 2) * 512 bytes.
// CHECK-LABEL: // ===== autofuse_pointwise_0_Transpose_Add_Sigmoid/autofuse_pointwise_0_Transpose_Add_Sigmoid_tiling.cpp
// CHECK: int64_t Case0Outer(const int64_t* sym) {
// CHECK: return af_ceildiv(s0, 64);
// CHECK: 33792

// One kernel, on the emulation, for every shape.
// EMU: kernel autofuse_pointwise_0_Transpose_Add_Sigmoid: ops Transpose,Add,Sigmoid | 1 case(s) | dynamic tiling
// EMU-NOT: interpreted
// EMU: PASS
// EMU: PASS
// EMU: PASS
// EMU: == PASS

// The benchmark subgraph (x[1024, 4096] -> perm [1, 0] -> + y): one kernel, as XLA.
// BENCH: build: 1 kernel(s) {{compiled|from the cache}}
// BENCH: kernel autofuse_pointwise_0_Transpose_Add: ops Transpose,Add | 1 case(s) | static tiling
// BENCH-NOT: interpreted
// BENCH: GM bytes: measured 48.0 MiB | unfused 80.0 MiB | minimum 48.0 MiB
// BENCH: == PASS
// The records: both axes are UB-split, the innermost one in blocks of 64 (16 when the
// smallest tile would take more than half of a small UB); both merge into the block axis.
// REC: "tiling.split"() {axis = 0 : i64, inner = 3 : i64, {{.*}}kind = "tile", outer = 2 : i64, size_var = "z0t_size"}
// REC: "tiling.split"() {axis = 1 : i64, inner = 5 : i64, {{.*}}kind = "tile", outer = 4 : i64, size_var = "64"}
// REC: "tiling.split"() {axis = 6 : i64, {{.*}}kind = "block"
// REC: "tiling.case"() {block_split = [6], {{.*}}looped_axis = [], tile_align = 16 : i64, ub_split = [0, 1], vectorized_axis = [0, 1]}
// SMALL: "tiling.split"() {axis = 1 : i64, inner = 5 : i64, {{.*}}kind = "tile", outer = 4 : i64, size_var = "16"}
// TIGHT: kernel autofuse_pointwise_0_Transpose_Add_Sigmoid: ops Transpose,Add,Sigmoid | 1 case(s) | dynamic tiling
// TIGHT-NOT: interpreted
// TIGHT: == PASS
func.func @transpose_add_sigmoid(%x: tensor<?x100xf16, #ascend.dims<["s0", "100"]>>, %y: tensor<100x?xf16, #ascend.dims<["100", "s0"]>>) -> tensor<100x?xf16, #ascend.dims<["100", "s0"]>> {
  %0 = "ascend.transpose"(%x) {perm = [1, 0]} : (tensor<?x100xf16, #ascend.dims<["s0", "100"]>>) -> tensor<100x?xf16, #ascend.dims<["100", "s0"]>>
  %1 = "ascend.add"(%0, %y) : (tensor<100x?xf16, #ascend.dims<["100", "s0"]>>, tensor<100x?xf16, #ascend.dims<["100", "s0"]>>) -> tensor<100x?xf16, #ascend.dims<["100", "s0"]>>
  %2 = "ascend.sigmoid"(%1) : (tensor<100x?xf16, #ascend.dims<["100", "s0"]>>) -> tensor<100x?xf16, #ascend.dims<["100", "s0"]>>
  return %2 : tensor<100x?xf16, #ascend.dims<["100", "s0"]>>
}
