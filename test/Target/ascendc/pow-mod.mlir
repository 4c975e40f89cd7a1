// RUN: %autofuse-opt %S/Inputs/pow_mod.mlir --decompose | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %S/Inputs/pow_mod.mlir --inputs %S/Inputs/pow_mod.base.npy,%S/Inputs/pow_mod.exponent.npy,%S/Inputs/pow_mod.dividend.npy,%S/Inputs/pow_mod.divisor.npy --expect %S/Inputs/pow_mod.pow.npy,%S/Inputs/pow_mod.pow16.npy,%S/Inputs/pow_mod.mod.npy,%S/Inputs/pow_mod.mod16.npy | FileCheck %s --check-prefix=E2E
//
// pow with a tensor exponent and mod of floats have no AscIR instruction (their kernels
// stayed in hint form, AF-SC001, and ran on the interpreter). --decompose writes them
// with exp, log, products, compares and selects (f16 in f32 between two casts). The
// inputs hold integral and fractional exponents of either sign, negative bases, 0^0,
// 1^y, exponents past the product path's bound, +-inf divisors and 0.3 mod 0.1 (whose
// quotient rounds up to 3: the product's rounding error must be put back); the expected
// outputs are numpy's (Inputs/pow_mod_data.py).

// CHECK-LABEL: func.func @pow_mod
// CHECK-NOT: ascend.pow
// CHECK-NOT: ascend.mod
// The product path: one select per exponent bit.
// CHECK-COUNT-5: "ascend.select"
// CHECK: "ascend.log"
// CHECK: "ascend.exp"
// CHECK: "ascend.floor"
// CHECK: return

// E2E-NOT: AF-SC001
// E2E: model: 5 kernels in 1 launch(es) (0 left to the interpreter) | 0 boundary ops
// E2E: == PASS
