// Reductions: WholeReduceSum/Max/Min (masks, index output orders), the half
// tree saturation, BlockReduceSum/Max (blocks without active lanes untouched),
// ReduceSum count form (tree per repeat, sequential across repeats) and
// ReduceMax/ReduceMin with index.
// RUN: %sim_cxx %s -o %t && %t | FileCheck %s

#include <cstdio>
#include <cstring>

#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void reduce_kernel() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bd, bw;
    pipe.InitBuffer(bs, 4096);
    pipe.InitBuffer(bd, 256);
    pipe.InitBuffer(bw, 256);
    LocalTensor<float> s = bs.Get<float>(), d = bd.Get<float>(), w = bw.Get<float>();
    for (int i = 0; i < 1024; ++i) s.SetValue(i, static_cast<float>(i));
    Duplicate(d, -1.0f, 64);

    WholeReduceSum(d, s, 64, 2, 1, 1, 8);
    std::printf("wrs: %g %g %g\n", static_cast<float>(d.GetValue(0)), static_cast<float>(d.GetValue(1)),
                static_cast<float>(d.GetValue(2)));
    // CHECK: wrs: 2016 6112 -1
    WholeReduceSum(d, s, 5, 1, 1, 1, 8);
    std::printf("wrs mask5: %g\n", static_cast<float>(d.GetValue(0)));
    // CHECK-NEXT: wrs mask5: 10

    // Max with (value, index) pairs; index stored as the raw bits of a float.
    s.SetValue(70, 5000.0f);
    s.SetValue(80, 5000.0f);
    WholeReduceMax(d, s, 64, 2, 1, 1, 8);
    float idx0 = d.GetValue(1), idx1 = d.GetValue(3);
    uint32_t i0, i1;
    std::memcpy(&i0, &idx0, 4);
    std::memcpy(&i1, &idx1, 4);
    std::printf("wrmax: %g@%u %g@%u\n", static_cast<float>(d.GetValue(0)), i0, static_cast<float>(d.GetValue(2)), i1);
    // CHECK-NEXT: wrmax: 63@63 5000@6
    WholeReduceMin(d, s, 64, 2, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
    std::printf("wrmin value-only: %g %g\n", static_cast<float>(d.GetValue(0)), static_cast<float>(d.GetValue(1)));
    // CHECK-NEXT: wrmin value-only: 0 64
    WholeReduceMax(d, s, 64, 2, 1, 1, 8, ReduceOrder::ORDER_ONLY_INDEX);
    LocalTensor<uint32_t> du = d.ReinterpretCast<uint32_t>();
    std::printf("wrmax index-only: %u %u\n", du.GetValue(0), du.GetValue(1));
    // CHECK-NEXT: wrmax index-only: 63 6

    // BlockReduce: 8 outputs per repeat; with mask 20 only blocks 0..2 are written.
    Duplicate(d, -1.0f, 64);
    BlockReduceSum(d, s, 1, 64, 1, 1, 8);
    std::printf("brs: %g %g %g\n", static_cast<float>(d.GetValue(0)), static_cast<float>(d.GetValue(1)),
                static_cast<float>(d.GetValue(7)));
    // CHECK-NEXT: brs: 28 92 476
    Duplicate(d, -1.0f, 64);
    BlockReduceMax(d, s, 1, 20, 1, 1, 8);
    std::printf("brmax:");
    for (int i = 0; i < 5; ++i) std::printf(" %g", static_cast<float>(d.GetValue(i)));
    std::printf("\n");
    // CHECK-NEXT: brmax: 7 15 19 -1 -1

    // half tree saturation: [60000, 60000, -30000, 100] -> 65504 + (-29904) = 35600,
    // rounded to half (ties to even) = 35584.  Without saturation: inf.
    LocalTensor<half> hs = bs.Get<half>(), hd = bd.Get<half>();
    Duplicate(hs, half(0), 128);
    hs.SetValue(0, half(60000.0f));
    hs.SetValue(1, half(60000.0f));
    hs.SetValue(2, half(-30000.0f));
    hs.SetValue(3, half(100.0f));
    WholeReduceSum(hd, hs, 128, 1, 1, 1, 8);
    std::printf("half sat: %g\n", static_cast<float>(hd.GetValue(0)));
    // CHECK-NEXT: half sat: 35584
    ascendc_sim::set_half_reduce_saturation(false);
    WholeReduceSum(hd, hs, 128, 1, 1, 1, 8);
    ascendc_sim::set_half_reduce_saturation(true);
    std::printf("half nosat: %g\n", static_cast<float>(hd.GetValue(0)));
    // CHECK-NEXT: half nosat: inf

    // ReduceSum count form: tree inside each repeat, repeats added in order.
    // Partial sums 1, 1e8, -1e8, 1: sequential gives ((1+1e8)-1e8)+1 = 1 in
    // float, a tree over the partials would give 0.
    Duplicate(s, 0.0f, 256);
    s.SetValue(0, 1.0f);
    s.SetValue(64, 1e8f);
    s.SetValue(128, -1e8f);
    s.SetValue(192, 1.0f);
    ReduceSum(d, s, w, 256);
    std::printf("reducesum seq: %g\n", static_cast<float>(d.GetValue(0)));
    // CHECK-NEXT: reducesum seq: 1
    Duplicate(s, 1.0f, 1000);
    ReduceSum(d, s, w, 1000);
    std::printf("reducesum 1000: %g\n", static_cast<float>(d.GetValue(0)));
    // CHECK-NEXT: reducesum 1000: 1000

    // ReduceMax / ReduceMin with index (first occurrence wins).
    for (int i = 0; i < 1000; ++i) s.SetValue(i, static_cast<float>((i * 37) % 101));
    s.SetValue(700, 500.0f);
    s.SetValue(900, 500.0f);
    s.SetValue(321, -4.0f);
    ReduceMax(d, s, w, 1000, true);
    float mi = d.GetValue(1);
    uint32_t mu;
    std::memcpy(&mu, &mi, 4);
    std::printf("reducemax: %g@%u\n", static_cast<float>(d.GetValue(0)), mu);
    // CHECK-NEXT: reducemax: 500@700
    ReduceMin(d, s, w, 1000, true);
    mi = d.GetValue(1);
    std::memcpy(&mu, &mi, 4);
    std::printf("reducemin: %g@%u\n", static_cast<float>(d.GetValue(0)), mu);
    // CHECK-NEXT: reducemin: -4@321
}

int main() {
    // These kernels test single APIs and leave pipe synchronisation out.
    ascendc_sim::set_sync_check(false);
    ascendc_sim::launch("reduce_kernel", reduce_kernel, 1, ascendc_sim::profile("ascend910b"));
    return 0;
}
