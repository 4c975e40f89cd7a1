// RUN: python3 %S/Inputs/byte_broadcast_data.py %t.d
// RUN: %autofuse-opt %s --infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir --sink-constants --schedule --auto-tiling=remarks=false -o %t.mlir 2>&1 | FileCheck %s --check-prefix=OPT --allow-empty
// RUN: %autofuse-translate %t.mlir --mlir-to-ascendc -o - | FileCheck %s
// RUN: %vendor_env %autofuse-run -v %s --no-fuse --entry splat_u8 --inputs %t.d/col.npy --expect %t.d/col_b.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --no-fuse --entry rows_i8 --inputs %t.d/row.npy --expect %t.d/row_b.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --no-fuse --entry scalar_u8 --inputs %t.d/one.npy --expect %t.d/one_b.npy | FileCheck %s --check-prefix=E2E
// RUN: %vendor_env %autofuse-run -v %s --no-fuse --entry middle_u8 --inputs %t.d/mid.npy --expect %t.d/mid_b.npy | FileCheck %s --check-prefix=E2E
//
// Broadcasts of 1-byte types (ui8, i8) run as kernels: Ascend C has no Duplicate of
// 8-bit types, so af::BroadcastBox moves the bytes through the int16 view of the
// tiles (a splat duplicates the byte pair, rows are copied as int16 blocks; a kernel
// with a 1-byte value pads rows to 32 elements, so every offset is even). A row splat,
// a row copied to every row, a scalar and a middle axis; expected outputs are the
// inputs repeated by Python (Inputs/byte_broadcast_data.py), compared besides the
// interpreter, on the emulation and on the vendor path.

// OPT-NOT: AF-SC001
// CHECK-COUNT-4: af::BroadcastBox(

// E2E-NOT: AF-SC001
// E2E: max error 0.000e0: PASS
// E2E: vendor path: 1 kernel(s) run, max error 0.000e0
// E2E: vs expected outputs: max error 0.000e0: PASS
// E2E: model: 1 kernels (0 left to the interpreter) | 0 boundary ops
// E2E: == PASS

func.func @splat_u8(%x: tensor<5x1xui8>) -> tensor<5x40xui8> {
  %y = "ascend.broadcast_to"(%x) : (tensor<5x1xui8>) -> tensor<5x40xui8>
  return %y : tensor<5x40xui8>
}

func.func @rows_i8(%x: tensor<1x40xi8>) -> tensor<6x40xi8> {
  %y = "ascend.broadcast_to"(%x) : (tensor<1x40xi8>) -> tensor<6x40xi8>
  return %y : tensor<6x40xi8>
}

func.func @scalar_u8(%x: tensor<1x1xui8>) -> tensor<3x33xui8> {
  %y = "ascend.broadcast_to"(%x) : (tensor<1x1xui8>) -> tensor<3x33xui8>
  return %y : tensor<3x33xui8>
}

func.func @middle_u8(%x: tensor<3x1x40xui8>) -> tensor<3x4x40xui8> {
  %y = "ascend.broadcast_to"(%x) : (tensor<3x1x40xui8>) -> tensor<3x4x40xui8>
  return %y : tensor<3x4x40xui8>
}
