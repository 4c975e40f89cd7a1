// ascendc_sim/vec_elementwise.h - elementwise vector APIs (fact sheet 4.2, 4.3):
// binary (Add, Sub, Mul, Div, Max, Min, And, Or, AddRelu, SubRelu), unary (Exp,
// Ln, Abs, Sqrt, Rsqrt, Reciprocal, Relu, Not), tensor-scalar (Adds, Muls, Maxs,
// Mins, LeakyRelu), fills (Duplicate, CreateVecIndex, Brcb), UB->UB Copy and the fused helpers
// Axpy, FusedMulAdd, MulAddDst.
//
// Each API exists in the count form and, where the device has one, in both
// mask/repeat forms (continuous uint64_t mask and bit-mode uint64_t mask[]).
// repeatTime is taken as int32_t instead of the device's uint8_t so that an
// out-of-range value (> 255) is reported instead of silently wrapping.
// Data types are gated per chip at run time (2201 table of section 4.2).
#pragma once

#include "vec_common.h"

namespace ascendc_sim::detail {
inline constexpr uint32_t kArith3510 = dbit(DT::I8) | dbit(DT::U8) | dbit(DT::I16) | dbit(DT::U16) | dbit(DT::F16) |
                                       dbit(DT::BF16) | dbit(DT::I32) | dbit(DT::U32) | dbit(DT::F32) |
                                       dbit(DT::I64) | dbit(DT::U64);
inline constexpr uint32_t kDiv3510 =
    dbit(DT::I16) | dbit(DT::U16) | dbit(DT::F16) | dbit(DT::I32) | dbit(DT::U32) | dbit(DT::F32);
inline constexpr uint32_t kAbs3510 = kF16F32 | dbit(DT::I8) | dbit(DT::I16) | dbit(DT::I32) | dbit(DT::I64);
inline constexpr uint32_t kRelu2201 = kF16F32 | dbit(DT::I32);
inline constexpr uint32_t kRelu3510 = kRelu2201 | dbit(DT::I64);
inline constexpr uint32_t kB16B32 = dbit(DT::I16) | dbit(DT::U16) | dbit(DT::F16) | dbit(DT::BF16) | dbit(DT::I32) |
                                    dbit(DT::U32) | dbit(DT::F32);
inline constexpr uint32_t kAddRelu = dbit(DT::I16) | kF16F32;

template <class T>
inline T e_add_relu(T a, T b) {
    return e_relu(e_add(a, b));
}
template <class T>
inline T e_sub_relu(T a, T b) {
    return e_relu(e_sub(a, b));
}
template <class T>
inline T e_exp(T a) {
    return e_float_fn(a, [](auto x) { return std::exp(x); });
}
template <class T>
inline T e_ln(T a) {
    return e_float_fn(a, [](auto x) { return std::log(x); });
}
template <class T>
inline T e_sqrt(T a) {
    return e_float_fn(a, [](auto x) { return std::sqrt(x); });
}
// Approximate on the device (fails 1e-4 relative for float); exact here.
template <class T>
inline T e_rsqrt(T a) {
    return e_float_fn(a, [](auto x) { return decltype(x)(1) / std::sqrt(x); });
}
template <class T>
inline T e_reciprocal(T a) {
    return e_float_fn(a, [](auto x) { return decltype(x)(1) / x; });
}
template <class T>
inline T e_leaky_relu(T a, T s) {
    if constexpr (is_fp_v<T>) return widen(a) >= 0 ? a : narrow<T>(widen(a) * widen(s));
    else return a;
}
}  // namespace ascendc_sim::detail

