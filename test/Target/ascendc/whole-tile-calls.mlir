// RUN: %autofuse-run %repo/examples/layer_norm.mlir --cores 1 --symbols s0=2 --symbols s0=4 --symbols s0=7 | FileCheck %s
//
// A tile's vector calls do not grow with its rows: on one core each run below is one tile
// of 2, 4 and 7 rows of 1024 f32, and the emulation counts the same number of vector API
// calls for all three (the two row reductions are two flat WholeReduceSum calls each,
// the broadcasts of gamma, beta, the mean and 1/stddev one Copy per 256 B chunk of a row,
// the elementwise ops one call each); only the repeats grow.

// CHECK: -- inputs [2, 1024]
// CHECK: blocks 1 z0t_size=2,
// CHECK-NEXT: pipes: S {{[0-9]+}} calls {{[0-9]+}} instr {{[0-9]+}} B; V [[CALLS:[0-9]+]] calls
// CHECK: PASS
// CHECK: -- inputs [4, 1024]
// CHECK: blocks 1 z0t_size=4,
// CHECK-NEXT: pipes: S {{[0-9]+}} calls {{[0-9]+}} instr {{[0-9]+}} B; V [[CALLS]] calls
// CHECK: PASS
// CHECK: -- inputs [7, 1024]
// CHECK: blocks 1 z0t_size=7,
// CHECK-NEXT: pipes: S {{[0-9]+}} calls {{[0-9]+}} instr {{[0-9]+}} B; V [[CALLS]] calls
// CHECK: PASS
// CHECK: == PASS
