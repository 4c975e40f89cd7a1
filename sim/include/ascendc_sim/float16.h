// ascendc_sim/float16.h - the device's 16-bit floating-point storage types.
//
// Models `half` (IEEE 754 binary16) and `bfloat16_t` (the top 16 bits of an
// IEEE binary32) as host classes.  Conversions from float/double/integers round
// to nearest, ties to even (RNE), exactly like the hardware's default.  Arithmetic
// converts both operands to float, computes in float and rounds the result back:
// since float carries at least 2p+2 significand bits for both formats (p = 11 for
// half, 8 for bfloat16), the float intermediate does not cause double-rounding
// errors for + - * / and sqrt, so every operation is correctly rounded.
//
// The file also holds the exact "round a real number to a floating-point format
// with a given rounding direction" routine used by Cast (all RoundModes) and by
// the conversions that cannot go through float exactly (double, big integers).
#pragma once

#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace ascendc_sim::fp {

// ---------------------------------------------------------------------------
// Rounding of an exact value (held in long double, which on x86-64 has a 64-bit
// significand and therefore represents every float, double (53 bits), half,
// bfloat16 and 64-bit integer value exactly) to integers and to FP formats.
// ---------------------------------------------------------------------------

enum class Rnd : uint8_t {
    NearestEven,  // RINT: round half to even
    Floor,        // toward -inf
    Ceil,         // toward +inf
    NearestAway,  // ROUND: round half away from zero
    Trunc,        // toward zero
    Odd,          // round to odd (sticky rounding used by float->half CAST_ODD)
};

// Round an exact value to an integer-valued long double with direction `m`.
inline long double round_to_integer(long double q, Rnd m) {
    if (std::isnan(q) || std::isinf(q)) return q;
    switch (m) {
    case Rnd::NearestEven: {
        long double f = std::floor(q);
        long double d = q - f;  // exact: q and f are within one unit of each other
        if (d > 0.5L) return f + 1;
        if (d < 0.5L) return f;
        return std::fmod(f, 2.0L) == 0 ? f : f + 1;
    }
    case Rnd::Floor: return std::floor(q);
    case Rnd::Ceil: return std::ceil(q);
    case Rnd::NearestAway: return std::round(q);
    case Rnd::Trunc: return std::trunc(q);
    case Rnd::Odd: {
        long double t = std::trunc(q);
        if (t == q) return q;
        if (std::fmod(t, 2.0L) != 0) return t;
        return q > 0 ? t + 1 : t - 1;
    }
    }
    return q;
}

// A binary floating-point format: `mant_bits` significand bits including the
// implicit one, minimum normal exponent, largest finite value.
struct Format {
    int mant_bits;
    int emin;
    long double max_finite;
};
inline constexpr Format kHalfFormat{11, -14, 65504.0L};
inline constexpr Format kBf16Format{8, -126, 3.38953138925153547590470800371487866880e38L};
inline constexpr Format kFloatFormat{24, -126, 3.40282346638528859811704183484516925440e38L};

// Round exact value `x` to format `f` in direction `m`.  Overflow follows IEEE
// (directions that round away from the finite range produce inf) unless
// `saturate` is set, in which case the result is clamped to +-max_finite.
inline long double round_to_format(long double x, const Format& f, Rnd m, bool saturate = false) {
    if (std::isnan(x)) return x;
    if (std::isinf(x)) return saturate ? std::copysign(f.max_finite, x) : x;
    if (x == 0) return x;
    int e = 0;
    (void)std::frexp(x, &e);  // x = frac * 2^e, frac in [0.5, 1): leading bit has weight 2^(e-1)
    int lead = e - 1;
    if (lead < f.emin) lead = f.emin;  // subnormal range: fixed quantum
    int quantum_exp = lead - (f.mant_bits - 1);
    long double q = std::ldexp(x, -quantum_exp);  // exact scaling by a power of two
    long double r = round_to_integer(q, m);
    long double y = std::ldexp(r, quantum_exp);
    if (std::fabs(y) > f.max_finite) {
        if (saturate) return std::copysign(f.max_finite, x);
        bool to_inf = m == Rnd::NearestEven || m == Rnd::NearestAway ||
                      (m == Rnd::Floor && x < 0) || (m == Rnd::Ceil && x > 0);
        return to_inf ? std::copysign(std::numeric_limits<long double>::infinity(), x)
                      : std::copysign(f.max_finite, x);
    }
    if (y == 0) return std::copysign(0.0L, x);
    return y;
}