// Three overloads per binary op: count form, continuous-mask form, bit-mask form.
#define ASCENDC_SIM_BINARY_OP(NAME, M2201, M3510, FN)                                                               \
    template <typename T, bool isSetMask = true>                                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,             \
                     const int32_t& count, std::source_location loc = std::source_location::current()) {            \
        namespace d = ascendc_sim::detail;                                                                          \
        d::check_dtype<T>(#NAME, M2201, M3510, loc);                                                                \
        d::run_count<T, 2>(#NAME, dst, {&src0.meta_, &src1.meta_}, count,                                           \
                           [](const std::array<T, 2>& v) { return FN<T>(v[0], v[1]); }, loc);                      \
    }                                                                                                               \
    template <typename T, bool isSetMask = true>                                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,             \
                     uint64_t mask, const int32_t repeatTime, const BinaryRepeatParams& p,                          \
                     std::source_location loc = std::source_location::current()) {                                  \
        namespace d = ascendc_sim::detail;                                                                          \
        d::check_dtype<T>(#NAME, M2201, M3510, loc);                                                                \
        d::MaskPlan plan = d::plan_continuous<T, isSetMask>(#NAME, mask, repeatTime, loc);                          \
        d::run_repeats<T, 2>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, {&src0.meta_, &src1.meta_},              \
                             {d::Stride{p.src0BlkStride, p.src0RepStride}, d::Stride{p.src1BlkStride, p.src1RepStride}}, \
                             plan, [](const std::array<T, 2>& v) { return FN<T>(v[0], v[1]); }, loc);               \
    }                                                                                                               \
    template <typename T, bool isSetMask = true>                                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,             \
                     const uint64_t mask[], const int32_t repeatTime, const BinaryRepeatParams& p,                  \
                     std::source_location loc = std::source_location::current()) {                                  \
        namespace d = ascendc_sim::detail;                                                                          \
        d::check_dtype<T>(#NAME, M2201, M3510, loc);                                                                \
        d::MaskPlan plan = d::plan_bits<T, isSetMask>(#NAME, mask, repeatTime, loc);                                \
        d::run_repeats<T, 2>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, {&src0.meta_, &src1.meta_},              \
                             {d::Stride{p.src0BlkStride, p.src0RepStride}, d::Stride{p.src1BlkStride, p.src1RepStride}}, \
                             plan, [](const std::array<T, 2>& v) { return FN<T>(v[0], v[1]); }, loc);               \
    }

#define ASCENDC_SIM_UNARY_OP(NAME, M2201, M3510, FN)                                                                \
    template <typename T, bool isSetMask = true>                                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count,                    \
                     std::source_location loc = std::source_location::current()) {                                  \
        namespace d = ascendc_sim::detail;                                                                          \
        d::check_dtype<T>(#NAME, M2201, M3510, loc);                                                                \
        d::run_count<T, 1>(#NAME, dst, {&src.meta_}, count, [](const std::array<T, 1>& v) { return FN<T>(v[0]); }, \
                           loc);                                                                                    \
    }                                                                                                               \
    template <typename T, bool isSetMask = true>                                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const int32_t repeatTime, \
                     const UnaryRepeatParams& p, std::source_location loc = std::source_location::current()) {      \
        namespace d = ascendc_sim::detail;                                                                          \
        d::check_dtype<T>(#NAME, M2201, M3510, loc);                                                                \
        d::MaskPlan plan = d::plan_continuous<T, isSetMask>(#NAME, mask, repeatTime, loc);                          \
        d::run_repeats<T, 1>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, {&src.meta_},                            \
                             {d::Stride{p.srcBlkStride, p.srcRepStride}}, plan,                                     \
                             [](const std::array<T, 1>& v) { return FN<T>(v[0]); }, loc);                           \
    }                                                                                                               \
    template <typename T, bool isSetMask = true>                                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                   \
                     const int32_t repeatTime, const UnaryRepeatParams& p,                                          \
                     std::source_location loc = std::source_location::current()) {                                  \
        namespace d = ascendc_sim::detail;                                                                          \
        d::check_dtype<T>(#NAME, M2201, M3510, loc);                                                                \
        d::MaskPlan plan = d::plan_bits<T, isSetMask>(#NAME, mask, repeatTime, loc);                                \
        d::run_repeats<T, 1>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, {&src.meta_},                            \
                             {d::Stride{p.srcBlkStride, p.srcRepStride}}, plan,                                     \
                             [](const std::array<T, 1>& v) { return FN<T>(v[0]); }, loc);                           \
    }

#define ASCENDC_SIM_SCALAR_OP(NAME, M2201, M3510, FN)                                                               \
    template <typename T, bool isSetMask = true>                                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                    \
                     const int32_t& count, std::source_location loc = std::source_location::current()) {            \
        namespace d = ascendc_sim::detail;                                                                          \
        d::check_dtype<T>(#NAME, M2201, M3510, loc);                                                                \
        const T s = scalarValue;                                                                                    \
        d::run_count<T, 1>(#NAME, dst, {&src.meta_}, count, [s](const std::array<T, 1>& v) { return FN<T>(v[0], s); }, \
                           loc);                                                                                    \
    }                                                                                                               \
    template <typename T, bool isSetMask = true>                                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask,     \
                     const int32_t repeatTime, const UnaryRepeatParams& p,                                          \
                     std::source_location loc = std::source_location::current()) {                                  \
        namespace d = ascendc_sim::detail;                                                                          \
        d::check_dtype<T>(#NAME, M2201, M3510, loc);                                                                \
        const T s = scalarValue;                                                                                    \
        d::MaskPlan plan = d::plan_continuous<T, isSetMask>(#NAME, mask, repeatTime, loc);                          \
        d::run_repeats<T, 1>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, {&src.meta_},                            \
                             {d::Stride{p.srcBlkStride, p.srcRepStride}}, plan,                                     \
                             [s](const std::array<T, 1>& v) { return FN<T>(v[0], s); }, loc);                       \
    }                                                                                                               \
    template <typename T, bool isSetMask = true>                                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                    \
                     const uint64_t mask[], const int32_t repeatTime, const UnaryRepeatParams& p,                   \
                     std::source_location loc = std::source_location::current()) {                                  \
        namespace d = ascendc_sim::detail;                                                                          \
        d::check_dtype<T>(#NAME, M2201, M3510, loc);                                                                \
        const T s = scalarValue;                                                                                    \
        d::MaskPlan plan = d::plan_bits<T, isSetMask>(#NAME, mask, repeatTime, loc);                                \
        d::run_repeats<T, 1>(#NAME, dst, {p.dstBlkStride, p.dstRepStride}, {&src.meta_},                            \
                             {d::Stride{p.srcBlkStride, p.srcRepStride}}, plan,                                     \
                             [s](const std::array<T, 1>& v) { return FN<T>(v[0], s); }, loc);                       \
    }

namespace AscendC {

ASCENDC_SIM_BINARY_OP(Add, ascendc_sim::detail::kArith2201, ascendc_sim::detail::kArith3510, ascendc_sim::detail::e_add)
ASCENDC_SIM_BINARY_OP(Sub, ascendc_sim::detail::kArith2201, ascendc_sim::detail::kArith3510, ascendc_sim::detail::e_sub)
ASCENDC_SIM_BINARY_OP(Mul, ascendc_sim::detail::kArith2201, ascendc_sim::detail::kArith3510, ascendc_sim::detail::e_mul)
ASCENDC_SIM_BINARY_OP(Div, ascendc_sim::detail::kF16F32, ascendc_sim::detail::kDiv3510, ascendc_sim::detail::e_div)
ASCENDC_SIM_BINARY_OP(Max, ascendc_sim::detail::kArith2201, ascendc_sim::detail::kArith3510, ascendc_sim::detail::e_max)
ASCENDC_SIM_BINARY_OP(Min, ascendc_sim::detail::kArith2201, ascendc_sim::detail::kArith3510, ascendc_sim::detail::e_min)
ASCENDC_SIM_BINARY_OP(And, ascendc_sim::detail::kB16Int, ascendc_sim::detail::kB16Int, ascendc_sim::detail::e_and)
ASCENDC_SIM_BINARY_OP(Or, ascendc_sim::detail::kB16Int, ascendc_sim::detail::kB16Int, ascendc_sim::detail::e_or)
ASCENDC_SIM_BINARY_OP(AddRelu, ascendc_sim::detail::kAddRelu, ascendc_sim::detail::kAddRelu, ascendc_sim::detail::e_add_relu)
ASCENDC_SIM_BINARY_OP(SubRelu, ascendc_sim::detail::kAddRelu, ascendc_sim::detail::kAddRelu, ascendc_sim::detail::e_sub_relu)

ASCENDC_SIM_UNARY_OP(Exp, ascendc_sim::detail::kF16F32, ascendc_sim::detail::kF16F32, ascendc_sim::detail::e_exp)
ASCENDC_SIM_UNARY_OP(Ln, ascendc_sim::detail::kF16F32, ascendc_sim::detail::kF16F32, ascendc_sim::detail::e_ln)
ASCENDC_SIM_UNARY_OP(Sqrt, ascendc_sim::detail::kF16F32, ascendc_sim::detail::kF16F32, ascendc_sim::detail::e_sqrt)
ASCENDC_SIM_UNARY_OP(Rsqrt, ascendc_sim::detail::kF16F32, ascendc_sim::detail::kF16F32, ascendc_sim::detail::e_rsqrt)
ASCENDC_SIM_UNARY_OP(Reciprocal, ascendc_sim::detail::kF16F32, ascendc_sim::detail::kF16F32, ascendc_sim::detail::e_reciprocal)
ASCENDC_SIM_UNARY_OP(Abs, ascendc_sim::detail::kF16F32, ascendc_sim::detail::kAbs3510, ascendc_sim::detail::e_abs)
ASCENDC_SIM_UNARY_OP(Relu, ascendc_sim::detail::kRelu2201, ascendc_sim::detail::kRelu3510, ascendc_sim::detail::e_relu)
ASCENDC_SIM_UNARY_OP(Not, ascendc_sim::detail::kB16Int, ascendc_sim::detail::kB16Int, ascendc_sim::detail::e_not)

ASCENDC_SIM_SCALAR_OP(Adds, ascendc_sim::detail::kArith2201, ascendc_sim::detail::kArith3510, ascendc_sim::detail::e_add)
ASCENDC_SIM_SCALAR_OP(Muls, ascendc_sim::detail::kArith2201, ascendc_sim::detail::kArith3510, ascendc_sim::detail::e_mul)
ASCENDC_SIM_SCALAR_OP(Maxs, ascendc_sim::detail::kArith2201, ascendc_sim::detail::kArith3510, ascendc_sim::detail::e_max)
ASCENDC_SIM_SCALAR_OP(Mins, ascendc_sim::detail::kArith2201, ascendc_sim::detail::kArith3510, ascendc_sim::detail::e_min)
ASCENDC_SIM_SCALAR_OP(LeakyRelu, ascendc_sim::detail::kF16F32, ascendc_sim::detail::kF16F32, ascendc_sim::detail::e_leaky_relu)

// ---- Duplicate: fill with a scalar -------------------------------------------

template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count,
                      std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("Duplicate", d::kB16B32, d::kB16B32, loc);
    const T s = scalarValue;
    d::run_count<T, 0>("Duplicate", dst, {}, count, [s](const std::array<T, 0>&) { return s; }, loc);
}

template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask, const int32_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride,
                      std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("Duplicate", d::kB16B32, d::kB16B32, loc);
    const T s = scalarValue;
    d::MaskPlan plan = d::plan_continuous<T, isSetMask>("Duplicate", mask, repeatTime, loc);
    d::run_repeats<T, 0>("Duplicate", dst, {dstBlockStride, dstRepeatStride}, {}, {}, plan,
                         [s](const std::array<T, 0>&) { return s; }, loc);
}

template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const uint64_t mask[], const int32_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride,
                      std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("Duplicate", d::kB16B32, d::kB16B32, loc);
    const T s = scalarValue;
    d::MaskPlan plan = d::plan_bits<T, isSetMask>("Duplicate", mask, repeatTime, loc);
    d::run_repeats<T, 0>("Duplicate", dst, {dstBlockStride, dstRepeatStride}, {}, {}, plan,
                         [s](const std::array<T, 0>&) { return s; }, loc);
}

