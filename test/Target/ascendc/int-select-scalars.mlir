// RUN: python3 %S/Inputs/int_select_data.py %t.d
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir --fuse --sink-constants --schedule --auto-tiling=remarks=false -o %t.mlir
// RUN: %autofuse-translate %t.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --narrow-index-types | FileCheck %s --check-prefix=NARROW
// RUN: %vendor_env %autofuse-run -v %s --entry two32 --inputs %t.d/c.npy --expect %t.d/two32_ext.npy,%t.d/two32_m1.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry two64 --inputs %t.d/c.npy --expect %t.d/two64_m1.npy,%t.d/two64_5.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry shared32 --inputs %t.d/c.npy,%t.d/y32.npy --expect %t.d/shared_sel.npy,%t.d/shared_sub.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry sign64 --inputs %t.d/x64.npy --expect %t.d/sign64.npy | FileCheck %s --check-prefix=E2E
//
// Integer selects whose branches are scalars (issue #19: no kernel left to the
// interpreter). Both branches may be scalars, materialized one after the other in the
// select's scratch (int64: staged as int32 and widened); a scalar branch that another
// op reads too is a Duplicate tile of int32 the select reads like a loaded branch.
// narrow-index-types gives a narrowed constant that a 64-bit op reads an i64 copy
// (not a one-op cast kernel of i64). Expected outputs are computed with Python
// integers (Inputs/int_select_data.py) and compared besides the interpreter, on the
// emulation and on the vendor path.

// CHECK-LABEL: namespace af_autofuse_pointwise_{{[0-9]+}}_Select_Select {
// CHECK: Duplicate(sel_c, static_cast<int32_t>(2147483647),
// CHECK: And(sel_a.ReinterpretCast<int16_t>(), sel_c.ReinterpretCast<int16_t>(), sel_a.ReinterpretCast<int16_t>(), sel_lanes);
// CHECK: Duplicate(sel_c, static_cast<int32_t>(-2147483648),
// CHECK: And(sel_b.ReinterpretCast<int16_t>(), sel_c.ReinterpretCast<int16_t>(), sel_b.ReinterpretCast<int16_t>(), sel_lanes);
// CHECK-LABEL: namespace af_autofuse_pointwise_{{[0-9]+}}_Select_Select {
// CHECK: LocalTensor<int32_t> sel_d = sel_a[3 * sel_off].ReinterpretCast<int32_t>();
// CHECK: Duplicate(sel_d, static_cast<int32_t>(-1),
// CHECK: Cast(sel_c, sel_d, RoundMode::CAST_NONE,
// CHECK-LABEL: namespace af_autofuse_pointwise_{{[0-9]+}}_Select_Sub {
// CHECK: Duplicate(v{{[0-9]+}}, static_cast<int32_t>(9.0),
// CHECK-NOT: Duplicate(sel_c
// CHECK: Or(

// NARROW-LABEL: func.func @sign64
// NARROW: "ascend.constant"() {value = dense<0> : tensor<i32>}
// NARROW: "ascend.lt"
// NARROW-NOT: "ascend.cast"({{.*}}) : (tensor<i32>) -> tensor<i64>
// NARROW: %[[ZERO:.*]] = "ascend.constant"() {value = dense<0> : tensor<i64>}
// NARROW: "ascend.select"(%{{.*}}, %{{.*}}, %[[ZERO]])

// E2E-NOT: AF-SC001
// E2E: max error 0.000e0: PASS
// E2E: vs expected outputs: max error 0.000e0: PASS
// E2E: kernels (0 left to the interpreter) | 0 boundary ops
// E2E: == PASS

func.func @two32(%c: tensor<3x50xi1>) -> (tensor<3x50xi32>, tensor<3x50xi32>) {
  %hi = "ascend.constant"() {value = dense<2147483647> : tensor<i32>} : () -> tensor<i32>
  %lo = "ascend.constant"() {value = dense<-2147483648> : tensor<i32>} : () -> tensor<i32>
  %m1 = "ascend.constant"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %zero = "ascend.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %e = "ascend.select"(%c, %hi, %lo) : (tensor<3x50xi1>, tensor<i32>, tensor<i32>) -> tensor<3x50xi32>
  %s = "ascend.select"(%c, %m1, %zero) : (tensor<3x50xi1>, tensor<i32>, tensor<i32>) -> tensor<3x50xi32>
  return %e, %s : tensor<3x50xi32>, tensor<3x50xi32>
}

func.func @two64(%c: tensor<3x50xi1>) -> (tensor<3x50xi64>, tensor<3x50xi64>) {
  %m1 = "ascend.constant"() {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
  %zero = "ascend.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %five = "ascend.constant"() {value = dense<5> : tensor<i64>} : () -> tensor<i64>
  %lo = "ascend.constant"() {value = dense<-2147483648> : tensor<i64>} : () -> tensor<i64>
  %s = "ascend.select"(%c, %m1, %zero) : (tensor<3x50xi1>, tensor<i64>, tensor<i64>) -> tensor<3x50xi64>
  %t = "ascend.select"(%c, %five, %lo) : (tensor<3x50xi1>, tensor<i64>, tensor<i64>) -> tensor<3x50xi64>
  return %s, %t : tensor<3x50xi64>, tensor<3x50xi64>
}

func.func @shared32(%c: tensor<3x50xi1>, %y: tensor<3x50xi32>) -> (tensor<3x50xi32>, tensor<3x50xi32>) {
  %k = "ascend.constant"() {value = dense<9> : tensor<i32>} : () -> tensor<i32>
  %s = "ascend.select"(%c, %y, %k) : (tensor<3x50xi1>, tensor<3x50xi32>, tensor<i32>) -> tensor<3x50xi32>
  %d = "ascend.sub"(%k, %y) : (tensor<i32>, tensor<3x50xi32>) -> tensor<3x50xi32>
  return %s, %d : tensor<3x50xi32>, tensor<3x50xi32>
}

func.func @sign64(%x: tensor<3x50xi64>) -> tensor<3x50xi64> {
  %zero = "ascend.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %m1 = "ascend.constant"() {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
  %neg = "ascend.lt"(%x, %zero) : (tensor<3x50xi64>, tensor<i64>) -> tensor<3x50xi1>
  %s = "ascend.select"(%neg, %m1, %zero) : (tensor<3x50xi1>, tensor<i64>, tensor<i64>) -> tensor<3x50xi64>
  return %s : tensor<3x50xi64>
}
