// RUN: %autofuse-opt %S/Inputs/int64_casts.mlir --infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir --fuse --sink-constants --schedule --auto-tiling=remarks=false -o %t.mlir
// RUN: %autofuse-translate %t.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %S/Inputs/int64_casts.mlir --entry narrow --symbols s=3 --symbols s=200 | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %S/Inputs/int64_casts.mlir --entry widen --symbols s=3 --symbols s=200 | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %S/Inputs/int64_casts.mlir --entry positions --symbols s=3 --symbols s=200 | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %S/Inputs/int64_casts.mlir --entry copy --symbols s=3 --symbols s=200 | FileCheck %s --check-prefix=E2E
//
// The vector unit has no 64-bit arithmetic, but 64-bit integers enter and leave kernels:
// an int64 load is narrowed by one Cast (vconv_s642s32, no round mode), an int32 or f32
// value is widened by one Cast only a store reads (f32 -> int64 truncates, as a cast to
// an integer does), and an int64 view is copied through. Each runs as a kernel (no
// AF-SC001, nothing left to the interpreter) on the emulation and the vendor path.

// CHECK-LABEL: namespace af_autofuse_pointwise_0_Cast_Add {
// CHECK: Cast(v{{[0-9]+}}, v{{[0-9]+}}, RoundMode::CAST_NONE,
// CHECK-LABEL: namespace af_autofuse_pointwise_{{[0-9]+}}_Mul_Cast {
// CHECK: Cast(v{{[0-9]+}}, v{{[0-9]+}}, RoundMode::CAST_NONE,
// CHECK-LABEL: namespace af_autofuse_pointwise_{{[0-9]+}}_Floor_Cast {
// CHECK: Cast(v{{[0-9]+}}, v{{[0-9]+}}, RoundMode::CAST_FLOOR,
// CHECK: Cast(v{{[0-9]+}}, v{{[0-9]+}}, RoundMode::CAST_TRUNC,

// E2E-NOT: AF-SC001
// E2E: model: {{[0-9]+}} kernels (0 left to the interpreter) | 0 boundary ops
// E2E: == PASS
