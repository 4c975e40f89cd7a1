// RUN: %autofuse-opt %s --infer-symbolic-shapes=symbol-hints=s0=8,s1=16,s2=16 --lower-to-ascir --fuse=report=%t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: %autofuse-opt %s --infer-symbolic-shapes=symbol-hints=s0=8,s1=16,s2=16 --lower-to-ascir --fuse --schedule 2>&1 | FileCheck %s --check-prefix=SCHED
// A row sum over s1 added to a [s0, s2] tensor: the reduced axis and the broadcast
// axis only map when s1 == s2. Without hints the pair is refused (fuse-remarks.mlir);
// with hints saying s1 = s2 = 16 the loops merge and the decision is recorded as an
// expect guard of the function. The fused kernel's broadcast then repeats the loop
// axis's own size (s1, equal to s2 by the guard), so the schedule expresses it: it is
// not left to the interpreter (AF-SC001) nor refused as unschedulable (AF-NF011).

// CHECK-LABEL: func.func @hinted
// CHECK-SAME: ascend.guards = ["expect(s1 == s2)"]
// CHECK: call @autofuse_reduce_0_ReduceSum_Add(%arg0, %arg1)
// CHECK-LABEL: func.func @autofuse_reduce_0_ReduceSum_Add
// CHECK-SAME: ascir.axes = [#ascir.axis<0 : i64, "z0", "s0", "original", []>, #ascir.axis<1 : i64, "z1", "s1", "original", []>]
// CHECK: "ascir.sum"
// CHECK: "ascir.add"
// SCHED-NOT: AF-SC001
// SCHED-NOT: AF-NF011
// SCHED: func.func @autofuse_reduce_0_ReduceSum_Add
// SCHED-SAME: ascir.form = "impl"
// REPORT: "guards": [
// REPORT-NEXT: "expect(s1 == s2)"
// REPORT: "hints": {
// REPORT-NEXT: "s0": 8,
// REPORT-NEXT: "s1": 16,
// REPORT-NEXT: "s2": 16
func.func @hinted(%x: tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>, %w: tensor<?x?xf32, #ascend.dims<["s0", "s2"]>>) -> tensor<?x?xf32, #ascend.dims<["s0", "s2"]>> {
  %0 = "ascend.reduce_sum"(%x) {axes = [1], keep_dims = true} : (tensor<?x?xf32, #ascend.dims<["s0", "s1"]>>) -> tensor<?x1xf32, #ascend.dims<["s0", "1"]>>
  %1 = "ascend.add"(%0, %w) : (tensor<?x1xf32, #ascend.dims<["s0", "1"]>>, tensor<?x?xf32, #ascend.dims<["s0", "s2"]>>) -> tensor<?x?xf32, #ascend.dims<["s0", "s2"]>>
  return %1 : tensor<?x?xf32, #ascend.dims<["s0", "s2"]>>
}
