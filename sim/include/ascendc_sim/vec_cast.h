// ascendc_sim/vec_cast.h - Cast between element types (fact sheet 4.4).
//
// Each source value is converted exactly to long double (every supported type
// fits), then rounded once to the destination with the requested RoundMode:
// RINT = half to even, ROUND = half away from zero, FLOOR, CEIL, TRUNC,
// ODD = round to odd, NONE = exact when possible otherwise RINT.  Out-of-range
// integer results saturate (fact sheet: "overflow is handled in saturation mode"):
// they clamp to their range, NaN -> 0.  Floating results overflow as IEEE 754 says
// (RINT to +-inf, TRUNC to +-max finite): A2/A3 run in the Inf/NaN overflow mode by
// default (aclrtFloatOverflowMode; saturation only on older Atlas products), which
// the vendor path's vconv_f322f16 showed (docs/ascendc.md, difference 7).
//
// On 2201 only the (source, destination, mode) combinations of the sheet's
// table are accepted; everything else (e.g. half -> bfloat16_t) is a violation.
// int32 -> half exists only through SetDeqScale (mode ignored, scale applied).
// float -> float rounds to an integral value with the given mode (floor/ceil/...).
// On 3510 any pair of supported storage types is accepted (not gated further).
#pragma once

#include "vec_common.h"

namespace ascendc_sim::detail {

inline const char* round_name(AscendC::RoundMode m) {
    switch (m) {
    case AscendC::RoundMode::CAST_NONE: return "CAST_NONE";
    case AscendC::RoundMode::CAST_RINT: return "CAST_RINT";
    case AscendC::RoundMode::CAST_FLOOR: return "CAST_FLOOR";
    case AscendC::RoundMode::CAST_CEIL: return "CAST_CEIL";
    case AscendC::RoundMode::CAST_ROUND: return "CAST_ROUND";
    case AscendC::RoundMode::CAST_TRUNC: return "CAST_TRUNC";
    case AscendC::RoundMode::CAST_ODD: return "CAST_ODD";
    case AscendC::RoundMode::CAST_HYBRID: return "CAST_HYBRID";
    }
    return "?";
}

constexpr uint32_t rbit(AscendC::RoundMode m) { return 1u << static_cast<unsigned>(m); }
inline constexpr uint32_t kRNone = rbit(AscendC::RoundMode::CAST_NONE);
inline constexpr uint32_t kR5 = rbit(AscendC::RoundMode::CAST_RINT) | rbit(AscendC::RoundMode::CAST_FLOOR) |
                                rbit(AscendC::RoundMode::CAST_CEIL) | rbit(AscendC::RoundMode::CAST_ROUND) |
                                rbit(AscendC::RoundMode::CAST_TRUNC);
inline constexpr uint32_t kRAll = 0xffu;

// Allowed round modes for src -> dst on arch 2201; 0 = conversion not supported.
inline uint32_t cast_modes_2201(DT s, DT d) {
    auto is = [&](DT a, DT b) { return s == a && d == b; };
    if (is(DT::I8, DT::F16) || is(DT::U8, DT::F16)) return kRNone;
    if (is(DT::I16, DT::F16)) return kR5 | kRNone;
    if (is(DT::I16, DT::F32)) return kRNone;
    if (is(DT::F16, DT::I8) || is(DT::F16, DT::U8)) return kR5 | kRNone;
    if (is(DT::F16, DT::I16) || is(DT::F16, DT::I32)) return kR5;
    if (is(DT::F16, DT::F32)) return kRNone;
    if (is(DT::BF16, DT::I32)) return kR5;
    if (is(DT::BF16, DT::F32)) return kRNone;
    if (is(DT::I32, DT::I16)) return kRNone;
    if (is(DT::I32, DT::F32)) return kR5 | kRNone;
    if (is(DT::I32, DT::I64)) return kRNone;
    if (is(DT::I32, DT::F16)) return kRAll;  // via SetDeqScale; round mode ignored
    if (is(DT::F32, DT::I16) || is(DT::F32, DT::I32) || is(DT::F32, DT::I64) || is(DT::F32, DT::BF16)) return kR5;
    if (is(DT::F32, DT::F16)) return kR5 | rbit(AscendC::RoundMode::CAST_ODD) | kRNone;
    if (is(DT::F32, DT::F32)) return kR5;
    if (is(DT::I64, DT::I32)) return kRNone;
    if (is(DT::I64, DT::F32)) return kR5;
    return 0;
}

inline std::string round_list(uint32_t modes) {
    std::string s;
    for (unsigned i = 0; i < 8; ++i)
        if (modes & (1u << i)) {
            if (!s.empty()) s += ", ";
            s += round_name(static_cast<AscendC::RoundMode>(i));
        }
    return s;
}

inline Rnd to_rnd(AscendC::RoundMode m) {
    switch (m) {
    case AscendC::RoundMode::CAST_FLOOR: return Rnd::Floor;
    case AscendC::RoundMode::CAST_CEIL: return Rnd::Ceil;
    case AscendC::RoundMode::CAST_ROUND: return Rnd::NearestAway;
    case AscendC::RoundMode::CAST_TRUNC: return Rnd::Trunc;
    case AscendC::RoundMode::CAST_ODD: return Rnd::Odd;
    default: return Rnd::NearestEven;  // NONE, RINT, HYBRID (stochastic: modelled as RINT)
    }
}

template <class S>
inline long double exact_value(S v) {
    if constexpr (std::is_same_v<S, half> || std::is_same_v<S, bfloat16_t>) return static_cast<float>(v);
    else return static_cast<long double>(v);
}

template <class D>
inline D convert_value(long double x, Rnd r) {
    if constexpr (std::is_integral_v<D>) {
        if (std::isnan(x)) return D(0);
        long double y = round_to_integer(x, r);
        constexpr long double lo = static_cast<long double>(std::numeric_limits<D>::min());
        constexpr long double hi = static_cast<long double>(std::numeric_limits<D>::max());
        if (y < lo) return std::numeric_limits<D>::min();
        if (y > hi) return std::numeric_limits<D>::max();
        return static_cast<D>(y);
    } else if constexpr (std::is_same_v<D, double>) {
        return static_cast<double>(x);
    } else {
        const Format& f = std::is_same_v<D, half>         ? kHalfFormat
                          : std::is_same_v<D, bfloat16_t> ? kBf16Format
                                                          : kFloatFormat;
        long double y = round_to_format(x, f, r);
        return static_cast<D>(static_cast<float>(y));  // y is representable: exact
    }
}

}  // namespace ascendc_sim::detail

