// Schedule and auto-tiling compute kernels on the context's threads, then write records
// and diagnostics in module order: the output, records and remarks included, is the same
// with one thread.
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --schedule --auto-tiling > %t.threads 2>&1
// RUN: %autofuse-opt %s --mlir-disable-threading --infer-symbolic-shapes --decompose --lower-to-ascir --schedule --auto-tiling > %t.one 2>&1
// RUN: diff %t.threads %t.one
// RUN: FileCheck %s < %t.threads

// Six unfused kernels (no --fuse), static and dynamic, with remarks from auto-tiling.
// CHECK-COUNT-3: remark: AF-AT001
// CHECK: func.func @autofuse_pointwise_0_Exp
// CHECK: "tiling.function"() {{.*}}kernel = @autofuse_pointwise_0_Exp
// CHECK: func.func @autofuse_pointwise_1_Relu
// CHECK: "tiling.function"() {{.*}}kernel = @autofuse_pointwise_1_Relu
// CHECK: func.func @autofuse_reduce_2_ReduceSum
// CHECK: "tiling.function"() {{.*}}kernel = @autofuse_reduce_2_ReduceSum
// CHECK: func.func @autofuse_pointwise_3_Sigmoid
// CHECK: func.func @autofuse_pointwise_4_Tanh
// CHECK: func.func @autofuse_pointwise_5_Abs
// CHECK: "tiling.function"() {{.*}}kernel = @autofuse_pointwise_5_Abs
func.func @main(%x: tensor<64x128xf32>, %y: tensor<?x32xf16>) -> (tensor<64x1xf32>, tensor<?x32xf16>) {
  %a = "ascend.exp"(%x) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %b = "ascend.relu"(%a) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %c = "ascend.reduce_sum"(%b) {axes = [1], keep_dims = true} : (tensor<64x128xf32>) -> tensor<64x1xf32>
  %d = "ascend.sigmoid"(%y) : (tensor<?x32xf16>) -> tensor<?x32xf16>
  %e = "ascend.tanh"(%d) : (tensor<?x32xf16>) -> tensor<?x32xf16>
  %f = "ascend.abs"(%e) : (tensor<?x32xf16>) -> tensor<?x32xf16>
  return %c, %f : tensor<64x1xf32>, tensor<?x32xf16>
}