// ---------------------------------------------------------------------------
// Bit-level conversions (fast path used by every element operation).
// ---------------------------------------------------------------------------

constexpr uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }
constexpr float f32_from_bits(uint32_t u) { return std::bit_cast<float>(u); }

// binary32 -> binary16, round to nearest even.
constexpr uint16_t f32_to_f16_rne(float f) {
    uint32_t x = f32_bits(f);
    uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) {  // inf / NaN
        if (ax == 0x7f800000u) return sign | 0x7c00u;
        return static_cast<uint16_t>(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));  // quiet NaN
    }
    if (ax >= 0x477ff000u) return sign | 0x7c00u;  // |f| >= 65520 rounds to inf
    if (ax >= 0x38800000u) {                       // result is a normal half
        uint32_t e = (ax >> 23) - 112u;            // rebias 127 -> 15
        uint32_t mant = ax & 0x7fffffu;
        uint32_t h = (e << 10) | (mant >> 13);
        uint32_t rem = mant & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // carry may bump the exponent: correct
        return static_cast<uint16_t>(sign | h);
    }
    if (ax <= 0x33000000u) return sign;  // |f| <= 2^-25: rounds to (signed) zero, the tie goes to even 0
    // Subnormal half: value in units of 2^-24 is mant >> (126 - e).
    uint32_t e = ax >> 23;
    uint32_t mant = (ax & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - e;  // 14..24
    uint32_t h = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
}

// binary16 -> binary32 (exact).
constexpr float f16_to_f32(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu;
    uint32_t m = h & 0x3ffu;
    if (e == 0x1f) return f32_from_bits(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (m == 0) return f32_from_bits(sign);
        // Normalise the subnormal: shift until the implicit bit appears.
        int32_t exp = -14;
        while ((m & 0x400u) == 0) {
            m <<= 1;
            --exp;
        }
        m &= 0x3ffu;
        return f32_from_bits(sign | (static_cast<uint32_t>(exp + 127) << 23) | (m << 13));
    }
    return f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}

// binary32 -> bfloat16, round to nearest even (NaN stays a quiet NaN).
constexpr uint16_t f32_to_bf16_rne(float f) {
    uint32_t x = f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
    uint32_t lsb = (x >> 16) & 1u;
    x += 0x7fffu + lsb;  // overflow of the rounding carries into the exponent -> inf, as RNE requires
    return static_cast<uint16_t>(x >> 16);
}

constexpr float bf16_to_f32(uint16_t b) { return f32_from_bits(static_cast<uint32_t>(b) << 16); }

// ---------------------------------------------------------------------------
// The storage classes.
// ---------------------------------------------------------------------------

struct HalfTraits {
    static constexpr const char* name = "half";
    static constexpr const Format& format = kHalfFormat;
    static constexpr uint16_t from_float(float f) { return f32_to_f16_rne(f); }
    static constexpr float to_float(uint16_t b) { return f16_to_f32(b); }
};
struct Bf16Traits {
    static constexpr const char* name = "bfloat16_t";
    static constexpr const Format& format = kBf16Format;
    static constexpr uint16_t from_float(float f) { return f32_to_bf16_rne(f); }
    static constexpr float to_float(uint16_t b) { return bf16_to_f32(b); }
};

template <class Tr>
struct Fp16;

template <class U>
concept Arithmetic = std::is_arithmetic_v<U>;

