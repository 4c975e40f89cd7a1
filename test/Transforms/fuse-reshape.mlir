// RUN: %autofuse-opt %S/Inputs/reshape_chain.mlir --infer-symbolic-shapes --decompose --lower-to-ascir=remarks=false --fuse | FileCheck %s
// RUN: %autofuse-opt %S/Inputs/reshape_chain.mlir --infer-symbolic-shapes --decompose --lower-to-ascir=remarks=false --fuse -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK --allow-empty
// RUN: %autofuse-run -v %S/Inputs/reshape_chain.mlir --entry merge_heads --symbols s0=3 --symbols s0=77 --vendor-headers %vendor_headers | FileCheck %s --check-prefix=EMU
// RUN: %autofuse-run -v %S/Inputs/reshape_chain.mlir --entry split_rows --symbols s0=3 --symbols s0=77 | FileCheck %s --check-prefix=EMU
// RUN: %autofuse-run -v %S/Inputs/reshape_chain.mlir --entry merge_symbolic --symbols s0=3,s1=2 --symbols s0=41,s1=5 --vendor-headers %vendor_headers | FileCheck %s --check-prefix=EMU

// A reshape that merges or splits dims no longer stops fusion: both kernels' axes are
// refined to the common factors of their views of the shared tensor (docs/fusion.md,
// "Reshapes"), so the ops on both sides of it are one kernel whose loop nest is the
// finer one.
// CHECK-LABEL: func.func @merge_heads
// CHECK-NEXT: call @autofuse_pointwise_0_Exp_Reshape_Add(%arg0, %arg1)
// CHECK-LABEL: func.func @split_rows
// CHECK-NEXT: call @autofuse_reduce_{{[0-9]+}}_ReduceMax_Sub_Exp_ReduceSum_Div_Reshape_Mul(%arg0, %arg1)
// CHECK-LABEL: func.func @merge_symbolic
// CHECK-NEXT: call @autofuse_reduce_{{[0-9]+}}_Exp_Reshape_Cast_ReduceSum_Div(%arg0)
// The merged nest of the head merge: s0, 12, 64; the bias walks the two inner axes.
// CHECK-LABEL: func.func @autofuse_pointwise_0_Exp_Reshape_Add
// CHECK-SAME: ascir.axes = [#ascir.axis<0 : i64, "z0", "s0", "original", []>, #ascir.axis<1 : i64, "z1", "12", "original", []>, #ascir.axis<2 : i64, "z2", "64", "original", []>]
// CHECK: "ascir.data"(%arg1) {index = 1 : i64, view = #ascir.view<[0, 1, 2], ["1", "12", "64"], ["0", "64", "1"]>}
// CHECK: "ascir.store"{{.*}}view = #ascir.view<[0, 1, 2], ["s0", "12", "64"], ["768", "64", "1"]>
// The symbolic merge: the rows of [s0*s1, 64] split into s0 and s1.
// CHECK-LABEL: func.func @autofuse_reduce_{{[0-9]+}}_Exp_Reshape_Cast_ReduceSum_Div
// CHECK-SAME: #ascir.axis<0 : i64, "z0", "s0", "original", []>, #ascir.axis<1 : i64, "z1", "s1", "original", []>, #ascir.axis<2 : i64, "z2", "64", "original", []>

// No pair is refused for a mismatch of axes.
// REMARK-NOT: AF-NF005

// Each fused kernel on the emulation (and the vendor path), equal to the interpreter.
// EMU-COUNT-2: max error {{.*}}: PASS
// EMU: model: 1 kernels (0 left to the interpreter) | 0 boundary ops
// EMU: == PASS
