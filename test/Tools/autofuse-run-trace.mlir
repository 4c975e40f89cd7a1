// autofuse-run prints the emulation's per-pipe counts after each launch, and
// --trace / --trace-svg write the pipe timeline: valid Chrome trace-event JSON with
// one process per core, one thread per pipe and one slice per instruction, and an
// SVG drawn from it.
// RUN: %autofuse-run -v %S/../../examples/layer_norm.mlir --symbols s0=64 --trace %t.json --trace-svg %t.svg | FileCheck %s --check-prefix=TEXT
// RUN: python3 -m json.tool %t.json > /dev/null
// RUN: FileCheck %s --input-file=%t.json --check-prefix=JSON
// RUN: FileCheck %s --input-file=%t.svg --check-prefix=SVG
// A file that cannot be written is an error, not a silent success.
// RUN: not %autofuse-run -v %S/../../examples/layer_norm.mlir --symbols s0=64 --trace %t.missing/dir/t.json 2>&1 | FileCheck %s --check-prefix=BAD

// TEXT: pipes: S {{[0-9]+}} calls {{[0-9]+}} instr {{[0-9]+}} B; V {{[1-9][0-9]*}} calls {{[1-9][0-9]*}} instr {{[0-9]+}} B; MTE2 {{[1-9][0-9]*}} calls {{[0-9]+}} instr {{[0-9]+}} B; MTE3 {{[1-9][0-9]*}} calls {{[0-9]+}} instr 262144 B; chip model {{[0-9]+}} cycles = {{[0-9.]+}} us
// TEXT: == PASS

// JSON: "traceEvents":[
// JSON-DAG: {"ph":"M","name":"process_name","pid":0,"args":{"name":"autofuse_reduce_0_{{.*}} core 0"}}
// JSON-DAG: {"ph":"M","name":"thread_name","pid":0,"tid":1,"args":{"name":"V"}}
// JSON-DAG: {"ph":"X","name":"DataCopyPad","cat":"MTE2","pid":0,"tid":2,"ts":0.0000,
// JSON-DAG: {"ph":"X","name":"WholeReduceSum","cat":"V","pid":0,"tid":1,
// JSON-DAG: {"ph":"X","name":"DataCopyPad","cat":"MTE3","pid":0,"tid":3,

// SVG: <svg xmlns="http://www.w3.org/2000/svg"
// SVG: layer_norm.mlir pipe timeline
// SVG: core 0 MTE2
// SVG: <rect x={{.*}} fill="#4e79a7"><title>{{.*}}DataCopyPad</title></rect>
// SVG: </svg>

// BAD: cannot write {{.*}}missing/dir/t.json
