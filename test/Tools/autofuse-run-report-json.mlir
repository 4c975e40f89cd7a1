// autofuse-run --report-json writes, per shape run, every kernel in program order (the
// matmul, a boundary op (k = 48: not vectorized by --decompose), with its operand + result bytes; the fused kernel with the GM
// traffic the emulation measured; each with its own minimum: distinct operands and
// results once: x, the matmul result and the output of 2 KiB each), the totals and
// PASS/FAIL; the JSON must parse. `onnx_nodes` is set for ONNX inputs only.
// RUN: %autofuse-run -v %s --report-json %t.json | FileCheck %s --check-prefix=TEXT
// RUN: FileCheck %s --input-file=%t.json
// RUN: python3 -m json.tool %t.json > /dev/null
// A file that cannot be written is an error, not a silent success.
// RUN: not %autofuse-run -v %s --report-json %t.missing/dir/r.json 2>&1 | FileCheck %s --check-prefix=BAD

// TEXT: GM bytes: measured 6144 B | unfused 14.0 KiB | minimum 17.5 KiB
// TEXT: == PASS

// CHECK:      "onnx_nodes": null,
// CHECK-NEXT: "entry": "f",
// CHECK:      "runs": [
// CHECK:          "inputs": {{\[\[}}8, 64], [8, 48], [48, 64]],
// CHECK-NEXT:     "input_dtypes": ["f32", "f32", "f32"],
// CHECK-NEXT:     "kernels": [
// CHECK-NEXT:       {"name": "ascend.matmul", "kind": "boundary", "ops": ["ascend.matmul"], "blocks": null, "gm_read": 13824, "gm_written": 2048, "minimum": 15872, "per_core_minimum": 15872, "ub_peak": null},
// CHECK-NEXT:       {"name": "autofuse_pointwise_0_Exp_Add_Abs", "kind": "emulated", "ops": ["Exp", "Add", "Abs"], "blocks": {{[1-9][0-9]*}}, "gm_read": 4096, "gm_written": 2048, "minimum": 6144, "per_core_minimum": 6144, "ub_peak": {{[1-9][0-9]*}}}
// CHECK-NEXT:     ],
// CHECK-NEXT:     "kernel_count": 2,
// CHECK-NEXT:     "gm_bytes": {"measured": 6144, "not_measured": 15872, "total": 22016, "unfused": 14336, "minimum": 17920, "kernels_minimum": 6144, "kernels_per_core_minimum": 6144},
// CHECK:          "error": null,
// CHECK-NEXT:     "pass": true
// CHECK:        "pass": true
// CHECK-NEXT: }

// BAD: autofuse-run: error: cannot write {{.*}}r.json

func.func @f(%x: tensor<8x64xf32>, %a: tensor<8x48xf32>, %w: tensor<48x64xf32>) -> tensor<8x64xf32> {
  %m = "ascend.matmul"(%a, %w) {transpose_a = false, transpose_b = false} : (tensor<8x48xf32>, tensor<48x64xf32>) -> tensor<8x64xf32>
  %e = "ascend.exp"(%x) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %s = "ascend.add"(%e, %m) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %z = "ascend.abs"(%s) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %z : tensor<8x64xf32>
}
