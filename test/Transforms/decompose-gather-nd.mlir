// RUN: %autofuse-opt %S/Inputs/gather_nd.mlir --infer-symbolic-shapes --decompose | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %S/Inputs/gather_nd.mlir --entry pos --symbols batch=2,seq=7 --symbols batch=3,seq=40 | FileCheck %s --check-prefix=POS
// RUN: %autofuse-run -v %S/Inputs/gather_nd.mlir --entry batched | FileCheck %s --check-prefix=BATCHED
//
// --decompose rewrites gather_nd as a gather along axis 0 of the data reshaped to
// [prod(indexed dims), rest..] by the linear index of each tuple. Inner components that
// are negative count from the end of their dim (c + dim * (c < 0)); the outermost one is
// left to the gather's own rule when there are no batch dims. Symbolic dims (strides,
// wraps) are one-element ranges starting at the dim. The result runs as one kernel on the
// emulation and the vendor path, equal to the interpreter of the original graph (ids
// drawn over [-dim, dim)).

// CHECK-LABEL: func.func @pos
// CHECK-NOT: ascend.gather_nd
// CHECK: %[[ZERO:.*]] = "ascend.constant"() {value = dense<0> : tensor<i32>}
// CHECK: %[[C0:.*]] = "ascend.slice"(%arg1) {axes = [4], ends = [1], starts = [0], steps = [1]}
// CHECK: %[[SEQ:.*]] = "ascend.range"() {delta = 1 : i64, start = "seq"} : () -> tensor<1xi32>
// CHECK: %[[ROW:.*]] = "ascend.mul"(%[[C0]], %[[SEQ]])
// CHECK: %[[C1:.*]] = "ascend.slice"(%arg1) {axes = [4], ends = [2], starts = [1], steps = [1]}
// CHECK: %[[DIM:.*]] = "ascend.range"() {delta = 1 : i64, start = "seq"}
// CHECK: %[[NEG:.*]] = "ascend.lt"(%[[C1]], %[[ZERO]])
// CHECK: %[[NEGI:.*]] = "ascend.cast"(%[[NEG]]) {{.*}} -> tensor<?x1x?x1x1xi32
// CHECK: %[[WRAP:.*]] = "ascend.mul"(%[[NEGI]], %[[DIM]])
// CHECK: %[[COL:.*]] = "ascend.add"(%[[C1]], %[[WRAP]])
// CHECK: %[[LIN:.*]] = "ascend.add"(%[[ROW]], %[[COL]])
// CHECK: %[[IDS:.*]] = "ascend.squeeze"(%[[LIN]]) {axes = [4]}
// CHECK: %[[FLAT:.*]] = "ascend.reshape"(%arg0) {{.*}} -> tensor<?xi32, #ascend.dims<["batch*seq"]>>
// CHECK: "ascend.gather"(%[[FLAT]], %[[IDS]]) {axis = 0 : i64} {{.*}} -> tensor<?x1x?x1xi32, #ascend.dims<["batch", "1", "seq", "1"]>>

// With a batch dim: the batch position (a range over it) times the indexed block (3 x 4),
// and both components wrapped. The i64 indices are computed in i32 (valid ones fit).
// CHECK-LABEL: func.func @batched
// CHECK: %[[B:.*]] = "ascend.range"() {delta = 1 : i64, start = 0 : i64} : () -> tensor<2xi32>
// CHECK: "ascend.reshape"(%[[B]]) : (tensor<2xi32>) -> tensor<2x1x1xi32>
// CHECK: "ascend.constant"() {value = dense<12> : tensor<i32>}
// CHECK: %[[S0:.*]] = "ascend.slice"(%arg1) {{.*}} -> tensor<2x6x1xi64>
// CHECK: "ascend.cast"(%[[S0]]) : (tensor<2x6x1xi64>) -> tensor<2x6x1xi32>
// CHECK-COUNT-2: "ascend.lt"
// CHECK: "ascend.reshape"(%arg0) : (tensor<2x3x4x5xf32>) -> tensor<24x5xf32>
// CHECK: "ascend.gather"({{.*}}) {axis = 0 : i64} : (tensor<24x5xf32>, tensor<2x6xi32>) -> tensor<2x6x5xf32>

// POS: kernel autofuse_pointwise_0_{{.*}}_Gather: ops
// POS-NOT: interpreted
// POS: max error 0.000e0: PASS
// POS: max error 0.000e0: PASS
// POS: model: 1 kernels (0 left to the interpreter) | 0 boundary ops
// POS: == PASS

// BATCHED-NOT: AF-SC001
// BATCHED: model: 1 kernels (0 left to the interpreter) | 0 boundary ops
// BATCHED: == PASS
