// RUN: %autofuse-run %S/Inputs/layer_norm_256.mlir --cores 1 --symbols s0=8 --symbols s0=16 --symbols s0=24 | FileCheck %s
//
// A tile's vector calls do not grow with its rows: on one core each run below is one tile
// of 8, 16 and 24 rows of 256 f32, and the emulation counts the same number of vector API
// calls for all three (the two row reductions are two flat WholeReduceSum calls each; the
// mean, 1/stddev, gamma and beta are read by their sub, div, mul and add through repeat
// strides, one call per 256 B column chunk over all rows, after one Brcb of the row
// scalars; the other elementwise ops are one call each); only the repeats grow.

// CHECK: -- inputs [8, 256]
// CHECK: blocks 1 z0t_size=8,
// CHECK-NEXT: pipes: S {{[0-9]+}} calls {{[0-9]+}} instr {{[0-9]+}} B; V [[CALLS:[0-9]+]] calls
// CHECK: PASS
// CHECK: -- inputs [16, 256]
// CHECK: blocks 1 z0t_size=16,
// CHECK-NEXT: pipes: S {{[0-9]+}} calls {{[0-9]+}} instr {{[0-9]+}} B; V [[CALLS]] calls
// CHECK: PASS
// CHECK: -- inputs [24, 256]
// CHECK: blocks 1 z0t_size=24,
// CHECK-NEXT: pipes: S {{[0-9]+}} calls {{[0-9]+}} instr {{[0-9]+}} B; V [[CALLS]] calls
// CHECK: PASS
// CHECK: == PASS
