// One kernel source on both models of Ascend C: the CPU emulation (sim/include) and the
// vendor's API implementation (the CANN headers) over autofuse's ISA model (sim/vendor).
// It exercises the behaviours where the two disagreed until sim was mended
// (docs/ascendc.md, "Differences the two paths revealed"), so both must print the same:
// - the pad register: a DataCopyPad with isPad leaves its value for later copies;
// - Sigmoid and Tanh, bit for bit (the vendor's step sequences);
// - the count forms of Add / Muls / Exp / Cast in counter mask mode, a mask-form Add with
//   strides, and ReduceSum / ReduceMax;
// - CreateVecIndex (count form) in int32, float and half.
// REQUIRES: vendor-headers
// RUN: %sim_cxx %s -o %t.sim && %t.sim | FileCheck %s
// RUN: %vendor_cxx %s -o %t.vendor && %t.vendor | FileCheck %s

#include <cstdio>
#include <cstring>

#include "kernel_operator.h"

using namespace AscendC;

template <class T>
static unsigned bits(T v) {
    unsigned u = 0;
    std::memcpy(&u, &v, sizeof(T));
    return u;
}

extern "C" __global__ __aicore__ void both_kernel(GM_ADDR src) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, bc, bt, bh;
    pipe.InitBuffer(ba, 1024);
    pipe.InitBuffer(bb, 1024);
    pipe.InitBuffer(bc, 1024);
    pipe.InitBuffer(bt, 1024);
    pipe.InitBuffer(bh, 1024);
    GlobalTensor<float> in;
    in.SetGlobalBuffer((__gm__ float*)src, 64);
    LocalTensor<float> a = ba.Get<float>(), b = bb.Get<float>(), c = bc.Get<float>();
    LocalTensor<uint8_t> tmp = bt.Get<uint8_t>();
    LocalTensor<half> h = bh.Get<half>();

    // The pad register.
    DataCopyPad(a, in[1], DataCopyExtParams(1, 5 * sizeof(float), 0, 0, 0), DataCopyPadExtParams<float>(true, 1, 1, 9.5f));
    PipeBarrier<PIPE_ALL>();
    DataCopyPad(b, in[20], DataCopyExtParams(1, 3 * sizeof(float), 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    PipeBarrier<PIPE_ALL>();
    std::printf("pad: %g %g %g %g | %g %g %g %g\n", (float)a.GetValue(0), (float)a.GetValue(1), (float)a.GetValue(6),
                (float)a.GetValue(7), (float)b.GetValue(0), (float)b.GetValue(2), (float)b.GetValue(3), (float)b.GetValue(7));
    // CHECK-LABEL: pad: 9.5 1 9.5 9.5 | 20 22 9.5 9.5

    // Sigmoid and Tanh, float and half.
    for (int i = 0; i < 64; ++i) a.SetValue(i, 0.37f * static_cast<float>(i) - 9.1f);
    PipeBarrier<PIPE_ALL>();
    Sigmoid(c, a, tmp, 64);
    PipeBarrier<PIPE_ALL>();
    unsigned sum = 0;
    for (int i = 0; i < 64; ++i) sum = sum * 31 + bits((float)c.GetValue(i));
    std::printf("sigmoid f32: %08x %08x %08x\n", bits((float)c.GetValue(3)), bits((float)c.GetValue(40)), sum);
    // CHECK: sigmoid f32: 39b19620 3f7f2573 00080ed4
    Tanh(c, a, tmp, 64);
    PipeBarrier<PIPE_ALL>();
    sum = 0;
    for (int i = 0; i < 64; ++i) sum = sum * 31 + bits((float)c.GetValue(i));
    std::printf("tanh f32: %08x %08x\n", bits((float)c.GetValue(30)), sum);
    // CHECK: tanh f32: 3f76ca83 26380687
    Cast(h, a, RoundMode::CAST_RINT, 64);
    PipeBarrier<PIPE_ALL>();
    Sigmoid(h, h, tmp, 64);
    PipeBarrier<PIPE_ALL>();
    sum = 0;
    for (int i = 0; i < 64; ++i) sum = sum * 31 + bits(h.GetValue(i));
    std::printf("sigmoid f16: %04x %08x\n", bits(h.GetValue(30)), sum);
    // CHECK: sigmoid f16: 3b0b b8c2b467

    // Count forms in counter mode, a strided mask form, reductions.
    for (int i = 0; i < 64; ++i) a.SetValue(i, static_cast<float>(i % 7) - 2.5f);
    PipeBarrier<PIPE_ALL>();
    Muls(b, a, 1.5f, 50);
    PipeBarrier<PIPE_V>();
    Add(c, a, b, 50);
    PipeBarrier<PIPE_V>();
    Exp(c, c, 37);
    PipeBarrier<PIPE_ALL>();
    std::printf("count: %g %g %g\n", (float)c.GetValue(0), (float)c.GetValue(36), (float)c.GetValue(45));
    // CHECK: count: 0.00193045 0.0235177 1.25
    Duplicate(c, 0.0f, 64);
    PipeBarrier<PIPE_ALL>();
    Add(c, a, b, 8, 2, BinaryRepeatParams(2, 1, 1, 4, 2, 2));
    PipeBarrier<PIPE_ALL>();
    std::printf("mask: %g %g %g %g %g\n", (float)c.GetValue(0), (float)c.GetValue(7), (float)c.GetValue(8),
                (float)c.GetValue(16), (float)c.GetValue(32));
    // CHECK: mask: -6.25 -6.25 0 0 -1.25
    ReduceSum(c, a, b, 50);
    PipeBarrier<PIPE_ALL>();
    std::printf("sum: %g\n", (float)c.GetValue(0));
    // CHECK: sum: 22
    ReduceMax(c, a, b, 50, true);
    PipeBarrier<PIPE_ALL>();
    float maxv = c.GetValue(0), idx_bits = c.GetValue(1);
    std::printf("max: %g at %u\n", maxv, bits(idx_bits));
    // CHECK: max: 3.5 at 6

    // CreateVecIndex: first + i, and the whole first 32 B block even for fewer elements.
    LocalTensor<int32_t> ia = ba.Get<int32_t>();
    Duplicate(ia, -1, 64);
    PipeBarrier<PIPE_ALL>();
    CreateVecIndex(ia, 3, 5);
    PipeBarrier<PIPE_ALL>();
    std::printf("index i32: %d %d %d %d\n", ia.GetValue(0), ia.GetValue(4), ia.GetValue(7), ia.GetValue(8));
    // CHECK: index i32: 3 7 10 -1
    CreateVecIndex(c, 2.5f, 200);
    PipeBarrier<PIPE_ALL>();
    std::printf("index f32: %g %g %g\n", (float)c.GetValue(0), (float)c.GetValue(71), (float)c.GetValue(199));
    // CHECK: index f32: 2.5 73.5 201.5
    CreateVecIndex(h, static_cast<half>(1.0f), 300);
    PipeBarrier<PIPE_ALL>();
    std::printf("index f16: %g %g\n", (float)h.GetValue(130), (float)h.GetValue(299));
    // CHECK: index f16: 131 300
}

int main() {
    ascendc_sim::GmBuffer<float> src(64);
    for (int i = 0; i < 64; ++i) src.data()[i] = static_cast<float>(i);
    ascendc_sim::launch("both_kernel", both_kernel, 1, ascendc_sim::profile("ascend910b"), src.addr());
    return 0;
}
