// Compare / Compares produce a bit-packed uint8 mask; Select picks src0 where
// a bit is 1 and src1 (tensor or scalar) where it is 0; mode 0 reuses the
// first 256/sizeof(T) mask bits for every repeat.  Together: where(a < b, a, b).
// RUN: %sim_cxx %s -o %t && %t | FileCheck %s

#include <cstdio>

#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void cmpsel_kernel() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, bm, bo;
    pipe.InitBuffer(ba, 512);
    pipe.InitBuffer(bb, 512);
    pipe.InitBuffer(bm, 64);
    pipe.InitBuffer(bo, 512);
    LocalTensor<float> a = ba.Get<float>(), b = bb.Get<float>(), o = bo.Get<float>();
    LocalTensor<uint8_t> m = bm.Get<uint8_t>();
    for (int i = 0; i < 128; ++i) {
        a.SetValue(i, static_cast<float>(i % 10));
        b.SetValue(i, 4.5f);
    }
    Compare(m, a, b, CMPMODE::LT, 128);
    std::printf("mask:");
    for (int i = 0; i < 4; ++i) std::printf(" %02x", m.GetValue(i));
    std::printf("\n");
    // a = 0..9 repeating: a < 4.5 for i%10 in 0..4 -> bits 0-4, 10-14, 20-24, 30-31...
    // CHECK: mask: 1f 7c f0 c1
    Select(o, m, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, 128);
    std::printf("min:");
    for (int i = 0; i < 12; ++i) std::printf(" %g", static_cast<float>(o.GetValue(i)));
    std::printf(" | %g\n", static_cast<float>(o.GetValue(127)));
    // CHECK-NEXT: min: 0 1 2 3 4 4.5 4.5 4.5 4.5 4.5 0 1 | 4.5

    Compares(m, a, 7.0f, CMPMODE::GE, 64);
    std::printf("ge7: %02x %02x\n", m.GetValue(0), m.GetValue(1));
    // CHECK-NEXT: ge7: 80 03
    Select(o, m, a, -1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 16);
    std::printf("sel scalar:");
    for (int i = 0; i < 11; ++i) std::printf(" %g", static_cast<float>(o.GetValue(i)));
    std::printf("\n");
    // CHECK-NEXT: sel scalar: -1 -1 -1 -1 -1 -1 -1 7 8 9 -1

    // Mode 0: the 64 mask bits of repeat 0 are reused by repeat 1.
    Select(o, m, a, b, SELMODE::VSEL_CMPMASK_SPR, 128);
    std::printf("mode0: %g %g %g\n", static_cast<float>(o.GetValue(7)), static_cast<float>(o.GetValue(64 + 7)),
                static_cast<float>(o.GetValue(64 + 0)));
    // CHECK-NEXT: mode0: 7 1 4.5

    // half: 128 elements per 256 B; EQ/NE.
    LocalTensor<half> ha = ba.Get<half>(), hb = bb.Get<half>();
    for (int i = 0; i < 128; ++i) {
        ha.SetValue(i, half(static_cast<float>(i & 3)));
        hb.SetValue(i, half(1.0f));
    }
    Compare(m, ha, hb, CMPMODE::EQ, 128);
    std::printf("half eq: %02x %02x\n", m.GetValue(0), m.GetValue(15));
    // CHECK-NEXT: half eq: 22 22
    Compare(m, ha, hb, CMPMODE::NE, 128);
    std::printf("half ne: %02x\n", m.GetValue(0));
    // CHECK-NEXT: half ne: dd
}

int main() {
    // These kernels test single APIs and leave pipe synchronisation out.
    ascendc_sim::set_sync_check(false);
    ascendc_sim::launch("cmpsel_kernel", cmpsel_kernel, 1, ascendc_sim::profile("ascend910b"));
    return 0;
}
