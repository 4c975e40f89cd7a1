// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --narrow-index-types | FileCheck %s
// RUN: %autofuse-run %s --entry flat_mask_index --symbols batch=2,seq=5 --symbols batch=3,seq=33 | FileCheck %s --check-prefix=EXEC
//
// --narrow-index-types bounds flat indices symbolically: TorchScript exports gather a
// padding mask through `range(batch) * seq + range(seq)`, which the per-symbol numeric
// bound puts near 2^62. Its symbolic bound is (batch - 1) * seq + seq - 1 = batch*seq - 1,
// below the element count of the [batch*seq] mask it indexes, which the device indexes
// with 32-bit offsets: the arithmetic is 32-bit. The compiled graph (the runner narrows
// too) computes what the interpreter of the original graph does.
// EXEC: == PASS

// CHECK-LABEL: func.func @flat_mask_index
// CHECK: "ascend.range"() {{.*}} -> tensor<?xi32, #ascend.dims<["batch"]>>
// CHECK: %[[N:.*]] = "ascend.symbolic_constant"() {values = ["seq"]} : () -> tensor<1xi32>
// CHECK: %[[M:.*]] = "ascend.mul"(%{{.*}}, %[[N]]) {{.*}} -> tensor<?x1xi32
// CHECK: "ascend.range"() {{.*}} -> tensor<?xi32, #ascend.dims<["seq"]>>
// CHECK: %[[I:.*]] = "ascend.add"(%{{.*}}, %[[M]]) {{.*}} -> tensor<?x?xi32
// CHECK: "ascend.gather"(%{{.*}}, %[[I]]) {axis = 0 : i64} : (tensor<?xf32, {{.*}}>, tensor<?x?xi32
// CHECK-NOT: i64
// CHECK: return
func.func @flat_mask_index(%mask: tensor<?x?xf32, #ascend.dims<["batch", "seq"]>>) -> tensor<?x?xf32, #ascend.dims<["batch", "seq"]>> {
  %b = "ascend.range"() {start = 0 : i64, delta = 1 : i64} : () -> tensor<?xi64, #ascend.dims<["batch"]>>
  %bu = "ascend.unsqueeze"(%b) {axes = [1]} : (tensor<?xi64, #ascend.dims<["batch"]>>) -> tensor<?x1xi64, #ascend.dims<["batch", "1"]>>
  %n = "ascend.symbolic_constant"() {values = ["seq"]} : () -> tensor<1xi64>
  %row = "ascend.mul"(%bu, %n) : (tensor<?x1xi64, #ascend.dims<["batch", "1"]>>, tensor<1xi64>) -> tensor<?x1xi64, #ascend.dims<["batch", "1"]>>
  %s = "ascend.range"() {start = 0 : i64, delta = 1 : i64} : () -> tensor<?xi64, #ascend.dims<["seq"]>>
  %su = "ascend.unsqueeze"(%s) {axes = [0]} : (tensor<?xi64, #ascend.dims<["seq"]>>) -> tensor<1x?xi64, #ascend.dims<["1", "seq"]>>
  %i = "ascend.add"(%su, %row) : (tensor<1x?xi64, #ascend.dims<["1", "seq"]>>, tensor<?x1xi64, #ascend.dims<["batch", "1"]>>) -> tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>
  %flat = "ascend.reshape"(%mask) : (tensor<?x?xf32, #ascend.dims<["batch", "seq"]>>) -> tensor<?xf32, #ascend.dims<["batch*seq"]>>
  %y = "ascend.gather"(%flat, %i) {axis = 0 : i64} : (tensor<?xf32, #ascend.dims<["batch*seq"]>>, tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>) -> tensor<?x?xf32, #ascend.dims<["batch", "seq"]>>
  return %y : tensor<?x?xf32, #ascend.dims<["batch", "seq"]>>
}

// -----

// Left 64-bit: the flat index shifted by seq gathers from a table of t rows. Its bound
// batch*seq + seq - 1 is below no element count of the graph (batch*seq, t), so the
// shifted index, and the flat index only it reads, stay i64.
// CHECK-LABEL: func.func @past_the_end
// CHECK: %[[I:.*]] = "ascend.add"({{.*}}) {{.*}} -> tensor<?x?xi64
// CHECK: %[[J:.*]] = "ascend.add"(%[[I]], {{.*}}) {{.*}} -> tensor<?x?xi64
// CHECK: "ascend.gather"(%arg1, %[[J]]) {axis = 0 : i64} : (tensor<?xf32, {{.*}}>, tensor<?x?xi64
func.func @past_the_end(%mask: tensor<?x?xf32, #ascend.dims<["batch", "seq"]>>, %table: tensor<?xf32, #ascend.dims<["t"]>>) -> tensor<?x?xf32, #ascend.dims<["batch", "seq"]>> {
  %b = "ascend.range"() {start = 0 : i64, delta = 1 : i64} : () -> tensor<?xi64, #ascend.dims<["batch"]>>
  %bu = "ascend.unsqueeze"(%b) {axes = [1]} : (tensor<?xi64, #ascend.dims<["batch"]>>) -> tensor<?x1xi64, #ascend.dims<["batch", "1"]>>
  %n = "ascend.symbolic_constant"() {values = ["seq"]} : () -> tensor<1xi64>
  %row = "ascend.mul"(%bu, %n) : (tensor<?x1xi64, #ascend.dims<["batch", "1"]>>, tensor<1xi64>) -> tensor<?x1xi64, #ascend.dims<["batch", "1"]>>
  %s = "ascend.range"() {start = 0 : i64, delta = 1 : i64} : () -> tensor<?xi64, #ascend.dims<["seq"]>>
  %su = "ascend.unsqueeze"(%s) {axes = [0]} : (tensor<?xi64, #ascend.dims<["seq"]>>) -> tensor<1x?xi64, #ascend.dims<["1", "seq"]>>
  %i = "ascend.add"(%su, %row) : (tensor<1x?xi64, #ascend.dims<["1", "seq"]>>, tensor<?x1xi64, #ascend.dims<["batch", "1"]>>) -> tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>
  %n2 = "ascend.symbolic_constant"() {values = ["seq"]} : () -> tensor<1xi64>
  %j = "ascend.add"(%i, %n2) : (tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>, tensor<1xi64>) -> tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>
  %y = "ascend.gather"(%table, %j) {axis = 0 : i64} : (tensor<?xf32, #ascend.dims<["t"]>>, tensor<?x?xi64, #ascend.dims<["batch", "seq"]>>) -> tensor<?x?xf32, #ascend.dims<["batch", "seq"]>>
  return %y : tensor<?x?xf32, #ascend.dims<["batch", "seq"]>>
}
