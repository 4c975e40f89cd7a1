// RUN: %autofuse-opt %s --infer-symbolic-shapes | FileCheck %s
// RUN: %autofuse-opt %s --infer-symbolic-shapes --lower-to-ascir | FileCheck %s --check-prefix=LOWERED

// A front end may spell a size in any equal form ("(s27*s77)", "s77*s27"): the pass
// rewrites every encoding in its canonical text, since MLIR compares encodings as
// strings and a kernel's signature is printed canonically (a call whose result type
// kept the input's spelling failed the verifier: "result type mismatch").

// CHECK-LABEL: func.func @spelled
// CHECK: "ascend.reshape"(%arg0)
// CHECK-SAME: -> tensor<?x16xf32, #ascend.dims<["s27*s77", "16"]>>
// CHECK: "ascend.exp"
// CHECK-SAME: -> tensor<?x16xf32, #ascend.dims<["s27*s77", "16"]>>
// CHECK-NOT: (s27*s77)
// LOWERED-LABEL: func.func @spelled
// LOWERED: call @autofuse_
// LOWERED-NOT: (s27*s77)
func.func @spelled(%x: tensor<?x?x16xf32, #ascend.dims<["s77", "s27", "16"]>>) -> tensor<?x16xf32, #ascend.dims<["(s27*s77)", "16"]>> {
  %r = "ascend.reshape"(%x) : (tensor<?x?x16xf32, #ascend.dims<["s77", "s27", "16"]>>) -> tensor<?x16xf32, #ascend.dims<["(s27*s77)", "16"]>>
  %y = "ascend.exp"(%r) : (tensor<?x16xf32, #ascend.dims<["(s27*s77)", "16"]>>) -> tensor<?x16xf32, #ascend.dims<["(s27*s77)", "16"]>>
  return %y : tensor<?x16xf32, #ascend.dims<["(s27*s77)", "16"]>>
}
