// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes | FileCheck %s
// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --infer-symbolic-shapes | FileCheck %s
// RUN: %autofuse-opt %S/Inputs/concat_chain40.mlir --infer-symbolic-shapes | FileCheck %s --check-prefix=CHAIN40
// RUN: %autofuse-run %S/Inputs/concat_chain40.mlir --symbols s0=1,s1=2,s2=3,s3=4,s4=5,s5=6,s6=7,s7=1,s8=2,s9=3,s10=4,s11=5,s12=6,s13=7,s14=1,s15=2,s16=3,s17=4,s18=5,s19=6,s20=7,s21=1,s22=2,s23=3,s24=4,s25=5,s26=6,s27=7,s28=1,s29=2,s30=3,s31=4,s32=5,s33=6,s34=7,s35=1,s36=2,s37=3,s38=4,s39=5,s40=6 --symbols s0=2,s1=7,s2=12,s3=6,s4=11,s5=5,s6=10,s7=4,s8=9,s9=3,s10=8,s11=2,s12=7,s13=12,s14=6,s15=11,s16=5,s17=10,s18=4,s19=9,s20=3,s21=8,s22=2,s23=7,s24=12,s25=6,s26=11,s27=5,s28=10,s29=4,s30=9,s31=3,s32=8,s33=2,s34=7,s35=12,s36=6,s37=11,s38=5,s39=10,s40=4 | FileCheck %s --check-prefix=EXEC
// RUN: not %autofuse-run %S/Inputs/concat_chain40.mlir --symbols s0=1,s1=2,s2=3,s3=4,s4=5,s5=6,s6=7,s7=1,s8=2,s9=3,s10=4,s11=5,s12=6,s13=7,s14=1,s15=2,s16=3,s17=4,s18=5,s19=6,s20=7,s21=1,s22=2,s23=3,s24=4,s25=5,s26=6,s27=7,s28=1,s29=2,s30=3,s31=4,s32=5,s33=6,s34=7,s35=1,s36=2,s37=3,s38=4,s39=5,s40=6,d0=36 2>&1 | FileCheck %s --check-prefix=GIVEN
// Derived symbols (issue 38, class 8): a result dim of more than 8 terms is named by a
// fresh symbol d<N> defined in ascend.derived_symbols, so types stay short; running the
// pass again reuses the definitions (second RUN line, same checks). The chain of 40 runs
// on the emulation against the reference interpreter at two symbol sets, and a derived
// symbol is never given on the command line.

// The 8th concat's dim has 9 terms: d0 names it; 8 concats later d0 + s9 + ... + s16
// has 9 terms again and becomes d1. Sums print with their terms sorted by name.
// CHECK-LABEL: func.func @chain20
// CHECK-SAME: -> tensor<4x?xf32, #ascend.dims<["4", "d1+s17+s18+s19+s20"]>>
// CHECK-SAME: ascend.derived_symbols = ["d0 = s0+s1+s2+s3+s4+s5+s6+s7+s8", "d1 = d0+s10+s11+s12+s13+s14+s15+s16+s9"]
// CHECK: %{{.*}} = "ascend.concat"{{.*}} -> tensor<4x?xf32, #ascend.dims<["4", "s0+s1"]>>
// CHECK: -> tensor<4x?xf32, #ascend.dims<["4", "s0+s1+s2+s3+s4+s5+s6+s7"]>>
// CHECK-NEXT: -> tensor<4x?xf32, #ascend.dims<["4", "d0"]>>
// CHECK-NEXT: -> tensor<4x?xf32, #ascend.dims<["4", "d0+s9"]>>
// CHECK: -> tensor<4x?xf32, #ascend.dims<["4", "d0+s10+s11+s12+s13+s14+s15+s9"]>>
// CHECK-NEXT: -> tensor<4x?xf32, #ascend.dims<["4", "d1"]>>
// CHECK-NEXT: -> tensor<4x?xf32, #ascend.dims<["4", "d1+s17"]>>
func.func @chain20(%a0: tensor<4x?xf32>, %a1: tensor<4x?xf32>, %a2: tensor<4x?xf32>, %a3: tensor<4x?xf32>, %a4: tensor<4x?xf32>, %a5: tensor<4x?xf32>, %a6: tensor<4x?xf32>, %a7: tensor<4x?xf32>, %a8: tensor<4x?xf32>, %a9: tensor<4x?xf32>, %a10: tensor<4x?xf32>, %a11: tensor<4x?xf32>, %a12: tensor<4x?xf32>, %a13: tensor<4x?xf32>, %a14: tensor<4x?xf32>, %a15: tensor<4x?xf32>, %a16: tensor<4x?xf32>, %a17: tensor<4x?xf32>, %a18: tensor<4x?xf32>, %a19: tensor<4x?xf32>, %a20: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %c0 = "ascend.concat"(%a0, %a1) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c1 = "ascend.concat"(%c0, %a2) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c2 = "ascend.concat"(%c1, %a3) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c3 = "ascend.concat"(%c2, %a4) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c4 = "ascend.concat"(%c3, %a5) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c5 = "ascend.concat"(%c4, %a6) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c6 = "ascend.concat"(%c5, %a7) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c7 = "ascend.concat"(%c6, %a8) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c8 = "ascend.concat"(%c7, %a9) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c9 = "ascend.concat"(%c8, %a10) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c10 = "ascend.concat"(%c9, %a11) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c11 = "ascend.concat"(%c10, %a12) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c12 = "ascend.concat"(%c11, %a13) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c13 = "ascend.concat"(%c12, %a14) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c14 = "ascend.concat"(%c13, %a15) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c15 = "ascend.concat"(%c14, %a16) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c16 = "ascend.concat"(%c15, %a17) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c17 = "ascend.concat"(%c16, %a18) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c18 = "ascend.concat"(%c17, %a19) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %c19 = "ascend.concat"(%c18, %a20) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  return %c19 : tensor<4x?xf32>
}