template <class Tr>
struct Fp16 {
    uint16_t bits_;  // left uninitialised by default construction, like a builtin scalar

    Fp16() = default;

    // Implicit from every arithmetic type, as the device compiler allows
    // (`half h = 1.0f;`, `Duplicate<half>(dst, 0, n)`).  Values that are not
    // exactly representable in float go through the exact long-double path.
    template <Arithmetic U>
    constexpr Fp16(U v) : bits_(encode(v)) {}

    // Between the two 16-bit formats only explicitly (the device has no direct
    // half <-> bfloat16 conversion on 2201; go through float).
    template <class OtherTr>
        requires(!std::is_same_v<OtherTr, Tr>)
    explicit constexpr Fp16(Fp16<OtherTr> o) : bits_(Tr::from_float(static_cast<float>(o))) {}

    static constexpr Fp16 from_bits(uint16_t b) {
        Fp16 h{};
        h.bits_ = b;
        return h;
    }
    constexpr uint16_t bits() const { return bits_; }

    constexpr operator float() const { return Tr::to_float(bits_); }

    constexpr Fp16 operator-() const { return from_bits(static_cast<uint16_t>(bits_ ^ 0x8000u)); }
    constexpr Fp16 operator+() const { return *this; }

    constexpr Fp16& operator+=(Fp16 o) { return *this = Fp16(float(*this) + float(o)); }
    constexpr Fp16& operator-=(Fp16 o) { return *this = Fp16(float(*this) - float(o)); }
    constexpr Fp16& operator*=(Fp16 o) { return *this = Fp16(float(*this) * float(o)); }
    constexpr Fp16& operator/=(Fp16 o) { return *this = Fp16(float(*this) / float(o)); }

    // half (op) half -> half, correctly rounded (see file comment).
    friend constexpr Fp16 operator+(Fp16 a, Fp16 b) { return Fp16(float(a) + float(b)); }
    friend constexpr Fp16 operator-(Fp16 a, Fp16 b) { return Fp16(float(a) - float(b)); }
    friend constexpr Fp16 operator*(Fp16 a, Fp16 b) { return Fp16(float(a) * float(b)); }
    friend constexpr Fp16 operator/(Fp16 a, Fp16 b) { return Fp16(float(a) / float(b)); }
    friend constexpr bool operator==(Fp16 a, Fp16 b) { return float(a) == float(b); }
    friend constexpr bool operator!=(Fp16 a, Fp16 b) { return float(a) != float(b); }
    friend constexpr bool operator<(Fp16 a, Fp16 b) { return float(a) < float(b); }
    friend constexpr bool operator>(Fp16 a, Fp16 b) { return float(a) > float(b); }
    friend constexpr bool operator<=(Fp16 a, Fp16 b) { return float(a) <= float(b); }
    friend constexpr bool operator>=(Fp16 a, Fp16 b) { return float(a) >= float(b); }

