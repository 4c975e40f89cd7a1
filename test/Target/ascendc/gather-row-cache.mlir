// RUN: python3 %S/Inputs/row_cache_data.py %t.d
// RUN: %autofuse-opt %S/Inputs/gather_tables.mlir --infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir --fuse --sink-constants --schedule --auto-tiling=remarks=false -o %t.mlir
// RUN: %autofuse-translate %t.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %autofuse-translate %t.mlir --evaluate-tiling --symbols=v=2000,b=64,s=64 | FileCheck %s --check-prefix=TILING
// RUN: %vendor_env %autofuse-run -v %S/Inputs/gather_tables.mlir --ub-bytes 65536 --inputs %t.d/table.npy,%t.d/few_ids.npy,%t.d/scale.npy --expect %t.d/few_out.npy | FileCheck %s --check-prefix=FEW
// RUN: %vendor_env %autofuse-run -v %S/Inputs/gather_tables.mlir --ub-bytes 65536 --inputs %t.d/table.npy,%t.d/spread_ids.npy,%t.d/scale.npy --expect %t.d/spread_out.npy | FileCheck %s --check-prefix=SPREAD
// RUN: %vendor_env %autofuse-run -v %S/Inputs/gather_tables.mlir --ub-bytes 65536 --inputs %t.d/table.npy,%t.d/long_ids.npy,%t.d/scale.npy --expect %t.d/long_out.npy | FileCheck %s --check-prefix=SPREAD
//
// A gather that reads its table from GM keeps the rows its block picked in a row cache
// (the UB the case's buffers leave, sized by the host tiling function): a row picked
// again is copied in UB instead of read from GM a second time. Ids and expected outputs
// come from Inputs/row_cache_data.py (plain Python). With `--ub-bytes 65536` the 75 KiB
// table does not fit UB, so the GM cases run:
// - few: ids (31 i + j) % 7, every block picks the same 7 rows over and over: the GM
//   bytes measured equal the distinct bytes each core reads (no row read twice);
// - spread: ids uniform over 300 rows, some negative (counted from the end), [64, 64]
//   (a cache of 88 slots, every row a block picks) and [64, 512] (57-row tiles leave UB
//   for 8 slots: the ring keeps each tile's last 8 rows, wraps, and its 16-entry hash
//   evicts): equal to the interpreter and to the Python picks, on the emulation and on
//   the vendor path.

// CHECK-LABEL: __aicore__ inline void Case0(
// CHECK: TBuf<TPosition::VECCALC> rowcache;
// CHECK-NEXT: pipe.InitBuffer(rowcache, t.rowcache_size);
// CHECK-NEXT: af::RowCache<float> [[RC:rc[0-9]+]] = af::MakeRowCache<float>(rowcache.Get<uint8_t>(), 0, t.[[RC]]_rows);
// CHECK: af::ResetRowCache([[RC]]);
// CHECK: for (int64_t tile_id = first; tile_id < last; ++tile_id) {
// CHECK: af::GatherRows(v{{[0-9]+}}, gm_in0, v{{[0-9]+}}, {{.*}}, kAlign, [[RC]]);
// The twin that keeps the whole table in UB has no row cache.
// CHECK-LABEL: __aicore__ inline void Case3(
// CHECK-NOT: MakeRowCache
// CHECK: af::GatherRows(v{{[0-9]+}}, table.Get<uint8_t>(){{.*}}, kAlign);
// The host gives the cache what UB the buffers leave for the chosen tile.
// CHECK: const af_host::RowCacheNeed needs[] = {{[{][{]}}256, s.per * (
// CHECK-NEXT: int64_t slots[1] = {};
// CHECK-NEXT: out->rowcache_size = static_cast<uint32_t>(af_host::RowCacheRows(needs, 1, static_cast<int64_t>(ub_bytes) - af_{{.*}}::Case0Ub(sym, t) + 32, slots));

// TILING: case 1 (split z1t): tile z1t_size = 22
// TILING: rowcache VECCALC  x1 23936 B
// TILING-NEXT: row cache of gather 3: 88 rows (the UB the buffers leave)

// FEW-NOT: case {{[345]}}
// FEW: GM bytes: measured [[BYTES:[0-9.]+ KiB]] | {{.*}} with per-core copies [[BYTES]]
// FEW: max error 0.000e0: PASS
// FEW: vendor path: 1 kernel(s) run, max error 0.000e0 (vs sim 0.000e0): PASS
// FEW: vs expected outputs: max error 0.000e0: PASS
// FEW: == PASS

// SPREAD-NOT: case {{[345]}}
// SPREAD: max error 0.000e0: PASS
// SPREAD: vendor path: 1 kernel(s) run, max error 0.000e0 (vs sim 0.000e0): PASS
// SPREAD: vs expected outputs: max error 0.000e0: PASS
// SPREAD: == PASS
