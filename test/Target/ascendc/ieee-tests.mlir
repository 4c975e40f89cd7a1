// RUN: %autofuse-opt %S/Inputs/ieee_tests.mlir --decompose | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %S/Inputs/ieee_tests.mlir --inputs %S/Inputs/ieee_tests.x.npy --expect %S/Inputs/ieee_tests.isnan.npy,%S/Inputs/ieee_tests.isfinite.npy,%S/Inputs/ieee_tests.sign.npy | FileCheck %s --check-prefix=E2E
//
// isnan, isfinite and sign of floats have no AscIR instruction (they stayed in hint form,
// AF-SC001, and ran on the interpreter). --decompose writes them as IEEE comparisons the
// vector unit has: isnan(x) = x != x, isfinite(x) = (x - x) == 0, sign(x) = (x > 0) -
// (x < 0), NaN where x is NaN. The input holds NaN, +-inf, +-0, subnormals and +-3.4e38;
// the expected outputs are numpy's (Inputs/ieee_tests_data.py), compared NaN-exact.

// CHECK: %[[NAN:.*]] = "ascend.ne"(%arg0, %arg0)
// CHECK: %[[DIFF:.*]] = "ascend.sub"(%arg0, %arg0)
// CHECK: %[[FIN:.*]] = "ascend.eq"(%[[DIFF]],
// CHECK: "ascend.gt"(%arg0,
// CHECK: "ascend.lt"(%arg0,
// CHECK: %[[SGN:.*]] = "ascend.sub"(
// CHECK: %[[XNAN:.*]] = "ascend.ne"(%arg0, %arg0)
// CHECK: %[[SIGN:.*]] = "ascend.select"(%[[XNAN]], %arg0, %[[SGN]])
// CHECK: return %[[NAN]], %[[FIN]], %[[SIGN]]
// CHECK-NOT: ascend.isnan
// CHECK-NOT: ascend.isfinite
// CHECK-NOT: ascend.sign

// E2E-NOT: AF-SC001
// E2E: model: 1 kernels (0 left to the interpreter) | 0 boundary ops
// E2E: == PASS
