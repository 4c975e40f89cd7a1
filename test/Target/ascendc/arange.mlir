// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false \
// RUN:   | %autofuse-translate --mlir-to-ascendc -o - > %t.cpp
// RUN: FileCheck %s --check-prefix=ROTARY --input-file %t.cpp
// RUN: FileCheck %s --check-prefix=HALF --input-file %t.cpp
// RUN: FileCheck %s --check-prefix=TRANSPOSED --input-file %t.cpp
// RUN: FileCheck %s --check-prefix=IDS --input-file %t.cpp
// RUN: %vendor_env %autofuse-run -v %s --entry rotary --symbols s=3,p=5 --symbols s=37,p=100 | FileCheck %s --check-prefix=EXEC
// RUN: %vendor_env %autofuse-run -v %s --entry float_steps --symbols s=3 --symbols s=300 | FileCheck %s --check-prefix=EXEC
// RUN: %vendor_env %autofuse-run -v %s --entry transposed --symbols s=3 --symbols s=37 | FileCheck %s --check-prefix=EXEC
// RUN: %vendor_env %autofuse-run -v %s --entry position_ids --symbols s=3 --symbols s=50 | FileCheck %s --check-prefix=EXEC
// Ranges computed in UB (ascir.arange -> af::ArangeBox: CreateVecIndex, Muls, then the
// rows' Adds, see arange-rows.mlir): the start may be a symbol, the step a float, the view a broadcast or a
// transpose; the tile origin's offset comes from the loop indices. Each function runs
// on the emulation (and on the vendor's API implementation when its headers are
// there) at two shapes, equal to the interpreter.
// EXEC: -- inputs
// EXEC: max error {{.*}}: PASS
// EXEC: -- inputs
// EXEC: max error {{.*}}: PASS
// EXEC: (0 left to the interpreter)
// EXEC: == PASS

// Integer range, start = the symbol p, step 2, cast to f32 (still a range) and broadcast
// along the frequencies: offset strides (1, 0).
// ROTARY-LABEL: // ===== autofuse_pointwise_0_Range_Mul_Cos/autofuse_pointwise_0_Range_Mul_Cos.cpp
// ROTARY: const int64_t as0[2] = {1, 0};
// ROTARY: af::ArangeBox<float, float>(v0, x0, as0, o_z0 * (1), static_cast<float>(af_sym_p), 2.0f, kAlign);
func.func @rotary(%past: tensor<?xf32, #ascend.dims<["p"]>>, %tokens: tensor<?xf32, #ascend.dims<["s"]>>, %freq: tensor<8xf32>) -> (tensor<?x8xf32>, tensor<?xf32>) {
  %pos = "ascend.range"() {delta = 2 : i64, start = "p"} : () -> tensor<?xi32, #ascend.dims<["s"]>>
  %col = "ascend.unsqueeze"(%pos) {axes = [1]} : (tensor<?xi32, #ascend.dims<["s"]>>) -> tensor<?x1xi32, #ascend.dims<["s", "1"]>>
  %f = "ascend.cast"(%col) : (tensor<?x1xi32, #ascend.dims<["s", "1"]>>) -> tensor<?x1xf32, #ascend.dims<["s", "1"]>>
  %angles = "ascend.mul"(%f, %freq) : (tensor<?x1xf32, #ascend.dims<["s", "1"]>>, tensor<8xf32>) -> tensor<?x8xf32>
  %c = "ascend.cos"(%angles) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %t = "ascend.relu"(%tokens) : (tensor<?xf32, #ascend.dims<["s"]>>) -> tensor<?xf32>
  return %c, %t : tensor<?x8xf32>, tensor<?xf32>
}

// A half range with float start and step.
// HALF-LABEL: // ===== autofuse_pointwise_3_Add/autofuse_pointwise_3_Add.cpp
// HALF: af::ArangeBox<half, float>(v2, x2, as2, o_z0 * (1), -1.5f, 0.25f, kAlign);
func.func @float_steps(%x: tensor<?xf16, #ascend.dims<["s"]>>) -> tensor<?xf16> {
  %r = "ascend.range"() {delta = 0.25 : f64, start = -1.5 : f64} : () -> tensor<?xf16, #ascend.dims<["s"]>>
  %y = "ascend.add"(%x, %r) : (tensor<?xf16, #ascend.dims<["s"]>>, tensor<?xf16, #ascend.dims<["s"]>>) -> tensor<?xf16>
  return %y : tensor<?xf16>
}

// A range reshaped to [s, 4] and transposed: the kernel computes the transposed values
// directly (offset strides (1, 4)), no Transpose in UB.
// TRANSPOSED-LABEL: // ===== autofuse_pointwise_4_Range_Transpose_Mul/autofuse_pointwise_4_Range_Transpose_Mul.cpp
// TRANSPOSED-NOT: TransposeBlock
// TRANSPOSED: const int64_t as0[2] = {1, 4};
// TRANSPOSED: af::ArangeBox<float, float>(v0, x0, as0, o_z0 * (1), 1.0f, 3.0f, kAlign);
func.func @transposed(%x: tensor<4x?xf32, #ascend.dims<["4", "s"]>>) -> tensor<4x?xf32> {
  %r = "ascend.range"() {delta = 3 : i64, start = 1 : i64} : () -> tensor<?xi32, #ascend.dims<["4*s"]>>
  %m = "ascend.reshape"(%r) : (tensor<?xi32, #ascend.dims<["4*s"]>>) -> tensor<?x4xi32, #ascend.dims<["s", "4"]>>
  %f = "ascend.cast"(%m) : (tensor<?x4xi32, #ascend.dims<["s", "4"]>>) -> tensor<?x4xf32, #ascend.dims<["s", "4"]>>
  %t = "ascend.transpose"(%f) {perm = [1, 0]} : (tensor<?x4xf32, #ascend.dims<["s", "4"]>>) -> tensor<4x?xf32, #ascend.dims<["4", "s"]>>
  %y = "ascend.mul"(%x, %t) : (tensor<4x?xf32, #ascend.dims<["4", "s"]>>, tensor<4x?xf32, #ascend.dims<["4", "s"]>>) -> tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}

// Position ids of an embedding gather: the gather's kernel computes them in UB and picks
// the rows they name (the ids never exist in GM).
// IDS-LABEL: // ===== autofuse_pointwise_6_Range_Gather_Add/autofuse_pointwise_6_Range_Gather_Add.cpp
// IDS: af::ArangeBox<int32_t, int64_t>(v1, x1, as1, o_z0 * (1), static_cast<int64_t>(0), static_cast<int64_t>(1), kAlign);
// IDS: af::GatherRows(v2, gm_in0, v1, 0, x2, x1, gs2, 64, 16, kAlign);
func.func @position_ids(%table: tensor<64x16xf32>, %x: tensor<?x16xf32, #ascend.dims<["s", "16"]>>) -> tensor<?x16xf32> {
  %ids = "ascend.range"() {delta = 1 : i64, start = 0 : i64} : () -> tensor<?xi32, #ascend.dims<["s"]>>
  %rows = "ascend.gather"(%table, %ids) {axis = 0 : i64} : (tensor<64x16xf32>, tensor<?xi32, #ascend.dims<["s"]>>) -> tensor<?x16xf32, #ascend.dims<["s", "16"]>>
  %y = "ascend.add"(%x, %rows) : (tensor<?x16xf32, #ascend.dims<["s", "16"]>>, tensor<?x16xf32, #ascend.dims<["s", "16"]>>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
