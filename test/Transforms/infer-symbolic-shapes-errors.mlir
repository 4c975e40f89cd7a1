// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes="symbol-hints=s0=4,s1=3 symbol-ranges=s5=2:8,s6=10:20" --verify-diagnostics
// Provable mismatches are errors at the op.

// Hints say the dims differ and neither is 1: no broadcast can be valid.
func.func @hint_mismatch(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error@+1 {{dims 's0' and 's1' cannot be broadcast together (hints 4 and 3)}}
  %0 = "ascend.add"(%x, %y) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A reshape whose element counts are provably different.
func.func @reshape_count(%x: tensor<?x4xf32, #ascend.dims<["s0", "4"]>>) -> tensor<?x3xf32, #ascend.dims<["s0", "3"]>> {
  // expected-error@+1 {{reshape changes the element count from '4*s0' to '3*s0'}}
  %0 = "ascend.reshape"(%x) : (tensor<?x4xf32, #ascend.dims<["s0", "4"]>>) -> tensor<?x3xf32, #ascend.dims<["s0", "3"]>>
  return %0 : tensor<?x3xf32, #ascend.dims<["s0", "3"]>>
}

// -----

// Ranges decide statically: s5 in [2, 8] and s6 in [10, 20] are never equal and never 1,
// so they can never broadcast together.
func.func @ranges(%x: tensor<?xf32, #ascend.dims<["s5"]>>, %y: tensor<?xf32, #ascend.dims<["s6"]>>) -> tensor<?xf32> {
  // expected-error@+1 {{dims 's5' and 's6' cannot be broadcast together}}
  %0 = "ascend.add"(%x, %y) : (tensor<?xf32, #ascend.dims<["s5"]>>, tensor<?xf32, #ascend.dims<["s6"]>>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
