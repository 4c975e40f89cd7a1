// RUN: python3 %S/Inputs/small_int_data.py %t.d
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir --fuse --sink-constants --schedule --auto-tiling=remarks=false -o %t.mlir
// RUN: %autofuse-translate %t.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %s --entry i8_ops --inputs %t.d/i8_a.npy,%t.d/i8_b.npy --expect %t.d/i8_add.npy,%t.d/i8_sub.npy,%t.d/i8_mul.npy,%t.d/i8_div.npy,%t.d/i8_lt.npy,%t.d/i8_mod.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry u8_ops --inputs %t.d/u8_a.npy,%t.d/u8_b.npy --expect %t.d/u8_add.npy,%t.d/u8_sub.npy,%t.d/u8_mul.npy,%t.d/u8_max.npy,%t.d/u8_ge.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry i16_ops --inputs %t.d/i16_a.npy,%t.d/i16_b.npy --expect %t.d/i16_mul.npy,%t.d/i16_sub.npy,%t.d/i16_min.npy,%t.d/i16_eq.npy,%t.d/i16_floor_div.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry select64 --inputs %t.d/c.npy,%t.d/x64.npy,%t.d/y64.npy --expect %t.d/sel64.npy,%t.d/sel64_zero.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry select32 --inputs %t.d/c.npy,%t.d/y32.npy --expect %t.d/sel32_const.npy,%t.d/sel32_const_else.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --entry narrow --inputs %t.d/y32.npy --expect %t.d/y32_i8.npy,%t.d/y32_u8.npy | FileCheck %s --check-prefix=E2E
//
// Integer ops the vector unit lacks in their type run as kernels in a wider one:
// int8/uint8/int16 compares, max/min and selects in the float type that holds them
// exactly (f16, f32); add/sub/mul in int32, wrapped back to the width (x * 2^(32-w) in
// int32, exact to f32, * 2^-(32-w); unsigned types add 2^w to negatives); div as the
// truncated f32 quotient, wrapped (-128 / -1 = -128); floor_div and mod (the divisor's
// sign) from the floored f32 quotient; casts from int32 wrap the same way. Selects of int32/int64 data are
// bitwise on the int16 view. Expected outputs are computed with Python integers
// (Inputs/small_int_data.py) and compared besides the interpreter, on the emulation
// and on the vendor path.

// CHECK-LABEL: namespace af_autofuse_pointwise_{{[0-9]+}}_Add_Sub_Mul_Div_Lt_Mod {
// CHECK-DAG: Cast(v{{[0-9]+}}, v{{[0-9]+}}, RoundMode::CAST_NONE,
// CHECK-DAG: Muls(v{{[0-9]+}}, v{{[0-9]+}}, static_cast<int32_t>(16777216),
// CHECK-DAG: Cast(v{{[0-9]+}}, v{{[0-9]+}}, RoundMode::CAST_TRUNC,
// CHECK-LABEL: namespace af_autofuse_pointwise_{{[0-9]+}}_Add_Sub_Mul_Maximum_Ge {
// CHECK: Cast(v{{[0-9]+}}, v{{[0-9]+}}, RoundMode::CAST_FLOOR,
// CHECK-LABEL: namespace af_autofuse_pointwise_{{[0-9]+}}_Mul_Sub_Minimum_Eq_FloorDiv {
// CHECK: Muls(v{{[0-9]+}}, v{{[0-9]+}}, static_cast<int32_t>(65536),
// CHECK-LABEL: namespace af_autofuse_pointwise_{{[0-9]+}}_Select_Select {
// CHECK: Cast(sel_a, sel_c.ReinterpretCast<int32_t>(), RoundMode::CAST_NONE,
// CHECK: Not(sel_b.ReinterpretCast<int16_t>(), sel_a.ReinterpretCast<int16_t>(), sel_lanes);
// CHECK: Or(v{{[0-9]+}}.ReinterpretCast<int16_t>(), sel_a.ReinterpretCast<int16_t>(), sel_b.ReinterpretCast<int16_t>(), sel_lanes);
// CHECK-LABEL: namespace af_autofuse_pointwise_{{[0-9]+}}_Select_Select {
// CHECK: Duplicate(sel_c, static_cast<int32_t>(-7),

// E2E-NOT: AF-SC001
// E2E: max error 0.000e0: PASS
// E2E: vs expected outputs: max error 0.000e0: PASS
// E2E: model: 1 kernels (0 left to the interpreter) | 0 boundary ops
// E2E: == PASS