// ---- CreateVecIndex: dst[i] = firstValue + i ------------------------------------
// Count form. The values are computed in float (firstValue + i, then converted to T),
// and the first 32 B DataBlock is always written whole, even when count is smaller (the
// implementation fills it with scalar writes, then extends by Adds of the block width).

template <typename T>
inline void CreateVecIndex(LocalTensor<T> dst, const T& firstValue, uint32_t count,
                           std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("CreateVecIndex", d::kArith2201, d::kArith2201, loc);
    d::check_count("CreateVecIndex", static_cast<int64_t>(count), loc);
    constexpr uint32_t per_blk = 32 / sizeof(T);
    const uint32_t written = count < per_blk ? per_blk : count;
    d::check_operand("CreateVecIndex", dst.meta_, "dst", static_cast<uint64_t>(written) * sizeof(T), sizeof(T), 32,
                     loc);
    const float first = static_cast<float>(firstValue);
    for (uint32_t e = 0; e < written; ++e)
        d::ub_store<T>(dst.meta_.addr + e * static_cast<uint32_t>(sizeof(T)),
                       static_cast<T>(first + static_cast<float>(e)));
    d::restore_mask_after_count_form();
}

// ---- Brcb: each of 8 source elements per repeat fills one 32 B DataBlock ----