namespace AscendC {

// T = destination type, U = source type.
template <typename T, typename U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint32_t count,
                 std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    constexpr d::DT ds = d::dtype_of<U>(), dd = d::dtype_of<T>();
    d::check_dtype<U>("Cast", d::kAllStorage & ~d::dbit(d::DT::BOOL), d::kAllStorage & ~d::dbit(d::DT::BOOL), loc,
                      "source type");
    d::check_dtype<T>("Cast", d::kAllStorage & ~d::dbit(d::DT::BOOL), d::kAllStorage & ~d::dbit(d::DT::BOOL), loc,
                      "destination type");
    uint32_t modes = d::arch() == 3510 ? (d::kRAll & ~d::rbit(RoundMode::CAST_HYBRID)) : d::cast_modes_2201(ds, dd);
    if (modes == 0)
        d::violation("Cast",
                     d::fmt("conversion %s -> %s is not supported on %s (arch %u)", d::dt_name(ds), d::dt_name(dd),
                            d::prof().name, d::arch()),
                     loc);
    if (!(modes & d::rbit(roundMode)))
        d::violation("Cast",
                     d::fmt("round mode %s is not supported for %s -> %s on arch %u (supported: %s)",
                            d::round_name(roundMode), d::dt_name(ds), d::dt_name(dd), d::arch(),
                            d::round_list(modes).c_str()),
                     loc);
    if (count == 0) return;
    const uint64_t db = static_cast<uint64_t>(count) * sizeof(T), sb = static_cast<uint64_t>(count) * sizeof(U);
    d::check_operand("Cast", dst.meta_, "dst", db, sizeof(T), 32, loc);
    d::check_operand("Cast", src.meta_, "src", sb, sizeof(U), 32, loc);
    // In-place narrowing or same-size conversion is fine; a widening cast over
    // its own source, or any partial overlap, produces wrong data on device.
    if (dst.meta_.addr < src.meta_.addr + sb && src.meta_.addr < dst.meta_.addr + db) {
        if (dst.meta_.addr != src.meta_.addr || sizeof(T) > sizeof(U))
            d::violation("Cast",
                         d::fmt("dst UB bytes [%u, %llu) overlap src UB bytes [%u, %llu) (only an in-place cast to a "
                                "type no wider than the source is allowed)",
                                dst.meta_.addr, static_cast<unsigned long long>(dst.meta_.addr + db), src.meta_.addr,
                                static_cast<unsigned long long>(src.meta_.addr + sb)),
                         loc);
    }
    const bool deq = ds == d::DT::I32 && dd == d::DT::F16 && d::arch() == 2201;
    const d::Rnd r = deq ? d::Rnd::NearestEven : d::to_rnd(roundMode);
    const bool to_integral = ds == dd && d::is_fp_v<T>;
    std::vector<T> out(count);
    for (uint32_t i = 0; i < count; ++i) {
        long double x = d::exact_value(d::ub_load<U>(src.meta_.addr + i * static_cast<uint32_t>(sizeof(U))));
        if (deq) x *= d::st().deq_scale;
        if (to_integral) x = d::round_to_integer(x, r);  // float -> float: round to an integral value
        out[i] = d::convert_value<T>(x, r);
    }
    std::memcpy(d::ub_base() + dst.meta_.addr, out.data(), db);
    d::restore_mask_after_count_form();
}

}  // namespace AscendC
