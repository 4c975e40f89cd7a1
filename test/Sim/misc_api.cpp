// Remaining API surface: chip profiles, GM registration through launch
// arguments, half kernels, fused helpers, Copy, high-level activations,
// tensor views/reinterpretation, static LocalTensor construction.
// RUN: %sim_cxx %s -o %t && %t | FileCheck %s

#include <cmath>
#include <cstdio>
#include <vector>

#include "kernel_operator.h"

using namespace AscendC;

struct Tiling {
    uint32_t n;
    float alpha;
};

// y = alpha * x + y on half data, one tile per block, tiling passed by value.
extern "C" __global__ __aicore__ void axpy_half(GM_ADDR x, GM_ADDR y, Tiling t) {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> qx, qy;
    pipe.InitBuffer(qx, 1, t.n * sizeof(half));
    pipe.InitBuffer(qy, 1, t.n * sizeof(half));
    GlobalTensor<half> xg, yg;
    xg.SetGlobalBuffer((__gm__ half*)x + GetBlockIdx() * t.n, t.n);
    yg.SetGlobalBuffer((__gm__ half*)y + GetBlockIdx() * t.n, t.n);
    LocalTensor<half> lx = qx.AllocTensor<half>(), ly = qy.AllocTensor<half>();
    DataCopy(lx, xg, t.n);
    DataCopy(ly, yg, t.n);
    qx.EnQue(lx);
    qy.EnQue(ly);
    lx = qx.DeQue<half>();
    ly = qy.DeQue<half>();
    Axpy(ly, lx, half(t.alpha), t.n);
    DataCopy(yg, ly, t.n);
    qx.FreeTensor(lx);
    qy.FreeTensor(ly);
}

extern "C" __global__ __aicore__ void misc_kernel() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, bc, bt;
    pipe.InitBuffer(ba, 1024);
    pipe.InitBuffer(bb, 1024);
    pipe.InitBuffer(bc, 1024);
    pipe.InitBuffer(bt, 1024);
    LocalTensor<float> a = ba.Get<float>(), b = bb.Get<float>(), c = bc.Get<float>();
    LocalTensor<uint8_t> tmp = bt.Get<uint8_t>();
    for (int i = 0; i < 8; ++i) a.SetValue(i, 0.5f * static_cast<float>(i) - 1.5f);

    Sigmoid(c, a, tmp, 8);
    std::printf("sigmoid: %.6f %.6f\n", static_cast<float>(c.GetValue(3)), static_cast<float>(c.GetValue(7)));
    // CHECK: sigmoid: 0.500000 0.880797
    Tanh(c, a, 8);
    std::printf("tanh: %.6f\n", static_cast<float>(c.GetValue(7)));
    // CHECK-NEXT: tanh: 0.964028
    Erf(c, a, tmp, 8);
    std::printf("erf: %.6f\n", static_cast<float>(c.GetValue(5)));
    // CHECK-NEXT: erf: 0.842701
    Gelu(c, a, 8);
    std::printf("gelu: %.6f\n", static_cast<float>(c.GetValue(5)));
    // CHECK-NEXT: gelu: 0.841192
    Silu(c, a, 8);
    std::printf("silu: %.6f\n", static_cast<float>(c.GetValue(5)));
    // CHECK-NEXT: silu: 0.731059

    // FusedMulAdd: c = a * c + b ; MulAddDst: c += a * b.
    Duplicate(b, 1.0f, 8);
    Duplicate(c, 2.0f, 8);
    FusedMulAdd(c, a, b, 8);
    std::printf("fma: %g %g\n", static_cast<float>(c.GetValue(0)), static_cast<float>(c.GetValue(7)));
    // CHECK-NEXT: fma: -2 5
    MulAddDst(c, a, b, 8);
    std::printf("muladddst: %g\n", static_cast<float>(c.GetValue(7)));
    // CHECK-NEXT: muladddst: 7

    // Copy, mask form: first 4 lanes of 2 repeats, source repeats 1 block apart.
    Duplicate(c, 0.0f, 256);
    for (int i = 0; i < 64; ++i) a.SetValue(i, static_cast<float>(i));
    Copy(c, a, 4, 2, CopyRepeatParams(1, 1, 8, 1));
    std::printf("copy: %g %g %g %g\n", static_cast<float>(c.GetValue(3)), static_cast<float>(c.GetValue(4)),
                static_cast<float>(c.GetValue(64)), static_cast<float>(c.GetValue(67)));
    // CHECK-NEXT: copy: 3 0 8 11

    // Views, reinterpretation, sizes.
    LocalTensor<float> v = a[8];
    LocalTensor<uint32_t> u = v.ReinterpretCast<uint32_t>();
    std::printf("view: size=%u first=%g bits=%08x\n", v.GetSize(), static_cast<float>(v.GetValue(0)), u.GetValue(0));
    // CHECK-NEXT: view: size=248 first=8 bits=41000000
    LocalTensor<half> h = a.ReinterpretCast<half>();
    h.SetSize(16);
    std::printf("half view: size=%u pos=%d\n", h.GetSize(), static_cast<int>(h.GetPosition() == TPosition::VECCALC));
    // CHECK-NEXT: half view: size=16 pos=1
    LocalTensor<float> off = bb.GetWithOffset<float>(8, 64);
    off.SetValue(0, 42.0f);
    std::printf("offset: %g\n", static_cast<float>(b.GetValue(16)));
    // CHECK-NEXT: offset: 42

    // 9.x static tensor at an explicit UB address (after the pipe's 4 KiB).
    LocalTensor<float> s(TPosition::VECCALC, 8192, 64);
    Duplicate(s, 9.0f, 64);
    std::printf("static: %g\n", static_cast<float>(s.GetValue(63)));
    // CHECK-NEXT: static: 9
}

