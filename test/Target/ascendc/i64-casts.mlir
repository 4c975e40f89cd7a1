// RUN: %vendor_env %autofuse-run -v %S/Inputs/i64_casts.mlir --no-fuse --inputs %S/Inputs/i64_casts.x.npy --expect %S/Inputs/i64_casts.f32.npy,%S/Inputs/i64_casts.bool.npy | FileCheck %s
//
// A cast of int64 data converts with one Cast to int32 or f32; to bool it goes through
// f32 (exact: a nonzero int64 is a nonzero float, also 2^32 and -2^40, whose low 32
// bits are zero and which a cast through int32 would lose). The exported attention
// masks of BERT, GPT-2 and Qwen2 (int64 -> bool) were kernels the schedule refused
// (AF-SC001) under --no-fuse. Expected outputs are numpy's (Inputs/i64_casts_data.py).

// CHECK-NOT: AF-SC001
// CHECK: model: 2 kernels (0 left to the interpreter) | 0 boundary ops
// CHECK: == PASS
