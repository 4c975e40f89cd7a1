// RUN: %autofuse-opt %s --split-input-file --infer-symbolic-shapes --lower-to-ascir --fuse="max-fusion-size=2 max-inputs=2 max-proximity=1" --verify-diagnostics | FileCheck %s
// The limits of the solver are pass options; each refusal names the limit.

// AF-NF003: exp and abs fuse (2 ops); neg would make 3.
// CHECK-LABEL: func.func @size_cap
// CHECK: %[[K:.*]] = call @autofuse_pointwise_0_Exp_Abs(%arg0)
// CHECK: "ascend.neg"(%[[K]])
func.func @size_cap(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark@+1 {{AF-NF003 size-cap: autofuse_pointwise_0_Exp_Abs and autofuse_pointwise_2_Neg not fused: 3 ops together (max-fusion-size is 2)}}
  %0 = "ascend.exp"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "ascend.abs"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_2_Neg lifted back to ascend.neg}}
  // expected-remark@+1 {{AF-NF003 size-cap}}
  %2 = "ascend.neg"(%1) : (tensor<8xf32>) -> tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

// AF-NF004: add reads x and y, mul reads z too: 3 inputs.
// CHECK-LABEL: func.func @input_cap
// CHECK: "ascend.add"
// CHECK: "ascend.mul"
func.func @input_cap(%x: tensor<8xf32>, %y: tensor<8xf32>, %z: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_0_Add lifted back to ascend.add}}
  // expected-remark@+1 {{AF-NF004 input-cap: autofuse_pointwise_0_Add and autofuse_pointwise_1_Mul not fused: 3 inputs together (max-inputs is 2)}}
  %0 = "ascend.add"(%x, %y) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_1_Mul lifted back to ascend.mul}}
  // expected-remark@+1 {{AF-NF004 input-cap}}
  %1 = "ascend.mul"(%0, %z) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// AF-NF007: exp and abs read x but are 2 ops apart (max-proximity is 1); the sqrt in
// between shares nothing with them.
// CHECK-LABEL: func.func @peak_memory
// CHECK: "ascend.exp"
// CHECK: "ascend.sqrt"
// CHECK: "ascend.abs"
func.func @peak_memory(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_0_Exp lifted back to ascend.exp}}
  // expected-remark@+1 {{AF-NF007 peak-memory: autofuse_pointwise_0_Exp and autofuse_pointwise_2_Abs not fused: siblings 2 ops apart (max-proximity is 1)}}
  %0 = "ascend.exp"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  // expected-remark@+1 {{AF-NF012 lifted: autofuse_pointwise_1_Sqrt lifted back to ascend.sqrt}}
  %1 = "ascend.sqrt"(%y) : (tensor<8xf32>) -> tensor<8xf32>
  // expected-remark@+2 {{AF-NF012 lifted: autofuse_pointwise_2_Abs lifted back to ascend.abs}}
  // expected-remark@+1 {{AF-NF007 peak-memory}}
  %2 = "ascend.abs"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
