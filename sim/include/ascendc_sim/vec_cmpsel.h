// ascendc_sim/vec_cmpsel.h - Compare, Compares and Select (fact sheet 4.5).
//
// Compare/Compares write a bit-packed mask: element i -> byte i/8, bit i%8
// (1 = condition true), count/8 bytes in total.  On 2201 count*sizeof(T) must be
// a multiple of 256 B (the hardware does not compute a partial trailing repeat),
// half/float support all six modes and int32 only EQ.
//
// Select takes src0 where the mask bit is 1 and src1 (tensor or scalar) where it
// is 0.  VSEL_CMPMASK_SPR (mode 0) uses only the first 256/sizeof(T) mask bits
// and reuses them for every repeat; VSEL_TENSOR_SCALAR_MODE (1, scalar src1)
// and VSEL_TENSOR_TENSOR_MODE (2) consume the mask continuously.
#pragma once

#include "vec_common.h"

namespace ascendc_sim::detail {

inline const char* cmp_name(AscendC::CMPMODE m) {
    static const char* n[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};
    unsigned i = static_cast<unsigned>(m);
    return i < 6 ? n[i] : "?";
}

template <class T>
inline bool cmp_elem(T a, T b, AscendC::CMPMODE m) {
    auto x = widen(a), y = widen(b);
    switch (m) {
    case AscendC::CMPMODE::LT: return x < y;
    case AscendC::CMPMODE::GT: return x > y;
    case AscendC::CMPMODE::EQ: return x == y;
    case AscendC::CMPMODE::LE: return x <= y;
    case AscendC::CMPMODE::GE: return x >= y;
    case AscendC::CMPMODE::NE: return x != y;
    }
    return false;
}

template <class T, class U>
inline void check_compare(const char* api, AscendC::CMPMODE mode, uint32_t count, uint32_t dst_types,
                          const std::source_location& loc) {
    check_dtype<T>(api, kF16F32 | dbit(DT::I32), kF16F32 | dbit(DT::I32) | dbit(DT::I16) | dbit(DT::U16) | dbit(DT::U32), loc);
    check_dtype<U>(api, dst_types, dst_types, loc, "mask (dst) type");
    if (static_cast<unsigned>(mode) > 5) violation(api, "invalid CMPMODE", loc);
    if (arch() == 2201 && dtype_of<T>() == DT::I32 && mode != AscendC::CMPMODE::EQ)
        violation(api, fmt("CMPMODE::%s is not supported for int32_t on arch 2201 (only EQ)", cmp_name(mode)), loc);
    if (arch() == 2201 && (static_cast<uint64_t>(count) * sizeof(T)) % 256 != 0)
        violation(api,
                  fmt("count*sizeof(%s) = %llu bytes is not a multiple of 256 (count must be a multiple of %zu; the "
                      "hardware skips a partial trailing repeat)",
                      type_name<T>(), static_cast<unsigned long long>(count) * sizeof(T), 256 / sizeof(T)),
                  loc);
}

inline bool mask_bit(uint32_t addr, uint32_t i) { return (ub_load<uint8_t>(addr + i / 8) >> (i % 8)) & 1u; }

}  // namespace ascendc_sim::detail

namespace AscendC {

template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    uint32_t count, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_compare<T, U>("Compare", cmpMode, count, d::dbit(d::DT::U8) | d::dbit(d::DT::I8), loc);
    if (count == 0) return;
    const uint64_t sb = static_cast<uint64_t>(count) * sizeof(T);
    d::check_operand("Compare", src0.meta_, "src0", sb, sizeof(T), 32, loc);
    d::check_operand("Compare", src1.meta_, "src1", sb, sizeof(T), 32, loc);
    d::check_operand("Compare", dst.meta_, "dst", (count + 7) / 8, sizeof(U), 32, loc);
    std::vector<uint8_t> bits((count + 7) / 8);  // read everything before writing (dst may alias a source)
    for (uint32_t i = 0; i < count; ++i)
        if (d::cmp_elem(d::ub_load<T>(src0.meta_.addr + i * sizeof(T)), d::ub_load<T>(src1.meta_.addr + i * sizeof(T)),
                        cmpMode))
            bits[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    std::memcpy(d::ub_base() + dst.meta_.addr, bits.data(), bits.size());
    d::restore_mask_after_count_form();
}

template <typename T, typename U>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                     uint32_t count, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_compare<T, U>("Compares", cmpMode, count, d::dbit(d::DT::U8), loc);
    if (count == 0) return;
    const uint64_t sb = static_cast<uint64_t>(count) * sizeof(T);
    d::check_operand("Compares", src0.meta_, "src0", sb, sizeof(T), 32, loc);
    d::check_operand("Compares", dst.meta_, "dst", (count + 7) / 8, sizeof(U), 32, loc);
    std::vector<uint8_t> bits((count + 7) / 8);
    for (uint32_t i = 0; i < count; ++i)
        if (d::cmp_elem(d::ub_load<T>(src0.meta_.addr + i * sizeof(T)), src1Scalar, cmpMode))
            bits[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    std::memcpy(d::ub_base() + dst.meta_.addr, bits.data(), bits.size());
    d::restore_mask_after_count_form();
}

// Deprecated name of Compares.
template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                          uint32_t count, std::source_location loc = std::source_location::current()) {
    Compares(dst, src0, src1Scalar, cmpMode, count, loc);
}