template <typename T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                 const BrcbRepeatParams& p, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("Brcb", d::kB16B32, d::kB16B32, loc);
    d::check_repeat("Brcb", repeatTime, loc);
    if (repeatTime == 0) return;
    if (p.dstBlkStride == 0) d::violation("Brcb", "dstBlkStride must not be 0", loc);
    constexpr uint32_t sz = sizeof(T);
    constexpr uint32_t per_blk = 32 / sz;
    const uint64_t src_bytes = static_cast<uint64_t>(repeatTime) * 8 * sz;
    const uint64_t dst_ext =
        ((static_cast<uint64_t>(repeatTime) - 1) * p.dstRepStride + 7ull * p.dstBlkStride) * 32 + 32;
    d::check_operand("Brcb", src.meta_, "src", src_bytes, sz, 32, loc);
    d::check_operand("Brcb", dst.meta_, "dst", dst_ext, sz, 32, loc);
    d::check_disjoint("Brcb", "dst", dst.meta_.addr, dst_ext, "src", src.meta_.addr, src_bytes, loc);
    for (int32_t r = 0; r < repeatTime; ++r)
        for (uint32_t k = 0; k < 8; ++k) {
            T v = d::ub_load<T>(src.meta_.addr + (r * 8 + k) * sz);
            uint64_t blk = dst.meta_.addr + (static_cast<uint64_t>(r) * p.dstRepStride + k * p.dstBlkStride) * 32;
            for (uint32_t e = 0; e < per_blk; ++e) d::ub_store<T>(static_cast<uint32_t>(blk + e * sz), v);
        }
}

