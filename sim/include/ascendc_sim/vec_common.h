// ascendc_sim/vec_common.h - the execution model shared by the vector APIs
// (fact sheet 4.1).
//
// Count form: elements [0, count) of every operand, processed in order.
// Mask/repeat form: `repeatTime` repeats; each repeat covers 8 DataBlocks of
// 32 B per operand (256 B: 128 b16 or 64 b32 lanes); DataBlock j of repeat r of
// an operand starts at base + (r*repStride + j*blkStride)*32 B.  Lanes whose
// mask bit is 0 are neither computed nor written (dst keeps its old value).
// The mask comes from the argument (continuous: first n lanes; bit mode:
// mask[0] = lanes 0..63, mask[1] = lanes 64..127) or, with isSetMask=false,
// from the mask register (normal or counter mode).  A repeat reads all its
// inputs before writing its outputs, and repeats run in order, which is what
// makes the documented dst/src overlaps across repeats behave as on hardware.
//
// Element arithmetic: half/bfloat16 are computed in float and rounded once
// (RNE) to the element type; float in float; integers in 64 bits with
// two's-complement wrap-around to the element width.
#pragma once

#include <array>
#include <cmath>

#include "tensor.h"

namespace ascendc_sim::detail {

template <class T>
inline constexpr bool is_fp_v = std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t> ||
                                std::is_same_v<T, float> || std::is_same_v<T, double>;

// Type in which one element operation is computed.
template <class T>
using wide_t = std::conditional_t<
    std::is_same_v<T, double>, double,
    std::conditional_t<is_fp_v<T>, float, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>>;

template <class T>
inline wide_t<T> widen(T v) {
    return static_cast<wide_t<T>>(v);
}
// Back to the element type: RNE for 16-bit floats; modular for integers.
template <class T>
inline T narrow(wide_t<T> v) {
    if constexpr (is_fp_v<T>) return static_cast<T>(v);
    else return static_cast<T>(static_cast<uint64_t>(v));
}

// ---- element operations ----------------------------------------------------
template <class T>
inline T e_add(T a, T b) {
    if constexpr (is_fp_v<T>) return narrow<T>(widen(a) + widen(b));
    else return narrow<T>(static_cast<wide_t<T>>(static_cast<uint64_t>(widen(a)) + static_cast<uint64_t>(widen(b))));
}
template <class T>
inline T e_sub(T a, T b) {
    if constexpr (is_fp_v<T>) return narrow<T>(widen(a) - widen(b));
    else return narrow<T>(static_cast<wide_t<T>>(static_cast<uint64_t>(widen(a)) - static_cast<uint64_t>(widen(b))));
}
template <class T>
inline T e_mul(T a, T b) {
    if constexpr (is_fp_v<T>) return narrow<T>(widen(a) * widen(b));
    else return narrow<T>(static_cast<wide_t<T>>(static_cast<uint64_t>(widen(a)) * static_cast<uint64_t>(widen(b))));
}
template <class T>
inline T e_div(T a, T b) {
    if constexpr (is_fp_v<T>) {
        return narrow<T>(widen(a) / widen(b));
    } else {
        // Integer division exists only on 950 (gated elsewhere); x/0 gives 0 here
        // instead of trapping.
        wide_t<T> x = widen(a), y = widen(b);
        if (y == 0) return T(0);
        if constexpr (std::is_signed_v<T>)
            if (y == -1) return narrow<T>(static_cast<wide_t<T>>(0 - static_cast<uint64_t>(x)));
        return narrow<T>(x / y);
    }
}
// max/min propagate NaN (a NaN operand yields NaN).
template <class T>
inline T e_max(T a, T b) {
    if constexpr (is_fp_v<T>) {
        auto x = widen(a), y = widen(b);
        if (std::isnan(x)) return a;
        if (std::isnan(y)) return b;
        return x >= y ? a : b;
    } else return widen(a) >= widen(b) ? a : b;
}
template <class T>
inline T e_min(T a, T b) {
    if constexpr (is_fp_v<T>) {
        auto x = widen(a), y = widen(b);
        if (std::isnan(x)) return a;
        if (std::isnan(y)) return b;
        return x <= y ? a : b;
    } else return widen(a) <= widen(b) ? a : b;
}
template <class T>
inline T e_and(T a, T b) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(a & b);
    else return a;  // unreachable: gated to int16/uint16
}
template <class T>
inline T e_or(T a, T b) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(a | b);
    else return a;
}
template <class T>
inline T e_not(T a) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(~a);
    else return a;
}
template <class T>
inline T e_relu(T a) {
    if constexpr (is_fp_v<T>) return widen(a) < 0 ? T(0) : a;
    else return widen(a) < 0 ? T(0) : a;
}
template <class T>
inline T e_abs(T a) {
    if constexpr (is_fp_v<T>) return narrow<T>(std::fabs(widen(a)));
    else return widen(a) < 0 ? narrow<T>(static_cast<wide_t<T>>(0 - static_cast<uint64_t>(widen(a)))) : a;
}
// Transcendental functions are evaluated in float (double for double) with the
// C library; the device's approximations may differ in the last bits.
template <class T, class F>
inline T e_float_fn(T a, F fn) {
    if constexpr (is_fp_v<T>) return narrow<T>(fn(widen(a)));
    else return narrow<T>(static_cast<wide_t<T>>(fn(static_cast<double>(widen(a)))));
}