int main() {
    // These kernels test single APIs and leave pipe synchronisation out.
    ascendc_sim::set_sync_check(false);
    ascendc_sim::launch("misc_kernel", misc_kernel, 1, ascendc_sim::profile("ascend910b"));

    for (const char* n : {"ascend910b", "ascend910_93", "ascend950"}) {
        const ascendc_sim::ChipProfile& p = ascendc_sim::profile(n);
        std::printf("%s: arch=%u ub=%u usable=%u aiv=%u verified=%d\n", p.name, p.npu_arch, p.ub_bytes_total,
                    p.ub_bytes_usable, p.vector_cores, p.core_counts_verified);
    }
    // CHECK: ascend910b: arch=2201 ub=196608 usable=188160 aiv=48 verified=1
    // CHECK-NEXT: ascend910_93: arch=2201 ub=196608 usable=188160 aiv=48 verified=0
    // CHECK-NEXT: ascend950: arch=3510 ub=262144 usable=253952 aiv=48 verified=0

    const uint32_t n = 32, blocks = 3;
    std::vector<half> x(n * blocks), y(n * blocks);
    for (uint32_t i = 0; i < n * blocks; ++i) {
        x[i] = half(static_cast<float>(i));
        y[i] = half(0.25f);
    }
    // Allocations declared through the arguments (ascendc_sim::gm).
    auto st = ascendc_sim::launch("axpy_half", axpy_half, blocks, ascendc_sim::profile("ascend910b"),
                                  ascendc_sim::gm(x.data(), x.size() * sizeof(half)),
                                  ascendc_sim::gm(y.data(), y.size() * sizeof(half)), Tiling{n, 0.5f});
    std::printf("axpy: %g %g %g read=%llu written=%llu\n", static_cast<float>(y[0]), static_cast<float>(y[3]),
                static_cast<float>(y[95]), static_cast<unsigned long long>(st.gm_bytes_read),
                static_cast<unsigned long long>(st.gm_bytes_written));
    // CHECK-NEXT: axpy: 0.25 1.75 47.75 read=384 written=192
    ascendc_sim::clear_gm_registry();
    return 0;
}
