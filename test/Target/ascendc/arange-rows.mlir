// RUN: %autofuse-run -v %S/Inputs/arange_rows.mlir --entry query_positions --cores 1 --symbols s0=5 --symbols s0=128 --symbols s0=1000 --vendor-headers %vendor_headers | FileCheck %s
// RUN: %autofuse-run -v %S/Inputs/arange_rows.mlir --entry key_positions --cores 1 --symbols s0=5,s1=3 --symbols s0=300,s1=77 --vendor-headers %vendor_headers | FileCheck %s --check-prefix=KEYS
//
// A range over the rows of a tile (a query position per row, start 5, step 3) is built
// without one vector call per row (af::ArangeBox): the first row by CreateVecIndex and
// Adds, then the rows written so far are copied one row step further (one Adds each),
// doubling the rows: log2(rows) calls per tile (rows that repeat one range, the key
// positions of examples/causal_softmax.mlir's mask, are one whole-tile copy of the
// first row; here key positions are one row the add broadcasts). On one core, 128
// rows take fewer vector calls in all (three tiles) than a call per row would take for
// the rows alone, and so do 1000 rows (fourteen tiles); each run equals the interpreter
// on the emulation and on the vendor headers.
// CHECK: -- inputs [5, 64]
// CHECK: vendor path: 1 kernel(s) run, max error {{.*}}: PASS
// CHECK: -- inputs [128, 64]
// CHECK: pipes: S {{[0-9]+}} calls {{[0-9]+}} instr {{[0-9]+}} B; V {{[0-9]|[1-9][0-9]|1[01][0-9]}} calls
// CHECK: vendor path: 1 kernel(s) run, max error {{.*}}: PASS
// CHECK: -- inputs [1000, 64]
// CHECK: pipes: S {{[0-9]+}} calls {{[0-9]+}} instr {{[0-9]+}} B; V {{[0-9]|[1-9][0-9]|[1-8][0-9][0-9]}} calls
// CHECK: vendor path: 1 kernel(s) run, max error {{.*}}: PASS
// CHECK: == PASS
// KEYS-COUNT-2: vendor path: 1 kernel(s) run, max error {{.*}}: PASS
// KEYS: == PASS
