// af_isa/fp16.h - `half` and `bfloat16_t` as host classes, as CPU-debug mode has them
// (fact sheet 7.2: half is the class float16::Fp16T, bfloat16_t is bfloat16::Bf16T).
//
// C++17 (the vendor headers do not compile as C++20: they declare constructors as
// `LocalTensor<T>(...)`), so this is a separate small model from sim/'s C++20 one,
// with the same numerics: conversions from float round to nearest even, arithmetic
// goes through float and rounds back (correctly rounded for + - * /, since float has
// more than 2p+2 significand bits for both formats).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace af_isa {

inline uint32_t f32_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float f32_from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// binary32 -> binary16, round to nearest even; overflow to inf, NaN stays quiet NaN.
inline uint16_t f32_to_f16_rne(float f) {
    const uint32_t x = f32_bits(f);
    const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    const uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return ax == 0x7f800000u ? sign | 0x7c00u : static_cast<uint16_t>(sign | 0x7e00u);
    if (ax >= 0x477ff000u) return sign | 0x7c00u;
    if (ax >= 0x38800000u) {
        uint32_t h = (((ax >> 23) - 112u) << 10) | ((ax & 0x7fffffu) >> 13);
        const uint32_t rem = ax & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
        return static_cast<uint16_t>(sign | h);
    }
    if (ax <= 0x33000000u) return sign;
    const uint32_t mant = (ax & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - (ax >> 23);
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
}

inline float f16_to_f32(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu;
    uint32_t m = h & 0x3ffu;
    if (e == 0x1f) return f32_from_bits(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (m == 0) return f32_from_bits(sign);
        int32_t exp = -14;
        while ((m & 0x400u) == 0) {
            m <<= 1;
            --exp;
        }
        return f32_from_bits(sign | (static_cast<uint32_t>(exp + 127) << 23) | ((m & 0x3ffu) << 13));
    }
    return f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}

inline uint16_t f32_to_bf16_rne(float f) {
    uint32_t x = f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}
inline float bf16_to_f32(uint16_t b) { return f32_from_bits(static_cast<uint32_t>(b) << 16); }

struct HalfTr {
    static uint16_t enc(float f) { return f32_to_f16_rne(f); }
    static float dec(uint16_t b) { return f16_to_f32(b); }
};
struct Bf16Tr {
    static uint16_t enc(float f) { return f32_to_bf16_rne(f); }
    static float dec(uint16_t b) { return bf16_to_f32(b); }
};

template <class U>
using IfArith = std::enable_if_t<std::is_arithmetic_v<U>, int>;

template <class Tr>
struct Fp16 {
    uint16_t val;

    Fp16() = default;
    template <class U, IfArith<U> = 0>
    Fp16(U v) : val(Tr::enc(static_cast<float>(v))) {}
    template <class O, std::enable_if_t<!std::is_same_v<O, Tr>, int> = 0>
    explicit Fp16(Fp16<O> o) : val(Tr::enc(o.ToFloat())) {}

    static Fp16 FromBits(uint16_t b) {
        Fp16 h;
        h.val = b;
        return h;
    }
    float ToFloat() const { return Tr::dec(val); }
    operator float() const { return Tr::dec(val); }

    Fp16 operator-() const { return FromBits(static_cast<uint16_t>(val ^ 0x8000u)); }
    Fp16& operator+=(Fp16 o) { return *this = Fp16(ToFloat() + o.ToFloat()); }
    Fp16& operator-=(Fp16 o) { return *this = Fp16(ToFloat() - o.ToFloat()); }
    Fp16& operator*=(Fp16 o) { return *this = Fp16(ToFloat() * o.ToFloat()); }
    Fp16& operator/=(Fp16 o) { return *this = Fp16(ToFloat() / o.ToFloat()); }
    friend Fp16 operator+(Fp16 a, Fp16 b) { return Fp16(a.ToFloat() + b.ToFloat()); }
    friend Fp16 operator-(Fp16 a, Fp16 b) { return Fp16(a.ToFloat() - b.ToFloat()); }
    friend Fp16 operator*(Fp16 a, Fp16 b) { return Fp16(a.ToFloat() * b.ToFloat()); }
    friend Fp16 operator/(Fp16 a, Fp16 b) { return Fp16(a.ToFloat() / b.ToFloat()); }
    friend bool operator==(Fp16 a, Fp16 b) { return a.ToFloat() == b.ToFloat(); }
    friend bool operator!=(Fp16 a, Fp16 b) { return a.ToFloat() != b.ToFloat(); }
    friend bool operator<(Fp16 a, Fp16 b) { return a.ToFloat() < b.ToFloat(); }
    friend bool operator>(Fp16 a, Fp16 b) { return a.ToFloat() > b.ToFloat(); }
    friend bool operator<=(Fp16 a, Fp16 b) { return a.ToFloat() <= b.ToFloat(); }
    friend bool operator>=(Fp16 a, Fp16 b) { return a.ToFloat() >= b.ToFloat(); }

    // Mixed with builtin types: exact-match templates so that `h + 1.0f` is not
    // ambiguous; integers keep the 16-bit type, floating types widen.
    template <class U>
    using Mixed = std::conditional_t<std::is_integral_v<U>, Fp16, std::conditional_t<std::is_same_v<U, double>, double, float>>;
#define AF_FP16_MIXED(op)                                                                          \
    template <class U, IfArith<U> = 0>                                                             \
    friend Mixed<U> operator op(Fp16 a, U b) {                                                     \
        return Mixed<U>(static_cast<Mixed<U>>(a.ToFloat()) op static_cast<Mixed<U>>(b));           \
    }                                                                                              \
    template <class U, IfArith<U> = 0>                                                             \
    friend Mixed<U> operator op(U a, Fp16 b) {                                                     \
        return Mixed<U>(static_cast<Mixed<U>>(a) op static_cast<Mixed<U>>(b.ToFloat()));           \
    }
    AF_FP16_MIXED(+)
    AF_FP16_MIXED(-)
    AF_FP16_MIXED(*)
    AF_FP16_MIXED(/)
#undef AF_FP16_MIXED
#define AF_FP16_CMP(op)                                                                                        \
    template <class U, IfArith<U> = 0>                                                                         \
    friend bool operator op(Fp16 a, U b) { return static_cast<double>(a.ToFloat()) op static_cast<double>(b); } \
    template <class U, IfArith<U> = 0>                                                                         \
    friend bool operator op(U a, Fp16 b) { return static_cast<double>(a) op static_cast<double>(b.ToFloat()); }
    AF_FP16_CMP(==)
    AF_FP16_CMP(!=)
    AF_FP16_CMP(<)
    AF_FP16_CMP(>)
    AF_FP16_CMP(<=)
    AF_FP16_CMP(>=)
#undef AF_FP16_CMP
};

}  // namespace af_isa

using half = af_isa::Fp16<af_isa::HalfTr>;
using bfloat16_t = af_isa::Fp16<af_isa::Bf16Tr>;
static_assert(sizeof(half) == 2 && std::is_trivially_copyable_v<half>);