// ---- repeat masks ------------------------------------------------------------

inline void check_count(const char* api, int64_t count, const std::source_location& loc) {
    if (count < 0) violation(api, fmt("count %lld is negative", static_cast<long long>(count)), loc);
}

inline void check_repeat(const char* api, int64_t repeat, const std::source_location& loc) {
    if (repeat < 0 || repeat > 255)
        violation(api, fmt("repeatTime %lld out of range [0, 255]", static_cast<long long>(repeat)), loc);
}

// Which lanes of which repeat take part.
struct MaskPlan {
    uint32_t lanes = 64;   // elements per repeat (256 B / sizeof(T))
    int64_t repeats = 0;   // 0: nothing happens (NOP)
    bool counter = false;  // counter mode: the first `count` elements overall
    uint64_t count = 0;
    uint64_t lo = 0, hi = 0;

    bool active(int64_t r, uint32_t lane) const {
        if (counter) return static_cast<uint64_t>(r) * lanes + lane < count;
        return lane < 64 ? ((lo >> lane) & 1u) : ((hi >> (lane - 64)) & 1u);
    }
    // Bytes from the operand start up to the end of the last active element.
    uint64_t extent(uint64_t blk, uint64_t rep, uint32_t esize) const {
        const uint32_t per_blk = 32 / esize;
        uint64_t ext = 0;
        for (int64_t r = 0; r < repeats; ++r) {
            // Outside counter mode every repeat has the same lanes, so the last
            // repeat reaches furthest (strides are unsigned).
            if (!counter && r + 1 < repeats) continue;
            for (uint32_t j = 0; j < 8; ++j)
                for (int k = static_cast<int>(per_blk) - 1; k >= 0; --k)
                    if (active(r, j * per_blk + static_cast<uint32_t>(k))) {
                        ext = std::max(ext, (r * rep + j * blk) * 32 + (static_cast<uint64_t>(k) + 1) * esize);
                        break;
                    }
        }
        return ext;
    }
    // The bytes an operand with strides (blk, rep) touches, one span per run of active
    // elements of a block, adjacent spans merged.
    std::vector<UbSpan> spans(uint32_t addr, uint64_t blk, uint64_t rep, uint32_t esize) const {
        const uint32_t per_blk = 32 / esize;
        std::vector<UbSpan> out;
        for (int64_t r = 0; r < repeats; ++r) {
            for (uint32_t j = 0; j < 8; ++j) {
                int first = -1, last = -1;
                for (uint32_t k = 0; k < per_blk; ++k)
                    if (active(r, j * per_blk + k)) {
                        if (first < 0) first = static_cast<int>(k);
                        last = static_cast<int>(k);
                    }
                if (first < 0) continue;
                const uint64_t begin = addr + (r * rep + j * blk) * 32 + static_cast<uint64_t>(first) * esize;
                const uint64_t bytes = static_cast<uint64_t>(last - first + 1) * esize;
                if (!out.empty() && out.back().addr + out.back().bytes == begin) {
                    out.back().bytes += bytes;
                } else {
                    out.push_back({static_cast<uint32_t>(begin), bytes});
                }
            }
        }
        return out;
    }
};

