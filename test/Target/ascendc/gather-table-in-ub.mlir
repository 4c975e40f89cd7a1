// RUN: %autofuse-opt %S/Inputs/gather_tables.mlir --infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir --fuse --sink-constants --schedule --auto-tiling=remarks=false -o %t.mlir
// RUN: FileCheck %s --check-prefix=CASES --input-file %t.mlir
// RUN: %autofuse-translate %t.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-translate %t.mlir --evaluate-tiling --symbols=v=16,b=64,s=64 > %t.small.txt
// RUN: %autofuse-translate %t.mlir --evaluate-tiling --symbols=v=200000,b=4,s=5 > %t.large.txt
// RUN: FileCheck %s --check-prefix=SMALL --input-file %t.small.txt
// RUN: FileCheck %s --check-prefix=LARGE --input-file %t.large.txt
// RUN: %autofuse-opt %S/Inputs/gather_middle_f16.mlir --infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir --fuse --sink-constants --schedule --auto-tiling=remarks=false -o %t.middle.mlir
// RUN: %autofuse-translate %t.middle.mlir --evaluate-tiling --symbols=n=300 | FileCheck %s --check-prefix=MIDDLE
// RUN: %vendor_env %autofuse-run -v %S/Inputs/gather_tables.mlir --symbols v=16,b=64,s=64 --symbols v=200000,b=4,s=5 --report-json %t.json | FileCheck %s --check-prefix=E2E
// RUN: python3 %S/Inputs/gm_bytes_check.py --minimum=kernels_per_core_minimum --every-run %t.json 1.005 %t.small.txt %t.large.txt | FileCheck %s --check-prefix=BYTES
// RUN: %vendor_env %autofuse-run -v %S/Inputs/gather_middle_f16.mlir --symbols n=7 --symbols n=300 | FileCheck %s --check-prefix=E2E
//
// GE's two gather templates, chosen at run time by tiling key. Beside every case that
// reads a gather's table from GM (one DMA per picked row), the schedule adds a twin that
// copies the table whole into the `table` buffer once per block and picks rows there (one
// UB -> UB DataCopy per row, or scalar copies when rows do not start on 32-byte blocks).
// The host tiling function takes the cheaper: the UB twin for a 16-row table, the GM case
// for a 200000-row table (the twin does not fit UB). Both run equal to the interpreter on
// the emulation and the vendor path, and the model's GM bytes equal the emulation's.

// CASES: "tiling.case"() {block_split = [{{[0-9]+}}], kernel = @autofuse_pointwise_0_Gather_Mul, key = 0 : i64,
// CASES-NOT: gather_tables_in_ub
// CASES: "tiling.case"() {block_split = [{{[0-9]+}}], gather_tables_in_ub = [3], kernel = @autofuse_pointwise_0_Gather_Mul, key = 3 : i64,
// CASES: "tiling.buffer"() {bytes = "256", case = 0 : i64, count = 1 : i64, id = {{[0-9]+}} : i64, kernel = @autofuse_pointwise_0_Gather_Mul, name = "table", position = "VECCALC"}
// CASES: "tiling.buffer"() {bytes = "{{.*}}v{{.*}}", case = 3 : i64, count = 1 : i64, id = {{[0-9]+}} : i64, kernel = @autofuse_pointwise_0_Gather_Mul, name = "table", position = "VECCALC"}

// CHECK-LABEL: __aicore__ inline void Case0(
// CHECK: TBuf<TPosition::VECCALC> table;
// CHECK-NOT: af::LoadTable
// CHECK: af::GatherRows(v{{[0-9]+}}, gm_in0, v{{[0-9]+}},
// CHECK-LABEL: __aicore__ inline void Case3(
// CHECK: af::LoadTable(table.Get<uint8_t>()[static_cast<uint32_t>(0)].ReinterpretCast<float>(), gm_in0, 64*af_sym_v);
// CHECK-NEXT: af::SyncLoadToVector();
// CHECK-NEXT: af::SyncLoadToScalar();
// CHECK: for (int64_t tile_id = first; tile_id < last; ++tile_id) {
// CHECK-NOT: gm_in0
// CHECK: af::GatherRows(v{{[0-9]+}}, table.Get<uint8_t>()[static_cast<uint32_t>(0)].ReinterpretCast<float>(), v{{[0-9]+}},

// SMALL: kernel @autofuse_pointwise_0_Gather_Mul (b=64, s=64, v=16)
// SMALL-NEXT: case {{[345]}} (split
// LARGE: kernel @autofuse_pointwise_0_Gather_Mul (b=4, s=5, v=200000)
// LARGE-NEXT: case {{[012]}} (split

// MIDDLE: kernel @autofuse_pointwise_0_Gather_Abs (n=300)
// MIDDLE-NEXT: case {{[345]}} (split

// E2E: PASS
// E2E: PASS
// E2E: == PASS

// BYTES: run 0: measured {{[0-9]+}} B = model
// BYTES-NEXT: run 1: measured {{[0-9]+}} B = model
// BYTES-NEXT: measured / kernels_per_core_minimum 1.00{{[0-9]*}} <= 1.005
// BYTES-NEXT: measured / kernels_per_core_minimum 1.00{{[0-9]*}} <= 1.005