    // Mixed with builtin arithmetic types.  These exact-match templates exist so
    // that `h + 1.0f` is not ambiguous between half+half and float+float:
    // with an integer the result stays 16-bit, with float/double it widens,
    // mirroring the usual arithmetic conversions of C++23 extended FP types.
    template <Arithmetic U>
    using Mixed = std::conditional_t<std::is_integral_v<U>, Fp16, std::conditional_t<std::is_same_v<U, double> || std::is_same_v<U, long double>, U, float>>;

#define ASCENDC_SIM_FP16_MIXED(op)                                                               \
    template <Arithmetic U>                                                                      \
    friend constexpr Mixed<U> operator op(Fp16 a, U b) {                                         \
        if constexpr (std::is_integral_v<U>) return Fp16(float(a) op static_cast<float>(b));     \
        else return static_cast<Mixed<U>>(float(a)) op static_cast<Mixed<U>>(b);                 \
    }                                                                                            \
    template <Arithmetic U>                                                                      \
    friend constexpr Mixed<U> operator op(U a, Fp16 b) {                                         \
        if constexpr (std::is_integral_v<U>) return Fp16(static_cast<float>(a) op float(b));     \
        else return static_cast<Mixed<U>>(a) op static_cast<Mixed<U>>(float(b));                 \
    }
    ASCENDC_SIM_FP16_MIXED(+)
    ASCENDC_SIM_FP16_MIXED(-)
    ASCENDC_SIM_FP16_MIXED(*)
    ASCENDC_SIM_FP16_MIXED(/)
#undef ASCENDC_SIM_FP16_MIXED

#define ASCENDC_SIM_FP16_CMP(op)                                                                                  \
    template <Arithmetic U>                                                                                       \
    friend constexpr bool operator op(Fp16 a, U b) { return static_cast<long double>(float(a)) op static_cast<long double>(b); } \
    template <Arithmetic U>                                                                                       \
    friend constexpr bool operator op(U a, Fp16 b) { return static_cast<long double>(a) op static_cast<long double>(float(b)); }
    ASCENDC_SIM_FP16_CMP(==)
    ASCENDC_SIM_FP16_CMP(!=)
    ASCENDC_SIM_FP16_CMP(<)
    ASCENDC_SIM_FP16_CMP(>)
    ASCENDC_SIM_FP16_CMP(<=)
    ASCENDC_SIM_FP16_CMP(>=)
#undef ASCENDC_SIM_FP16_CMP

private:
    template <Arithmetic U>
    static constexpr uint16_t encode(U v) {
        if constexpr (std::is_same_v<U, float>) {
            return Tr::from_float(v);
        } else if constexpr (std::is_same_v<U, bool>) {
            return Tr::from_float(v ? 1.0f : 0.0f);
        } else {
            // Fast path when the value is exactly a float; otherwise round the
            // exact value once (avoids double rounding through float).
            float f = static_cast<float>(v);
            if (static_cast<long double>(f) == static_cast<long double>(v) || std::isnan(f)) return Tr::from_float(f);
            long double r = round_to_format(static_cast<long double>(v), Tr::format, Rnd::NearestEven);
            return Tr::from_float(static_cast<float>(r));  // r is representable: exact
        }
    }
};

}  // namespace ascendc_sim::fp

// The device compiler provides these two names at global scope.
using half = ascendc_sim::fp::Fp16<ascendc_sim::fp::HalfTraits>;
using bfloat16_t = ascendc_sim::fp::Fp16<ascendc_sim::fp::Bf16Traits>;

static_assert(sizeof(half) == 2 && std::is_trivially_copyable_v<half>);
static_assert(sizeof(bfloat16_t) == 2 && std::is_trivially_copyable_v<bfloat16_t>);

template <class Tr>
class std::numeric_limits<ascendc_sim::fp::Fp16<Tr>> {
    using T = ascendc_sim::fp::Fp16<Tr>;
    static constexpr bool is_half = std::is_same_v<Tr, ascendc_sim::fp::HalfTraits>;

public:
    static constexpr bool is_specialized = true;
    static constexpr bool is_signed = true;
    static constexpr bool has_infinity = true;
    static constexpr bool has_quiet_NaN = true;
    static constexpr int digits = is_half ? 11 : 8;
    static constexpr T max() { return T::from_bits(is_half ? 0x7bff : 0x7f7f); }
    static constexpr T lowest() { return T::from_bits(is_half ? 0xfbff : 0xff7f); }
    static constexpr T min() { return T::from_bits(is_half ? 0x0400 : 0x0080); }
    static constexpr T denorm_min() { return T::from_bits(0x0001); }
    static constexpr T epsilon() { return T::from_bits(is_half ? 0x1400 : 0x3c00); }
    static constexpr T infinity() { return T::from_bits(is_half ? 0x7c00 : 0x7f80); }
    static constexpr T quiet_NaN() { return T::from_bits(is_half ? 0x7e00 : 0x7fc0); }
};
