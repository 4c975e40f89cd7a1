// RUN: %autofuse-opt %S/Inputs/byte_casts.mlir --decompose | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %S/Inputs/byte_casts.mlir --inputs %S/Inputs/byte_casts.x.npy --expect %S/Inputs/byte_casts.u8.npy,%S/Inputs/byte_casts.i8.npy | FileCheck %s --check-prefix=E2E
//
// The vector unit converts no f32 to int8/uint8 (the kernel stayed in hint form,
// AF-SC001: QuantizeLinear's final cast ran on the interpreter). --decompose clamps to
// the byte's range in f32, truncates to int32 and narrows: the saturating cast exactly,
// NaN to 0. Inputs hold NaN, +-inf, +-0, fractions either side of every bound
// (Inputs/byte_casts_data.py, numpy).

// CHECK: %[[LO:.*]] = "ascend.constant"() {value = dense<0.000000e+00> : tensor<f32>}
// CHECK: %[[HI:.*]] = "ascend.constant"() {value = dense<2.550000e+02> : tensor<f32>}
// CHECK: %[[MAX:.*]] = "ascend.maximum"(%arg0, %[[LO]])
// CHECK: %[[MIN:.*]] = "ascend.minimum"(%[[MAX]], %[[HI]])
// CHECK: %[[I32:.*]] = "ascend.cast"(%[[MIN]]) : (tensor<4x40xf32>) -> tensor<4x40xi32>
// CHECK: "ascend.cast"(%[[I32]]) : (tensor<4x40xi32>) -> tensor<4x40xui8>
// CHECK: dense<-1.280000e+02>
// CHECK: dense<1.270000e+02>
// CHECK: "ascend.cast"(%{{.*}}) : (tensor<4x40xi32>) -> tensor<4x40xi8>

// E2E-NOT: AF-SC001
// E2E: model: 1 kernels (0 left to the interpreter) | 0 boundary ops
// E2E: == PASS