func.func @i8_ops(%a: tensor<3x50xi8>, %b: tensor<3x50xi8>) -> (tensor<3x50xi8>, tensor<3x50xi8>, tensor<3x50xi8>, tensor<3x50xi8>, tensor<3x50xi1>, tensor<3x50xi8>) {
  %add = "ascend.add"(%a, %b) : (tensor<3x50xi8>, tensor<3x50xi8>) -> tensor<3x50xi8>
  %sub = "ascend.sub"(%a, %b) : (tensor<3x50xi8>, tensor<3x50xi8>) -> tensor<3x50xi8>
  %mul = "ascend.mul"(%a, %b) : (tensor<3x50xi8>, tensor<3x50xi8>) -> tensor<3x50xi8>
  %div = "ascend.div"(%a, %b) : (tensor<3x50xi8>, tensor<3x50xi8>) -> tensor<3x50xi8>
  %lt = "ascend.lt"(%a, %b) : (tensor<3x50xi8>, tensor<3x50xi8>) -> tensor<3x50xi1>
  %mod = "ascend.mod"(%a, %b) : (tensor<3x50xi8>, tensor<3x50xi8>) -> tensor<3x50xi8>
  return %add, %sub, %mul, %div, %lt, %mod : tensor<3x50xi8>, tensor<3x50xi8>, tensor<3x50xi8>, tensor<3x50xi8>, tensor<3x50xi1>, tensor<3x50xi8>
}

func.func @u8_ops(%a: tensor<3x50xui8>, %b: tensor<3x50xui8>) -> (tensor<3x50xui8>, tensor<3x50xui8>, tensor<3x50xui8>, tensor<3x50xui8>, tensor<3x50xi1>) {
  %add = "ascend.add"(%a, %b) : (tensor<3x50xui8>, tensor<3x50xui8>) -> tensor<3x50xui8>
  %sub = "ascend.sub"(%a, %b) : (tensor<3x50xui8>, tensor<3x50xui8>) -> tensor<3x50xui8>
  %mul = "ascend.mul"(%a, %b) : (tensor<3x50xui8>, tensor<3x50xui8>) -> tensor<3x50xui8>
  %max = "ascend.maximum"(%a, %b) : (tensor<3x50xui8>, tensor<3x50xui8>) -> tensor<3x50xui8>
  %ge = "ascend.ge"(%a, %b) : (tensor<3x50xui8>, tensor<3x50xui8>) -> tensor<3x50xi1>
  return %add, %sub, %mul, %max, %ge : tensor<3x50xui8>, tensor<3x50xui8>, tensor<3x50xui8>, tensor<3x50xui8>, tensor<3x50xi1>
}

func.func @i16_ops(%a: tensor<3x50xi16>, %b: tensor<3x50xi16>) -> (tensor<3x50xi16>, tensor<3x50xi16>, tensor<3x50xi16>, tensor<3x50xi1>, tensor<3x50xi16>) {
  %mul = "ascend.mul"(%a, %b) : (tensor<3x50xi16>, tensor<3x50xi16>) -> tensor<3x50xi16>
  %sub = "ascend.sub"(%a, %b) : (tensor<3x50xi16>, tensor<3x50xi16>) -> tensor<3x50xi16>
  %min = "ascend.minimum"(%a, %b) : (tensor<3x50xi16>, tensor<3x50xi16>) -> tensor<3x50xi16>
  %eq = "ascend.eq"(%a, %b) : (tensor<3x50xi16>, tensor<3x50xi16>) -> tensor<3x50xi1>
  %fdiv = "ascend.floor_div"(%a, %b) : (tensor<3x50xi16>, tensor<3x50xi16>) -> tensor<3x50xi16>
  return %mul, %sub, %min, %eq, %fdiv : tensor<3x50xi16>, tensor<3x50xi16>, tensor<3x50xi16>, tensor<3x50xi1>, tensor<3x50xi16>
}

func.func @select64(%c: tensor<3x50xi1>, %x: tensor<3x50xi64>, %y: tensor<3x50xi64>) -> (tensor<3x50xi64>, tensor<3x50xi64>) {
  %s = "ascend.select"(%c, %x, %y) : (tensor<3x50xi1>, tensor<3x50xi64>, tensor<3x50xi64>) -> tensor<3x50xi64>
  %zero = "ascend.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %z = "ascend.select"(%c, %x, %zero) : (tensor<3x50xi1>, tensor<3x50xi64>, tensor<i64>) -> tensor<3x50xi64>
  return %s, %z : tensor<3x50xi64>, tensor<3x50xi64>
}

func.func @select32(%c: tensor<3x50xi1>, %y: tensor<3x50xi32>) -> (tensor<3x50xi32>, tensor<3x50xi32>) {
  %k = "ascend.constant"() {value = dense<-7> : tensor<i32>} : () -> tensor<i32>
  %s = "ascend.select"(%c, %k, %y) : (tensor<3x50xi1>, tensor<i32>, tensor<3x50xi32>) -> tensor<3x50xi32>
  %t = "ascend.select"(%c, %y, %k) : (tensor<3x50xi1>, tensor<3x50xi32>, tensor<i32>) -> tensor<3x50xi32>
  return %s, %t : tensor<3x50xi32>, tensor<3x50xi32>
}

func.func @narrow(%x: tensor<3x50xi32>) -> (tensor<3x50xi8>, tensor<3x50xui8>) {
  %a = "ascend.cast"(%x) : (tensor<3x50xi32>) -> tensor<3x50xi8>
  %b = "ascend.cast"(%x) : (tensor<3x50xi32>) -> tensor<3x50xui8>
  return %a, %b : tensor<3x50xi8>, tensor<3x50xui8>
}
