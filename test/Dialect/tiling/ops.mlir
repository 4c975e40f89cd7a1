// RUN: %autofuse-opt %s | %autofuse-opt | FileCheck %s
// Round trip of every tiling record.

func.func @k(%a: tensor<?x64xf32, #ascend.dims<["s0", "64"]>>) -> tensor<?x64xf32, #ascend.dims<["s0", "64"]>> attributes {ascir.axes = [#ascir.axis<0, "z0", "s0", "original", []>, #ascir.axis<1, "z1", "64", "original", []>], ascir.sizes = ["s0"]} {
  return %a : tensor<?x64xf32, #ascend.dims<["s0", "64"]>>
}
// CHECK: "tiling.group"() {kernel = @k, r = [], x = [], y = [0, 1]}
"tiling.group"() {kernel = @k, x = [], y = [0, 1], r = []} : () -> ()
// CHECK: "tiling.split"() {axis = 0 : i64, inner = 3 : i64, kernel = @k, kind = "tile", outer = 2 : i64, size_var = "z0t_size"}
"tiling.split"() {kernel = @k, axis = 0, outer = 2, inner = 3, kind = "tile", size_var = "z0t_size"} : () -> ()
// CHECK: "tiling.case"() {block_split = [2], kernel = @k, key = 0 : i64, ub_split = [0]}
"tiling.case"() {kernel = @k, key = 0, ub_split = [0], block_split = [2]} : () -> ()
// CHECK: "tiling.field"() {expr = "s0", kernel = @k, name = "s0", type = "int64_t"}
"tiling.field"() {kernel = @k, name = "s0", type = "int64_t", expr = "s0"} : () -> ()
// CHECK: "tiling.buffer"() {bytes = "z0t_size*256", count = 2 : i64, id = 0 : i64, kernel = @k, position = "VECIN"}
"tiling.buffer"() {kernel = @k, id = 0, position = "VECIN", count = 2, bytes = "z0t_size*256"} : () -> ()
// CHECK: "tiling.function"() {cores = 48 : i64, kernel = @k, symbols = ["s0"], ub_bytes = 188160 : i64}
"tiling.function"() {kernel = @k, symbols = ["s0"], ub_bytes = 188160, cores = 48} : () -> ()
