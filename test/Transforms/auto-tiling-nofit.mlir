// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule=ub-bytes=1024 --auto-tiling -o - 2>&1 | FileCheck %s
// RUN: not %autofuse-opt %s --lower-to-ascir --schedule=ub-bytes=64 -o /dev/null 2>&1 | FileCheck %s --check-prefix=TINY
// Nothing fits: a 1 KiB UB budget cannot hold the buffers of a fused layer norm even with
// the reduction split into chunks (remark AF-AT002, the kernel is not translated); a
// budget below 1 KiB is refused by the option itself.

// CHECK: remark: AF-AT002 @autofuse_reduce_0_{{.*}}: no tiling case of @autofuse_reduce_0_{{.*}} fits UB: the smallest tile needs {{[0-9]+}} bytes, ascend910b has 1024; the kernel is not translated
// CHECK: "tiling.function"() {cores = 48 : i64, feasible = false, kernel = @autofuse_reduce_0_{{.*}}, static = true
// TINY: error: ub-bytes=64 is below the 1024-byte minimum
func.func @nofit(%x: tensor<4x4096xf32>, %g: tensor<4096xf32>, %b: tensor<4096xf32>) -> tensor<4x4096xf32> {
  %y = "ascend.layer_norm"(%x, %g, %b) {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<4x4096xf32>
  return %y : tensor<4x4096xf32>
}
