// RUN: python3 %S/Inputs/gather_row_pick_data.py %t.d
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir --sink-constants --schedule --auto-tiling=remarks=false -o %t.mlir 2>&1 | FileCheck %s --check-prefix=OPT --allow-empty
// RUN: %autofuse-translate %t.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %s --no-fuse --entry pick_elements --inputs %t.d/t.npy,%t.d/t_idx.npy --expect %t.d/t_pick.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --no-fuse --entry pick_column --inputs %t.d/u.npy,%t.d/u_idx.npy --expect %t.d/u_idx_pick.npy --inputs %t.d/u.npy,%t.d/u_neg.npy --expect %t.d/u_neg_pick.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --no-fuse --entry pick_column_sym --inputs %t.d/u.npy,%t.d/u_idx.npy --expect %t.d/u_idx_pick.npy | FileCheck %s --check-prefix=E2E
//
// A gather along the innermost axis that picks one element per row (NLLLoss's
// GatherElements, Resize's column Gather): the table's view has extent 1 on the
// gathered axis, so the row axis becomes the innermost one with the table's row
// stride. The table is never loaded through that view (af::GatherRows reads it
// element by element, or from a copy of the whole table in UB), so the schedule
// accepts the kernel. Expected outputs are picked by Python
// (Inputs/gather_row_pick_data.py), compared besides the interpreter, on the
// emulation and on the vendor path.

// OPT-NOT: AF-SC001
// CHECK: const int64_t gs{{[0-9]+}}[1] = {5};
// CHECK: af::GatherRows(

// E2E-NOT: AF-SC001
// E2E: max error 0.000e0: PASS
// E2E: vendor path: {{[0-9]+}} kernel(s) run, max error 0.000e0
// E2E: vs expected outputs: max error 0.000e0: PASS
// E2E: (0 left to the interpreter)
// E2E: == PASS

func.func @pick_elements(%t: tensor<3x5xf32>, %i: tensor<3x1xi64>) -> tensor<3x1xf32> {
  %y = "ascend.gather_elements"(%t, %i) {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x1xi64>) -> tensor<3x1xf32>
  return %y : tensor<3x1xf32>
}

func.func @pick_column(%t: tensor<4x6xf32>, %i: tensor<1xi64>) -> tensor<4x1xf32> {
  %y = "ascend.gather"(%t, %i) {axis = 1 : i64} : (tensor<4x6xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  return %y : tensor<4x1xf32>
}

func.func @pick_column_sym(%t: tensor<?x6xf32>, %i: tensor<1xi64>) -> tensor<?x1xf32> {
  %y = "ascend.gather"(%t, %i) {axis = 1 : i64} : (tensor<?x6xf32>, tensor<1xi64>) -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}