// 8-bit element types have 256 lanes per repeat, which the 128-bit mask model
// below cannot express (their mask forms are 950-only, emulated there).
template <class T>
inline void check_mask_form_type(const char* api, const std::source_location& loc) {
    if (sizeof(T) == 1)
        violation(api, fmt("mask/repeat forms with the 8-bit type %s are not supported by the simulator", type_name<T>()),
                  loc);
}

template <class T>
inline MaskPlan plan_from_register(const char* api, int64_t repeat, const std::source_location& loc) {
    check_mask_form_type<T>(api, loc);
    MaskPlan p;
    p.lanes = 256 / sizeof(T);
    const SimState& s = st();
    if (s.mask_mode == AscendC::MaskMode::COUNTER) {
        // Counter mode: repeatTime is ignored; the register holds an element count.
        p.counter = true;
        p.count = s.mask_lo;
        p.repeats = static_cast<int64_t>((p.count + p.lanes - 1) / p.lanes);
        return p;
    }
    check_repeat(api, repeat, loc);
    p.repeats = repeat;
    p.lo = s.mask_lo;
    p.hi = p.lanes > 64 ? s.mask_hi : 0;
    if (p.lanes < 64) p.lo &= (1ull << p.lanes) - 1;
    return p;
}

template <class T, bool isSetMask>
inline MaskPlan plan_continuous(const char* api, uint64_t mask, int64_t repeat, const std::source_location& loc) {
    if constexpr (!isSetMask) return plan_from_register<T>(api, repeat, loc);
    check_mask_form_type<T>(api, loc);
    MaskPlan p;
    p.lanes = 256 / sizeof(T);
    check_repeat(api, repeat, loc);
    p.repeats = repeat;
    if (mask == 0) {  // NOP
        p.repeats = 0;
        return p;
    }
    if (mask > p.lanes) {
        warn(api, fmt("mask %llu exceeds the %u lanes of a repeat; clamped", static_cast<unsigned long long>(mask), p.lanes),
             loc);
        mask = p.lanes;
    }
    p.lo = mask >= 64 ? ~0ull : ((1ull << mask) - 1);
    p.hi = mask >= 128 ? ~0ull : (mask > 64 ? ((1ull << (mask - 64)) - 1) : 0ull);
    return p;
}

template <class T, bool isSetMask>
inline MaskPlan plan_bits(const char* api, const uint64_t mask[], int64_t repeat, const std::source_location& loc) {
    if constexpr (!isSetMask) return plan_from_register<T>(api, repeat, loc);
    check_mask_form_type<T>(api, loc);
    MaskPlan p;
    p.lanes = 256 / sizeof(T);
    check_repeat(api, repeat, loc);
    p.repeats = repeat;
    p.lo = mask[0];
    p.hi = p.lanes > 64 ? mask[1] : 0;  // b32: only mask[0] is used
    if (p.lanes < 64) p.lo &= (1ull << p.lanes) - 1;
    if (p.lo == 0 && p.hi == 0) p.repeats = 0;
    return p;
}

// Count forms program the mask register themselves and restore the default
// (normal mode, all lanes) afterwards.
inline void restore_mask_after_count_form() {
    SimState& s = st();
    s.mask_mode = AscendC::MaskMode::NORMAL;
    s.mask_hi = ~0ull;
    s.mask_lo = ~0ull;
}

struct Stride {
    uint64_t blk;
    uint64_t rep;
};

inline const char* src_role(size_t i, size_t n) {
    if (n == 1) return "src";
    static const char* const names[] = {"src0", "src1", "src2", "src3"};
    return names[i < 4 ? i : 3];
}

