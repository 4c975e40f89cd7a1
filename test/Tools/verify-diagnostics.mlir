// RUN: not %autofuse-opt %s --verify-diagnostics 2>&1 | FileCheck %s
// The expected-diagnostic checker itself fails when an expectation is not met and
// when a diagnostic is not expected.

func.func @f(%x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<4xf32> {
  // This expectation names the wrong text, so both directions fail.
  // expected-error@+1 {{a message that is never produced}}
  %0 = "ascend.add"(%x, %y) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK: unexpected {{.*}}verify-diagnostics.mlir:8:8: error: dims '4' and '3' cannot be broadcast together
// CHECK: verify-diagnostics.mlir:7: error: expected error "a message that is never produced" at line 8 was not produced