// -----

// Two sums of five terms joined: the 10-term dim is named at once, the halves are not.
// CHECK-LABEL: func.func @halves
// CHECK-SAME: -> tensor<4x?xf32, #ascend.dims<["4", "d0"]>>
// CHECK-SAME: ascend.derived_symbols = ["d0 = s0+s1+s2+s3+s4+s5+s6+s7+s8+s9"]
// CHECK: -> tensor<4x?xf32, #ascend.dims<["4", "s5+s6+s7+s8+s9"]>>
// CHECK-NEXT: -> tensor<4x?xf32, #ascend.dims<["4", "d0"]>>
func.func @halves(%a0: tensor<4x?xf32>, %a1: tensor<4x?xf32>, %a2: tensor<4x?xf32>, %a3: tensor<4x?xf32>, %a4: tensor<4x?xf32>, %a5: tensor<4x?xf32>, %a6: tensor<4x?xf32>, %a7: tensor<4x?xf32>, %a8: tensor<4x?xf32>, %a9: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %x0 = "ascend.concat"(%a0, %a1) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %x1 = "ascend.concat"(%x0, %a2) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %x2 = "ascend.concat"(%x1, %a3) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %x3 = "ascend.concat"(%x2, %a4) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %y0 = "ascend.concat"(%a5, %a6) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %y1 = "ascend.concat"(%y0, %a7) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %y2 = "ascend.concat"(%y1, %a8) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %y3 = "ascend.concat"(%y2, %a9) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %0 = "ascend.concat"(%x3, %y3) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// Eight terms stay spelled out: no derived symbol, no attribute.
// CHECK-LABEL: func.func @eight_terms
// CHECK-SAME: -> tensor<4x?xf32, #ascend.dims<["4", "s0+s1+s2+s3+s4+s5+s6+s7"]>>
// CHECK-NOT: ascend.derived_symbols
// CHECK: return
func.func @eight_terms(%a0: tensor<4x?xf32>, %a1: tensor<4x?xf32>, %a2: tensor<4x?xf32>, %a3: tensor<4x?xf32>, %a4: tensor<4x?xf32>, %a5: tensor<4x?xf32>, %a6: tensor<4x?xf32>, %a7: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %z0 = "ascend.concat"(%a0, %a1) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %z1 = "ascend.concat"(%z0, %a2) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %z2 = "ascend.concat"(%z1, %a3) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %z3 = "ascend.concat"(%z2, %a4) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %z4 = "ascend.concat"(%z3, %a5) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %z5 = "ascend.concat"(%z4, %a6) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  %z6 = "ascend.concat"(%z5, %a7) {axis = 1 : i64} : (tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  return %z6 : tensor<4x?xf32>
}

// The 40-op chain: d0 ... d4, every 8 inputs; the result is d4 itself.
// CHAIN40-LABEL: func.func @chain
// CHAIN40-SAME: -> tensor<4x?xf32, #ascend.dims<["4", "d4"]>>
// CHAIN40-SAME: ascend.derived_symbols = ["d0 = s0+s1+s2+s3+s4+s5+s6+s7+s8", "d1 = d0+s10+s11+s12+s13+s14+s15+s16+s9", "d2 = d1+s17+s18+s19+s20+s21+s22+s23+s24", "d3 = d2+s25+s26+s27+s28+s29+s30+s31+s32", "d4 = d3+s33+s34+s35+s36+s37+s38+s39+s40"]

// EXEC: == PASS

// GIVEN: --symbols: 'd0' is not a symbol of the entry graph
