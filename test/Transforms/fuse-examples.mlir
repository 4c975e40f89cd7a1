// Fuses every bundled example graph (symbol hint s0 = 4096) and checks the report: one
// kernel per graph, and GM traffic equal to the minimum. The expected minimum is worked
// out by hand from the example's types: every graph input (and every 4-byte constant
// of the decomposition) read once, every result written once.
//
// RUN: %autofuse-opt %repo/examples/softmax.mlir --infer-symbolic-shapes=symbol-hints=s0=4096 --decompose --lower-to-ascir --fuse=report=%t.softmax.json -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SOFTMAX < %t.softmax.json
// RUN: %autofuse-opt %repo/examples/layer_norm.mlir --infer-symbolic-shapes=symbol-hints=s0=4096 --decompose --lower-to-ascir --fuse=report=%t.layer_norm.json -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,LN < %t.layer_norm.json
// RUN: %autofuse-opt %repo/examples/rms_norm.mlir --infer-symbolic-shapes=symbol-hints=s0=4096 --decompose --lower-to-ascir --fuse=report=%t.rms_norm.json -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,RMS < %t.rms_norm.json
// RUN: %autofuse-opt %repo/examples/gelu_bias.mlir --infer-symbolic-shapes=symbol-hints=s0=4096 --decompose --lower-to-ascir --fuse=report=%t.gelu_bias.json -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,GELU < %t.gelu_bias.json
// RUN: %autofuse-opt %repo/examples/swiglu.mlir --infer-symbolic-shapes=symbol-hints=s0=4096 --decompose --lower-to-ascir --fuse=report=%t.swiglu.json -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SWIGLU < %t.swiglu.json
// RUN: %autofuse-opt %repo/examples/elementwise_chain.mlir --infer-symbolic-shapes=symbol-hints=s0=4096 --decompose --lower-to-ascir --fuse=report=%t.chain.json -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,CHAIN < %t.chain.json
// RUN: %autofuse-opt %repo/examples/residual_layer_norm.mlir --infer-symbolic-shapes=symbol-hints=s0=4096 --decompose --lower-to-ascir --fuse=report=%t.residual.json -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,RESIDUAL < %t.residual.json
//
// The statistics say the same for softmax (5 kernels moved 32784 bytes per row: x and
// max, x/max/sub, sub/exp, exp/sum, exp/sum/y).
// RUN: %autofuse-opt %repo/examples/softmax.mlir --infer-symbolic-shapes=symbol-hints=s0=4096 --decompose --lower-to-ascir --fuse --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: 'fuse'
// STATS-NEXT: (5) kernels-before
// STATS-NEXT: (1) kernels-after
// STATS: (134283264) gm-bytes-before
// STATS-NEXT: (33554432) gm-bytes-after
// STATS-NEXT: (33554432) gm-bytes-minimum

// Every report: attempts with round, order, kind, score and outcome.
// CHECK: "decisions": [
// CHECK: "kind": "vertical",
// CHECK: "order": 0,
// CHECK: "outcome": "fused",
// CHECK: "result": "autofuse_
// CHECK: "round": 1,
// CHECK: "saved_bytes": {

// softmax: x and y are [s0, 1024] f32: 4096*s0 bytes each.
// SOFTMAX:      "gm_bytes": {
// SOFTMAX-NEXT:   "after": {
// SOFTMAX-NEXT:     "hint": 33554432,
// SOFTMAX-NEXT:     "symbolic": "8192*s0"
// SOFTMAX-NEXT:   },
// SOFTMAX-NEXT:   "at_minimum": true,
// SOFTMAX:        "minimum": {
// SOFTMAX-NEXT:     "hint": 33554432,
// SOFTMAX-NEXT:     "symbolic": "8192*s0"
// SOFTMAX:      "name": "autofuse_reduce_0_ReduceMax_Sub_Exp_ReduceSum_Div",
// SOFTMAX:      "kernels_after": 1,
// SOFTMAX-NEXT: "kernels_before": 5,

// layer_norm: x, y 4096*s0 each; gamma, beta 4096 each; eps and two 1024.0 constants.
// The greedy solver meets a cycle on the way (transient: the kernels end together).
// LN:           "code": "AF-NF002",
// LN:           "kept_apart": false,
// LN:           "gm_bytes": {
// LN-NEXT:        "after": {
// LN-NEXT:          "hint": 33562636,
// LN-NEXT:          "symbolic": "8192*s0+8204"
// LN:             "at_minimum": true,
// LN:           "kernels_after": 1,
// LN-NEXT:      "kernels_before": 11,

// rms_norm (f16): x, y 8192*s0 each; gamma 8192; 4096.0 and eps as f32 constants.
// RMS:          "gm_bytes": {
// RMS-NEXT:       "after": {
// RMS-NEXT:         "hint": 67117064,
// RMS-NEXT:         "symbolic": "16384*s0+8200"
// RMS:            "at_minimum": true,
// RMS:          "kernels_after": 1,

// gelu(x + bias), tanh form: x, y 12288*s0 each; bias 12288; four f32 constants.
// GELU:         "gm_bytes": {
// GELU-NEXT:      "after": {
// GELU-NEXT:        "hint": 100675600,
// GELU-NEXT:        "symbolic": "24576*s0+12304"
// GELU:           "at_minimum": true,
// GELU:         "kernels_after": 1,

// swiglu (f16): gate, up, y 5632*s0 each.
// SWIGLU:       "gm_bytes": {
// SWIGLU-NEXT:    "after": {
// SWIGLU-NEXT:      "hint": 69206016,
// SWIGLU-NEXT:      "symbolic": "16896*s0"
// SWIGLU:         "at_minimum": true,
// SWIGLU:       "kernels_after": 1,

// six elementwise ops: x, y, result 2048*s0 each; scale 2048.
// CHAIN:        "gm_bytes": {
// CHAIN-NEXT:     "after": {
// CHAIN-NEXT:       "hint": 25167872,
// CHAIN-NEXT:       "symbolic": "6144*s0+2048"
// CHAIN:          "at_minimum": true,
// CHAIN:        "name": "autofuse_pointwise_0_Mul_Add_Abs_Sub_Relu_Sigmoid",
// CHAIN:        "kernels_after": 1,
// CHAIN-NEXT:   "kernels_before": 6,

// residual add + layer_norm, both returned (a multi-output kernel): x, r, h, y
// 3072*s0 each; gamma, beta 3072 each; three f32 constants.
// RESIDUAL:     "gm_bytes": {
// RESIDUAL-NEXT:  "after": {
// RESIDUAL-NEXT:    "hint": 50337804,
// RESIDUAL-NEXT:    "symbolic": "12288*s0+6156"
// RESIDUAL:       "at_minimum": true,
// RESIDUAL:       "outputs": 2
// RESIDUAL:     "kernels_after": 1,