// ---- Copy: UB -> UB, mask/repeat form ----------------------------------------

template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const int32_t repeatTime,
                 const CopyRepeatParams& p, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("Copy", d::kB16B32, d::kB16B32, loc);
    d::MaskPlan plan = d::plan_continuous<T, isSetMask>("Copy", mask, repeatTime, loc);
    d::run_repeats<T, 1>("Copy", dst, {p.dstStride, p.dstRepeatSize}, {&src.meta_},
                         {d::Stride{p.srcStride, p.srcRepeatSize}}, plan,
                         [](const std::array<T, 1>& v) { return v[0]; }, loc);
}

template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const int32_t repeatTime,
                 const CopyRepeatParams& p, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("Copy", d::kB16B32, d::kB16B32, loc);
    d::MaskPlan plan = d::plan_bits<T, isSetMask>("Copy", mask, repeatTime, loc);
    d::run_repeats<T, 1>("Copy", dst, {p.dstStride, p.dstRepeatSize}, {&src.meta_},
                         {d::Stride{p.srcStride, p.srcRepeatSize}}, plan,
                         [](const std::array<T, 1>& v) { return v[0]; }, loc);
}

// ---- Fused helpers (count forms), computed in float with one final rounding --

// dst = src0 * dst + src1
template <typename T, bool isSetMask = true>
inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                        const int32_t& count, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("FusedMulAdd", d::kF16F32, d::kF16F32, loc);
    d::run_count<T, 3>("FusedMulAdd", dst, {&src0.meta_, &src1.meta_, &dst.meta_}, count,
                       [](const std::array<T, 3>& v) {
                           return d::narrow<T>(d::widen(v[0]) * d::widen(v[2]) + d::widen(v[1]));
                       },
                       loc);
}

