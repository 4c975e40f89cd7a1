// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --sink-constants --schedule --auto-tiling=remarks=false \
// RUN:   | %autofuse-translate --mlir-to-ascendc -o - | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %s --symbols s0=3 --symbols s0=300 | FileCheck %s --check-prefix=EXEC
//
// A float select whose false branch is a scalar reads it in Select's tensor-scalar mode
// (bit 0 takes the scalar): no Duplicate of the scalar over the tile, no buffer for it
// (causal masks: where(keep, scores, -1e9)). A scalar true branch has no such form (the
// mode puts the scalar second) and stays a tile of its own.

// CHECK-LABEL: // ===== autofuse_pointwise_0_Gt_Select_Select_Add
// CHECK: Select([[A:v[0-9]+]], mk, v{{[0-9]+}}, static_cast<float>(-1000000000.0), SELMODE::VSEL_TENSOR_SCALAR_MODE,
// CHECK: Duplicate([[TWO:v[0-9]+]], static_cast<float>(2.0), n{{[0-9]+}});
// CHECK: Select([[B:v[0-9]+]], mk, [[TWO]], v{{[0-9]+}}, SELMODE::VSEL_TENSOR_TENSOR_MODE,

// EXEC-NOT: FAIL
// EXEC: == PASS
func.func @select_scalar(%x: tensor<?x64xf32, #ascend.dims<["s0", "64"]>>, %y: tensor<?x64xf32, #ascend.dims<["s0", "64"]>>) -> tensor<?x64xf32, #ascend.dims<["s0", "64"]>> {
  %c = "ascend.gt"(%x, %y) : (tensor<?x64xf32, #ascend.dims<["s0", "64"]>>, tensor<?x64xf32, #ascend.dims<["s0", "64"]>>) -> tensor<?x64xi1, #ascend.dims<["s0", "64"]>>
  %low = "ascend.constant"() {value = dense<-1.0e9> : tensor<f32>} : () -> tensor<f32>
  %two = "ascend.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %a = "ascend.select"(%c, %x, %low) : (tensor<?x64xi1, #ascend.dims<["s0", "64"]>>, tensor<?x64xf32, #ascend.dims<["s0", "64"]>>, tensor<f32>) -> tensor<?x64xf32, #ascend.dims<["s0", "64"]>>
  %b = "ascend.select"(%c, %two, %y) : (tensor<?x64xi1, #ascend.dims<["s0", "64"]>>, tensor<f32>, tensor<?x64xf32, #ascend.dims<["s0", "64"]>>) -> tensor<?x64xf32, #ascend.dims<["s0", "64"]>>
  %s = "ascend.add"(%a, %b) : (tensor<?x64xf32, #ascend.dims<["s0", "64"]>>, tensor<?x64xf32, #ascend.dims<["s0", "64"]>>) -> tensor<?x64xf32, #ascend.dims<["s0", "64"]>>
  return %s : tensor<?x64xf32, #ascend.dims<["s0", "64"]>>
}
