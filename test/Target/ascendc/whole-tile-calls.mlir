// RUN: %autofuse-run -v %S/Inputs/layer_norm_64.mlir --cores 1 --symbols s0=16 --symbols s0=48 --symbols s0=80 | FileCheck %s
//
// A tile's vector calls do not grow with its rows: on one core each run below is one tile
// of 16, 48 and 80 rows of 64 f32 (at 90 rows the solver takes two tiles of 45, whose
// loads, compute and stores overlap: cheaper under the chip model than one tile), and
// the emulation counts the same number of vector API calls for all three (the two row
// reductions are one WholeReduceSum each; the mean, 1/stddev, gamma and beta are read by
// their sub, div, mul and add through repeat strides, one call over all rows after one
// Brcb of the row scalars; the other elementwise ops are one call each); only the
// repeats grow. (For rows of several 256-byte chunks the calls are the cheapest of one
// per chunk, one per row and one per eight rows under the chip model's vector cost, so
// they stay bounded by the chunks, not constant, at few rows.)

// CHECK: -- inputs [16, 64]
// CHECK: blocks 1 z0t_size=16,
// CHECK-NEXT: pipes: S {{[0-9]+}} calls {{[0-9]+}} instr {{[0-9]+}} B; V [[CALLS:[0-9]+]] calls
// CHECK: PASS
// CHECK: -- inputs [48, 64]
// CHECK: blocks 1 z0t_size=48,
// CHECK-NEXT: pipes: S {{[0-9]+}} calls {{[0-9]+}} instr {{[0-9]+}} B; V [[CALLS]] calls
// CHECK: PASS
// CHECK: -- inputs [80, 64]
// CHECK: blocks 1 z0t_size=80,
// CHECK-NEXT: pipes: S {{[0-9]+}} calls {{[0-9]+}} instr {{[0-9]+}} B; V [[CALLS]] calls
// CHECK: PASS
// CHECK: == PASS
