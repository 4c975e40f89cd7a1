// Data-type gating per chip (2201 tables of the fact sheet), decided at run
// time by the launch profile: the same binary accepts Div on int32 on ascend950
// and rejects it on ascend910b.
// RUN: %sim_cxx %s -o %t
// RUN: not %t div_int32 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: %t div_int32 ascend950 | FileCheck %s --check-prefix=DIV950
// RUN: env ASCENDC_SIM_CHIP=ascend950 %t div_int32 | FileCheck %s --check-prefix=DIV950
// RUN: not %t div_int32 ascend910_93 2>&1 | FileCheck %s --check-prefix=DIV93
// RUN: not %t exp_bf16 2>&1 | FileCheck %s --check-prefix=EXPBF16
// RUN: not %t add_bf16 2>&1 | FileCheck %s --check-prefix=ADDBF16
// RUN: not %t cast_half_bf16 2>&1 | FileCheck %s --check-prefix=CASTPAIR
// RUN: not %t cast_mode 2>&1 | FileCheck %s --check-prefix=CASTMODE
// RUN: not %t cmp_int32_gt 2>&1 | FileCheck %s --check-prefix=CMPI32
// RUN: not %t and_int32 2>&1 | FileCheck %s --check-prefix=AND
// RUN: not %t select_mode 2>&1 | FileCheck %s --check-prefix=SELM
// RUN: not %t kernel_type 2>&1 | FileCheck %s --check-prefix=KTYPE

#include <cstdio>
#include <string>

#include "kernel_operator.h"

using namespace AscendC;

static std::string g_case;

extern "C" __global__ __aicore__ void dtype_kernel() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, bc;
    pipe.InitBuffer(ba, 1024);
    pipe.InitBuffer(bb, 1024);
    pipe.InitBuffer(bc, 1024);
    if (g_case == "div_int32") {
        LocalTensor<int32_t> a = ba.Get<int32_t>(), b = bb.Get<int32_t>(), c = bc.Get<int32_t>();
        Duplicate(a, 7, 64);
        Duplicate(b, 2, 64);
        // DIV: ascendc-sim: error: kernel 'dtype_kernel' block 0: Div: data type int32_t is not supported on ascend910b (arch 2201); supported: half, float (at {{.*}}err_dtype.cpp:[[@LINE+2]])
        // DIV93: ascendc-sim: error: kernel 'dtype_kernel' block 0: Div: data type int32_t is not supported on ascend910_93 (arch 2201); supported: half, float (at {{.*}}err_dtype.cpp:[[@LINE+1]])
        Div(c, a, b, 64);
        std::printf("7/2=%d\n", c.GetValue(0));
        // DIV950: 7/2=3
    } else if (g_case == "exp_bf16") {
        LocalTensor<bfloat16_t> a = ba.Get<bfloat16_t>(), c = bc.Get<bfloat16_t>();
        // EXPBF16: ascendc-sim: error: kernel 'dtype_kernel' block 0: Exp: data type bfloat16_t is not supported on ascend910b (arch 2201); supported: half, float (at {{.*}}err_dtype.cpp:[[@LINE+1]])
        Exp(c, a, 64);
    } else if (g_case == "add_bf16") {
        LocalTensor<bfloat16_t> a = ba.Get<bfloat16_t>(), b = bb.Get<bfloat16_t>(), c = bc.Get<bfloat16_t>();
        // ADDBF16: ascendc-sim: error: kernel 'dtype_kernel' block 0: Add: data type bfloat16_t is not supported on ascend910b (arch 2201); supported: int16_t, half, int32_t, float (at {{.*}}err_dtype.cpp:[[@LINE+1]])
        Add(c, a, b, 64);
    } else if (g_case == "cast_half_bf16") {
        LocalTensor<half> a = ba.Get<half>();
        LocalTensor<bfloat16_t> c = bc.Get<bfloat16_t>();
        // CASTPAIR: ascendc-sim: error: kernel 'dtype_kernel' block 0: Cast: conversion half -> bfloat16_t is not supported on ascend910b (arch 2201) (at {{.*}}err_dtype.cpp:[[@LINE+1]])
        Cast(c, a, RoundMode::CAST_RINT, 64);
    } else if (g_case == "cast_mode") {
        LocalTensor<half> a = ba.Get<half>();
        LocalTensor<float> c = bc.Get<float>();
        // CASTMODE: ascendc-sim: error: kernel 'dtype_kernel' block 0: Cast: round mode CAST_RINT is not supported for half -> float on arch 2201 (supported: CAST_NONE) (at {{.*}}err_dtype.cpp:[[@LINE+1]])
        Cast(c, a, RoundMode::CAST_RINT, 64);
    } else if (g_case == "cmp_int32_gt") {
        LocalTensor<int32_t> a = ba.Get<int32_t>(), b = bb.Get<int32_t>();
        LocalTensor<uint8_t> m = bc.Get<uint8_t>();
        // CMPI32: ascendc-sim: error: kernel 'dtype_kernel' block 0: Compare: CMPMODE::GT is not supported for int32_t on arch 2201 (only EQ) (at {{.*}}err_dtype.cpp:[[@LINE+1]])
        Compare(m, a, b, CMPMODE::GT, 64);
    } else if (g_case == "and_int32") {
        LocalTensor<int32_t> a = ba.Get<int32_t>(), b = bb.Get<int32_t>(), c = bc.Get<int32_t>();
        // AND: ascendc-sim: error: kernel 'dtype_kernel' block 0: And: data type int32_t is not supported on ascend910b (arch 2201); supported: int16_t, uint16_t (at {{.*}}err_dtype.cpp:[[@LINE+1]])
        And(c, a, b, 64);
    } else if (g_case == "select_mode") {
        LocalTensor<float> a = ba.Get<float>(), b = bb.Get<float>();
        LocalTensor<uint8_t> m = bc.Get<uint8_t>();
        // SELM: ascendc-sim: error: kernel 'dtype_kernel' block 0: Select: with a scalar src1 the mode must be VSEL_TENSOR_SCALAR_MODE (at {{.*}}err_dtype.cpp:[[@LINE+1]])
        Select(b, m, a, 1.0f, SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);
    } else if (g_case == "kernel_type") {
        // KTYPE: ascendc-sim: error: kernel 'dtype_kernel' block 0: KERNEL_TASK_TYPE_DEFAULT: kernel type 6 is not supported on ascend910b (only AIV_ONLY, AIC_ONLY and MIX_* 1_0/1_1/1_2) (at {{.*}}err_dtype.cpp:[[@LINE+1]])
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AICORE);
    }
}

int main(int argc, char** argv) {
    // These kernels test single APIs and leave pipe synchronisation out.
    ascendc_sim::set_sync_check(false);
    g_case = argc > 1 ? argv[1] : "none";
    // Chip from argv[2], else from $ASCENDC_SIM_CHIP, else ascend910b.
    const ascendc_sim::ChipProfile& chip =
        argc > 2 ? ascendc_sim::profile(argv[2]) : ascendc_sim::profile_from_env("ascend910b");
    ascendc_sim::launch("dtype_kernel", dtype_kernel, 1, chip);
    return 0;
}