namespace sim_impl {
template <typename T, typename U, class Src1>
inline void select_impl(const char* api, const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
                        const LocalTensor<T>& src0, SELMODE selMode, uint32_t count, Src1 src1_at,
                        const std::source_location& loc) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>(api, d::kF16F32, d::kF16F32, loc);
    d::check_dtype<U>(api, d::dbit(d::DT::U8) | d::dbit(d::DT::U16) | d::dbit(d::DT::U32) | d::dbit(d::DT::U64),
                      d::dbit(d::DT::U8) | d::dbit(d::DT::U16) | d::dbit(d::DT::U32) | d::dbit(d::DT::U64), loc,
                      "mask type");
    if (count == 0) return;
    const uint32_t lanes = 256 / sizeof(T);
    const bool reuse = selMode == SELMODE::VSEL_CMPMASK_SPR;
    const uint32_t mask_bits = reuse ? std::min(count, lanes) : count;
    const uint64_t db = static_cast<uint64_t>(count) * sizeof(T);
    d::check_operand(api, dst.meta_, "dst", db, sizeof(T), 32, loc);
    d::check_operand(api, src0.meta_, "src0", db, sizeof(T), 32, loc);
    d::check_operand(api, selMask.meta_, "selMask", (mask_bits + 7) / 8, sizeof(U), 32, loc);
    d::check_no_partial_overlap(api, "dst", dst.meta_.addr, db, "src0", src0.meta_.addr, db, loc);
    std::vector<T> out(count);
    for (uint32_t i = 0; i < count; ++i) {
        bool bit = d::mask_bit(selMask.meta_.addr, reuse ? i % lanes : i);
        out[i] = bit ? d::ub_load<T>(src0.meta_.addr + i * sizeof(T)) : src1_at(i);
    }
    std::memcpy(d::ub_base() + dst.meta_.addr, out.data(), db);
    d::restore_mask_after_count_form();
}
}  // namespace sim_impl

// Tensor-tensor select: modes VSEL_CMPMASK_SPR (0) and VSEL_TENSOR_TENSOR_MODE (2).
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count,
                   std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    if (selMode != SELMODE::VSEL_CMPMASK_SPR && selMode != SELMODE::VSEL_TENSOR_TENSOR_MODE)
        d::violation("Select",
                     "with a tensor src1 the mode must be VSEL_CMPMASK_SPR or VSEL_TENSOR_TENSOR_MODE "
                     "(VSEL_TENSOR_SCALAR_MODE needs a scalar src1)",
                     loc);
    if (count != 0) {
        d::check_operand("Select", src1.meta_, "src1", static_cast<uint64_t>(count) * sizeof(T), sizeof(T), 32, loc);
        d::check_no_partial_overlap("Select", "dst", dst.meta_.addr, static_cast<uint64_t>(count) * sizeof(T), "src1",
                                    src1.meta_.addr, static_cast<uint64_t>(count) * sizeof(T), loc);
    }
    const uint32_t a1 = src1.meta_.addr;
    sim_impl::select_impl("Select", dst, selMask, src0, selMode, count,
                          [a1](uint32_t i) { return d::ub_load<T>(a1 + i * sizeof(T)); }, loc);
}

// Tensor-scalar select: mode VSEL_TENSOR_SCALAR_MODE (1).
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
                   SELMODE selMode, uint32_t count, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    if (selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE)
        d::violation("Select", "with a scalar src1 the mode must be VSEL_TENSOR_SCALAR_MODE", loc);
    sim_impl::select_impl("Select", dst, selMask, src0, selMode, count, [src1](uint32_t) { return src1; }, loc);
}

}  // namespace AscendC