// dst += src0 * src1 (T = U, or T = float with U = half)
template <typename T, typename U, bool isSetMask = true>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                      const int32_t& count, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<U>("MulAddDst", d::kF16F32, d::kF16F32, loc);
    if (!(std::is_same_v<T, U> || (std::is_same_v<T, float> && std::is_same_v<U, half>)))
        d::violation("MulAddDst", d::fmt("dst %s with sources %s is not supported", d::type_name<T>(), d::type_name<U>()),
                     loc);
    d::check_count("MulAddDst", count, loc);
    if (count == 0) return;
    d::check_operand("MulAddDst", dst.meta_, "dst", uint64_t(count) * sizeof(T), sizeof(T), 32, loc);
    d::check_operand("MulAddDst", src0.meta_, "src0", uint64_t(count) * sizeof(U), sizeof(U), 32, loc);
    d::check_operand("MulAddDst", src1.meta_, "src1", uint64_t(count) * sizeof(U), sizeof(U), 32, loc);
    for (int32_t i = 0; i < count; ++i) {
        float a = static_cast<float>(d::ub_load<U>(src0.meta_.addr + i * sizeof(U)));
        float b = static_cast<float>(d::ub_load<U>(src1.meta_.addr + i * sizeof(U)));
        float c = static_cast<float>(d::ub_load<T>(dst.meta_.addr + i * sizeof(T)));
        d::ub_store<T>(dst.meta_.addr + i * sizeof(T), static_cast<T>(c + a * b));
    }
    d::restore_mask_after_count_form();
}

// dst += scalar * src (T/U = half/half, float/float, float/half)
template <typename T, typename U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U scalarValue, const int32_t& count,
                 std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<U>("Axpy", d::kF16F32, d::kF16F32, loc);
    if (!(std::is_same_v<T, U> || (std::is_same_v<T, float> && std::is_same_v<U, half>)))
        d::violation("Axpy", d::fmt("dst %s with src %s is not supported", d::type_name<T>(), d::type_name<U>()), loc);
    d::check_count("Axpy", count, loc);
    if (count == 0) return;
    d::check_operand("Axpy", dst.meta_, "dst", uint64_t(count) * sizeof(T), sizeof(T), 32, loc);
    d::check_operand("Axpy", src.meta_, "src", uint64_t(count) * sizeof(U), sizeof(U), 32, loc);
    const float s = static_cast<float>(scalarValue);
    for (int32_t i = 0; i < count; ++i) {
        float a = static_cast<float>(d::ub_load<U>(src.meta_.addr + i * sizeof(U)));
        float c = static_cast<float>(d::ub_load<T>(dst.meta_.addr + i * sizeof(T)));
        d::ub_store<T>(dst.meta_.addr + i * sizeof(T), static_cast<T>(c + s * a));
    }
    d::restore_mask_after_count_form();
}

}  // namespace AscendC

#undef ASCENDC_SIM_BINARY_OP
#undef ASCENDC_SIM_UNARY_OP
#undef ASCENDC_SIM_SCALAR_OP
