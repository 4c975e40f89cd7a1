// Cast with every RoundMode, saturation, and the supported pairs of 2201.
// RUN: %sim_cxx %s -o %t && %t | FileCheck %s

#include <cstdio>

#include "kernel_operator.h"

using namespace AscendC;

template <class T>
static void dump(const char* tag, const LocalTensor<T>& t, uint32_t n) {
    std::printf("%s:", tag);
    for (uint32_t i = 0; i < n; ++i) {
        if constexpr (std::is_integral_v<T>) std::printf(" %lld", static_cast<long long>(t.GetValue(i)));
        else std::printf(" %.9g", static_cast<double>(static_cast<float>(t.GetValue(i))));
    }
    std::printf("\n");
}

extern "C" __global__ __aicore__ void cast_kernel() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b0, b1;
    pipe.InitBuffer(b0, 256);
    pipe.InitBuffer(b1, 256);
    LocalTensor<float> f = b0.Get<float>();
    const float vals[8] = {4194304.5f, -1.5f, 0.5f, 2.5f, -2.5f, 1.7f, -1e9f, 65536.0f};
    for (int i = 0; i < 8; ++i) f.SetValue(i, vals[i]);

    LocalTensor<int16_t> s16 = b1.Get<int16_t>();
    Cast(s16, f, RoundMode::CAST_RINT, 8);
    dump("f32->i16 RINT ", s16, 8);
    // CHECK: f32->i16 RINT : 32767 -2 0 2 -2 2 -32768 32767
    Cast(s16, f, RoundMode::CAST_ROUND, 8);
    dump("f32->i16 ROUND", s16, 8);
    // CHECK-NEXT: f32->i16 ROUND: 32767 -2 1 3 -3 2 -32768 32767
    Cast(s16, f, RoundMode::CAST_FLOOR, 8);
    dump("f32->i16 FLOOR", s16, 8);
    // CHECK-NEXT: f32->i16 FLOOR: 32767 -2 0 2 -3 1 -32768 32767
    Cast(s16, f, RoundMode::CAST_CEIL, 8);
    dump("f32->i16 CEIL ", s16, 8);
    // CHECK-NEXT: f32->i16 CEIL : 32767 -1 1 3 -2 2 -32768 32767
    Cast(s16, f, RoundMode::CAST_TRUNC, 8);
    dump("f32->i16 TRUNC", s16, 8);
    // CHECK-NEXT: f32->i16 TRUNC: 32767 -1 0 2 -2 1 -32768 32767

    LocalTensor<int32_t> s32 = b1.Get<int32_t>();
    Cast(s32, f, RoundMode::CAST_RINT, 8);
    dump("f32->i32 RINT ", s32, 8);
    // CHECK-NEXT: f32->i32 RINT : 4194304 -2 0 2 -2 2 -1000000000 65536

    // float -> float with an integral rounding mode (floor/ceil/round ops).
    LocalTensor<float> g = b1.Get<float>();
    Cast(g, f, RoundMode::CAST_CEIL, 8);
    dump("f32->f32 CEIL ", g, 8);
    // CHECK-NEXT: f32->f32 CEIL : 4194305 -1 1 3 -2 2 -1e+09 65536

    // float -> half: RINT/ODD/TRUNC; RINT overflows to +-inf (IEEE, the Inf/NaN mode of A2/A3).
    f.SetValue(0, 1.00048828125f);   // 1 + 2^-11: tie
    f.SetValue(1, 1.000732421875f);  // 1 + 1.5*2^-11
    f.SetValue(2, 70000.0f);
    f.SetValue(3, -1e30f);
    LocalTensor<half> h = b1.Get<half>();
    Cast(h, f, RoundMode::CAST_RINT, 8);
    std::printf("f32->f16 RINT: %04x %04x %04x %04x\n", h.GetValue(0).bits(), h.GetValue(1).bits(), h.GetValue(2).bits(),
                h.GetValue(3).bits());
    // CHECK-NEXT: f32->f16 RINT: 3c00 3c01 7c00 fc00
    Cast(h, f, RoundMode::CAST_ODD, 8);
    std::printf("f32->f16 ODD: %04x %04x\n", h.GetValue(0).bits(), h.GetValue(1).bits());
    // CHECK-NEXT: f32->f16 ODD: 3c01 3c01
    Cast(h, f, RoundMode::CAST_NONE, 8);
    std::printf("f32->f16 NONE: %04x\n", h.GetValue(0).bits());
    // CHECK-NEXT: f32->f16 NONE: 3c00

    // float -> bfloat16 -> float.
    f.SetValue(0, 1.00390625f);
    LocalTensor<bfloat16_t> bf = b1.Get<bfloat16_t>();
    Cast(bf, f, RoundMode::CAST_RINT, 8);
    std::printf("f32->bf16 RINT: %04x\n", bf.GetValue(0).bits());
    // CHECK-NEXT: f32->bf16 RINT: 3f80
    Cast(bf, f, RoundMode::CAST_CEIL, 8);
    std::printf("f32->bf16 CEIL: %04x\n", bf.GetValue(0).bits());
    // CHECK-NEXT: f32->bf16 CEIL: 3f81
    Cast(f, bf, RoundMode::CAST_NONE, 8);
    dump("bf16->f32", f, 1);
    // CHECK-NEXT: bf16->f32: 1.0078125

    // int32 -> int16 saturates; half -> int32 ROUND; int16 -> float.
    for (int i = 0; i < 8; ++i) s32.SetValue(i, i == 0 ? 2147483647 : -40000 * i);
    LocalTensor<int16_t> s16b = b0.Get<int16_t>();
    Cast(s16b, s32, RoundMode::CAST_NONE, 8);
    dump("i32->i16", s16b, 3);
    // CHECK-NEXT: i32->i16: 32767 -32768 -32768
    LocalTensor<half> hh = b0.Get<half>();
    hh.SetValue(0, half(-2.5f));
    hh.SetValue(1, half(2.5f));
    Cast(s32, hh, RoundMode::CAST_ROUND, 2);
    dump("f16->i32 ROUND", s32, 2);
    // CHECK-NEXT: f16->i32 ROUND: -3 3
    Cast(s32, hh, RoundMode::CAST_RINT, 2);
    dump("f16->i32 RINT", s32, 2);
    // CHECK-NEXT: f16->i32 RINT: -2 2
    LocalTensor<uint8_t> u8 = b1.Get<uint8_t>();
    hh.SetValue(0, half(300.0f));
    hh.SetValue(1, half(-3.0f));
    Cast(u8, hh, RoundMode::CAST_NONE, 32);
    dump("f16->u8", u8, 2);
    // CHECK-NEXT: f16->u8: 255 0

    // int32 -> half only via SetDeqScale.
    s32.SetValue(0, 3);
    s32.SetValue(1, 4097);
    SetDeqScale(0.5f);
    Cast(hh, s32, RoundMode::CAST_NONE, 8);
    dump("i32->f16 deq", hh, 2);
    // CHECK-NEXT: i32->f16 deq: 1.5 2048
}

int main() {
    // These kernels test single APIs and leave pipe synchronisation out.
    ascendc_sim::set_sync_check(false);
    ascendc_sim::launch("cast_kernel", cast_kernel, 1, ascendc_sim::profile("ascend910b"));
    return 0;
}
