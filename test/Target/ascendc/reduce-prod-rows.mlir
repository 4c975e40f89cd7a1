// RUN: python3 %S/Inputs/reduce_prod_data.py %t.d
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir --fuse --sink-constants --schedule --auto-tiling=remarks=false -o %t.mlir
// RUN: %autofuse-translate %t.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %s --entry prod_f32 --inputs %t.d/a.npy --expect %t.d/a_prod.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry prod_sym --inputs %t.d/a.npy --expect %t.d/a_prod.npy --inputs %t.d/s.npy --expect %t.d/s_prod.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry prod_f16 --inputs %t.d/h.npy --expect %t.d/h_prod.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry prod_outer_inner --inputs %t.d/c.npy --expect %t.d/c_prod.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry prod_i32 --inputs %t.d/i.npy --expect %t.d/i_prod.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry prod_narrow --inputs %t.d/s.npy --expect %t.d/s_prod.npy | FileCheck %s --check-prefix=E2E
//
// A product (of negated inputs, so that the graph fuses into a kernel) over the innermost axis (Ascend C has no ReduceProd) runs as a kernel:
// af::ProdRow multiplies each row's upper half into its lower half (a copy in the
// work buffer, the input tile stays intact) until one 32 B block is left, whose
// elements multiply on the scalar unit. Rows of static and symbolic width, several
// rows per tile, f32, f16 and int32 (wrapping), a row narrower than a block, and a product over an
// outer axis as well (rows reduced first, then combined with Mul). Expected outputs
// are computed with Python floats (Inputs/reduce_prod_data.py) and compared besides
// the interpreter, on the emulation and on the vendor path.

// CHECK-LABEL: namespace af_autofuse_reduce_0_Neg_ReduceProd {
// CHECK: af::ReduceBox<af::Red::Prod, float>(
// CHECK-LABEL: namespace af_autofuse_reduce_2_Neg_ReduceProd {
// CHECK: af::ReduceBox<af::Red::Prod, float>(
// The f16 product multiplies in f32 (cast up before, down after).
// CHECK-LABEL: namespace af_autofuse_reduce_4_Neg_ReduceProd {
// CHECK: af::ReduceBox<af::Red::Prod, float>(
// CHECK-LABEL: namespace af_autofuse_reduce_6_Neg_ReduceProd {
// CHECK: af::ReduceBox<af::Red::Prod, float>(
// CHECK-LABEL: namespace af_autofuse_reduce_8_Neg_ReduceProd {
// CHECK: af::ReduceBox<af::Red::Prod, float>(
// CHECK-LABEL: namespace af_autofuse_reduce_10_Neg_ReduceProd {
// CHECK: af::ReduceBox<af::Red::Prod, int32_t>(

// E2E-NOT: AF-SC001
// E2E: max error 0.000e0: PASS
// E2E: vendor path: {{[0-9]+}} kernel(s) run, max error 0.000e0
// E2E: vs expected outputs: max error 0.000e0: PASS
// E2E: model: 1 kernels (0 left to the interpreter) | 0 boundary ops
// E2E: == PASS

func.func @prod_f32(%x: tensor<5x37xf32>) -> tensor<5x1xf32> {
  %n = "ascend.neg"(%x) : (tensor<5x37xf32>) -> tensor<5x37xf32>
  %y = "ascend.reduce_prod"(%n) {axes = [1], keep_dims = true} : (tensor<5x37xf32>) -> tensor<5x1xf32>
  return %y : tensor<5x1xf32>
}

func.func @prod_sym(%x: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %n = "ascend.neg"(%x) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = "ascend.reduce_prod"(%n) {axes = [1], keep_dims = true} : (tensor<?x?xf32>) -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}

func.func @prod_f16(%x: tensor<4x20xf16>) -> tensor<4x1xf16> {
  %n = "ascend.neg"(%x) : (tensor<4x20xf16>) -> tensor<4x20xf16>
  %y = "ascend.reduce_prod"(%n) {axes = [1], keep_dims = true} : (tensor<4x20xf16>) -> tensor<4x1xf16>
  return %y : tensor<4x1xf16>
}

func.func @prod_outer_inner(%x: tensor<3x4x9xf32>) -> tensor<1x4x1xf32> {
  %n = "ascend.neg"(%x) : (tensor<3x4x9xf32>) -> tensor<3x4x9xf32>
  %y = "ascend.reduce_prod"(%n) {axes = [0, 2], keep_dims = true} : (tensor<3x4x9xf32>) -> tensor<1x4x1xf32>
  return %y : tensor<1x4x1xf32>
}

func.func @prod_narrow(%x: tensor<2x7xf32>) -> tensor<2x1xf32> {
  %n = "ascend.neg"(%x) : (tensor<2x7xf32>) -> tensor<2x7xf32>
  %y = "ascend.reduce_prod"(%n) {axes = [1], keep_dims = true} : (tensor<2x7xf32>) -> tensor<2x1xf32>
  return %y : tensor<2x1xf32>
}

func.func @prod_i32(%x: tensor<3x20xi32>) -> tensor<3x1xi32> {
  %n = "ascend.neg"(%x) : (tensor<3x20xi32>) -> tensor<3x20xi32>
  %y = "ascend.reduce_prod"(%n) {axes = [1], keep_dims = true} : (tensor<3x20xi32>) -> tensor<3x1xi32>
  return %y : tensor<3x1xi32>
}
