// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --lower-to-ascir --fuse --schedule --auto-tiling=remarks=false -o %t.mlir
// RUN: %autofuse-translate %t.mlir --evaluate-tiling --symbols=s0=4096 | FileCheck %s --check-prefix=BIG
// RUN: %autofuse-translate %t.mlir --evaluate-tiling --symbols=s0=3 | FileCheck %s --check-prefix=SMALL
// RUN: not %autofuse-translate %t.mlir --evaluate-tiling 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not %autofuse-translate %t.mlir 2>&1 | FileCheck %s --check-prefix=USAGE
// The tiling evaluator: case, tile, block dim, UB bytes per buffer, cycles per pipe.

// BIG: kernel @autofuse_reduce_0_ReduceMax_Sub_Exp_ReduceSum_Div (s0=4096)
// BIG-NEXT: case 0 (split z0t): tile z0t_size = {{[0-9]+}}
// BIG-NEXT: tiles {{[0-9]+}} over block_dim {{4[0-8]}} ({{[0-9]+}} per block, 48 cores)
// BIG-NEXT: UB {{[0-9]+}} / 188160 bytes
// BIG-NEXT: q0 VECIN x2
// BIG-NEXT: q1 VECOUT x2
// BIG: work VECCALC x1
// BIG-NEXT: scratch VECCALC x1
// BIG-NEXT: part VECCALC x1
// BIG-NEXT: per tile (cycles, estimate): MTE2 {{[0-9]+}} VEC {{[0-9]+}} MTE3 {{[0-9]+}}; kernel ~{{[0-9]+}} cycles
// SMALL: tile z0t_size = 1
// SMALL-NEXT: tiles 3 over block_dim 3 (1 per block, 48 cores)
// MISSING: autofuse-translate: @autofuse_reduce_0_ReduceMax_Sub_Exp_ReduceSum_Div: no value for symbol s0
// USAGE: give exactly one of --mlir-to-ascendc and --evaluate-tiling
func.func @softmax(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %y = "ascend.softmax"(%x) {axis = -1 : i64} : (tensor<?x1024xf32>) -> tensor<?x1024xf32>
  return %y : tensor<?x1024xf32>
}