// Count form over N same-typed sources.  f(std::array<T, N>) -> T.
template <class T, size_t N, class F>
inline void run_count(const char* api, const AscendC::LocalTensor<T>& dst,
                      const std::array<const LocalMeta*, N>& src, int64_t count, F f, const std::source_location& loc) {
    check_count(api, count, loc);
    if (count == 0) return;  // NOP on A2/A3
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    check_operand(api, dst.meta_, "dst", bytes, sizeof(T), 32, loc);
    for (size_t i = 0; i < N; ++i) {
        check_operand(api, *src[i], src_role(i, N), bytes, sizeof(T), 32, loc);
        check_no_partial_overlap(api, "dst", dst.meta_.addr, bytes, src_role(i, N), src[i]->addr, bytes, loc);
    }
    record_repeats(api, static_cast<int64_t>((bytes + 255) / 256), loc);
    for (int64_t e = 0; e < count; ++e) {
        std::array<T, N> in;
        for (size_t i = 0; i < N; ++i) in[i] = ub_load<T>(src[i]->addr + static_cast<uint32_t>(e * sizeof(T)));
        ub_store<T>(dst.meta_.addr + static_cast<uint32_t>(e * sizeof(T)), f(in));
    }
    restore_mask_after_count_form();
}

// Mask/repeat form over N same-typed sources.
template <class T, size_t N, class F>
inline void run_repeats(const char* api, const AscendC::LocalTensor<T>& dst, Stride ds,
                        const std::array<const LocalMeta*, N>& src, const std::array<Stride, N>& ss, const MaskPlan& plan,
                        F f, const std::source_location& loc) {
    if (plan.repeats == 0) return;
    if (ds.blk == 0) violation(api, "dstBlkStride must not be 0", loc);
    constexpr uint32_t sz = sizeof(T);
    check_operand(api, dst.meta_, "dst", plan.extent(ds.blk, ds.rep, sz), sz, 32, loc);
    for (size_t i = 0; i < N; ++i)
        check_operand(api, *src[i], src_role(i, N), plan.extent(ss[i].blk, ss[i].rep, sz), sz, 32, loc);
    // Strided operands: the pipe check sees the blocks the repeats touch, not the gaps.
    if (ds.blk != 1 || ds.rep != 8)
        refine_operand("dst", dst.meta_.addr, plan.extent(ds.blk, ds.rep, sz), plan.spans(dst.meta_.addr, ds.blk, ds.rep, sz));
    for (size_t i = 0; i < N; ++i)
        if (ss[i].blk != 1 || ss[i].rep != 8)
            refine_operand(src_role(i, N), src[i]->addr, plan.extent(ss[i].blk, ss[i].rep, sz),
                           plan.spans(src[i]->addr, ss[i].blk, ss[i].rep, sz));
    record_repeats(api, plan.repeats, loc);
    constexpr uint32_t per_blk = 32 / sz;
    constexpr uint32_t lanes = 8 * per_blk;
    std::array<T, lanes> out;
    for (int64_t r = 0; r < plan.repeats; ++r) {
        for (uint32_t lane = 0; lane < lanes; ++lane) {
            if (!plan.active(r, lane)) continue;
            const uint64_t j = lane / per_blk, k = lane % per_blk;
            std::array<T, N> in;
            for (size_t i = 0; i < N; ++i)
                in[i] = ub_load<T>(static_cast<uint32_t>(src[i]->addr + (r * ss[i].rep + j * ss[i].blk) * 32 + k * sz));
            out[lane] = f(in);
        }
        for (uint32_t lane = 0; lane < lanes; ++lane) {
            if (!plan.active(r, lane)) continue;
            const uint64_t j = lane / per_blk, k = lane % per_blk;
            ub_store<T>(static_cast<uint32_t>(dst.meta_.addr + (r * ds.rep + j * ds.blk) * 32 + k * sz), out[lane]);
        }
    }
}

}  // namespace ascendc_sim::detail
