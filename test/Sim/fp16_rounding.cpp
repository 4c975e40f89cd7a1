// half / bfloat16_t storage types: round-to-nearest-even conversions with known
// bit patterns, overflow to inf, subnormals, correctly rounded arithmetic, and
// a cross-check of the fast bit-level float->half/bf16 conversions against the
// exact generic rounding routine on many float inputs.
// RUN: %sim_cxx %s -o %t && %t | FileCheck %s

#include <cstdio>
#include <cstring>
#include <random>

#include "kernel_operator.h"

static void show(const char* what, uint16_t bits) { std::printf("%s=0x%04x\n", what, bits); }

int main() {
    show("half(1/3)", half(1.0f / 3.0f).bits());
    // CHECK: half(1/3)=0x3555
    show("half(65504)", half(65504.0f).bits());
    // CHECK-NEXT: half(65504)=0x7bff
    show("half(65519.996)", half(65519.996f).bits());
    // CHECK-NEXT: half(65519.996)=0x7bff
    show("half(65520)", half(65520.0f).bits());
    // CHECK-NEXT: half(65520)=0x7c00
    show("half(-1e6)", half(-1e6f).bits());
    // CHECK-NEXT: half(-1e6)=0xfc00
    show("half(2^-24)", half(5.9604644775390625e-08f).bits());
    // CHECK-NEXT: half(2^-24)=0x0001
    show("half(2^-25)", half(2.98023223876953125e-08f).bits());
    // CHECK-NEXT: half(2^-25)=0x0000
    show("half(3*2^-26)", half(4.470348358154296875e-08f).bits());
    // CHECK-NEXT: half(3*2^-26)=0x0001
    show("half(1+2^-11)", half(1.00048828125f).bits());
    // CHECK-NEXT: half(1+2^-11)=0x3c00
    show("half(1+3*2^-11)", half(1.00146484375f).bits());
    // CHECK-NEXT: half(1+3*2^-11)=0x3c02
    show("half(2049)", half(2049).bits());
    // CHECK-NEXT: half(2049)=0x6800
    show("half(double 0.1)", half(0.1).bits());
    // CHECK-NEXT: half(double 0.1)=0x2e66
    std::printf("float(half 0x3555)=%.9g\n", static_cast<float>(half::from_bits(0x3555)));
    // CHECK-NEXT: float(half 0x3555)=0.333251953
    std::printf("float(half 0x0001)=%.9g\n", static_cast<float>(half::from_bits(0x0001)));
    // CHECK-NEXT: float(half 0x0001)=5.96046448e-08

    show("bf16(1.00390625)", bfloat16_t(1.00390625f).bits());
    // CHECK-NEXT: bf16(1.00390625)=0x3f80
    show("bf16(1.01171875)", bfloat16_t(1.01171875f).bits());
    // CHECK-NEXT: bf16(1.01171875)=0x3f82
    show("bf16(1.0078125)", bfloat16_t(1.0078125f).bits());
    // CHECK-NEXT: bf16(1.0078125)=0x3f81
    show("bf16(3.4e38)", bfloat16_t(3.4e38f).bits());
    // CHECK-NEXT: bf16(3.4e38)=0x7f80

    // Arithmetic: computed in float, rounded once.
    half a = half(1.0f), b = half(0.00048828125f);  // 2^-11: a + b is a tie -> even (1.0)
    show("1+2^-11", (a + b).bits());
    // CHECK-NEXT: 1+2^-11=0x3c00
    half c = half(60000.0f);
    show("60000+60000", (c + c).bits());
    // CHECK-NEXT: 60000+60000=0x7c00
    show("1/3 via div", (half(1) / half(3)).bits());
    // CHECK-NEXT: 1/3 via div=0x3555
    std::printf("mixed=%g %g\n", static_cast<double>(half(1.5f) + 1.25f), static_cast<float>(half(1.5f) * 2));
    // CHECK-NEXT: mixed=2.75 3

    // Fast conversions vs. the exact generic routine on random and edge floats.
    std::mt19937 rng(12345);
    long mism_h = 0, mism_b = 0, n = 0;
    auto check = [&](float f) {
        if (f != f) return;
        ++n;
        long double rh = ascendc_sim::fp::round_to_format(f, ascendc_sim::fp::kHalfFormat, ascendc_sim::fp::Rnd::NearestEven);
        long double rb = ascendc_sim::fp::round_to_format(f, ascendc_sim::fp::kBf16Format, ascendc_sim::fp::Rnd::NearestEven);
        if (static_cast<long double>(static_cast<float>(half(f))) != rh && !(rh == 0 && half(f) == 0)) ++mism_h;
        if (static_cast<long double>(static_cast<float>(bfloat16_t(f))) != rb && !(rb == 0 && bfloat16_t(f) == 0)) ++mism_b;
    };
    for (int i = 0; i < 2000000; ++i) {
        uint32_t u = rng();
        float f;
        std::memcpy(&f, &u, 4);
        check(f);
        // Dense sampling of the half range including ties and subnormals.
        u = 0x33000000u + (rng() % (0x47800000u - 0x33000000u));
        std::memcpy(&f, &u, 4);
        check(f);
        check(-f);
    }
    for (uint32_t h = 0; h < 0x7c00; ++h) {  // every finite half and its midpoints
        float v = static_cast<float>(half::from_bits(static_cast<uint16_t>(h)));
        float next = static_cast<float>(half::from_bits(static_cast<uint16_t>(h + 1)));
        check(v);
        check((v + next) / 2);
    }
    std::printf("checked=%s mismatches_half=%ld mismatches_bf16=%ld\n", n > 6000000 ? "many" : "few", mism_h, mism_b);
    // CHECK-NEXT: checked=many mismatches_half=0 mismatches_bf16=0
    return 0;
}
