// ascendc_sim/vec_reduce.h - reductions (fact sheet 4.6).
//
// WholeReduceSum/Max/Min reduce each masked 256 B repeat to one value (Max/Min
// optionally with the lane index, stored as the raw bits of the element type);
// BlockReduceSum/Max/Min reduce each 32 B DataBlock (8 outputs per repeat);
// ReduceSum/ReduceMax/ReduceMin reduce a whole vector and need a work tensor
// whose minimum size is checked with the documented formulas.
//
// Summation order: pairwise binary tree inside a repeat or block (adjacent
// pairs, then pairs of pairs, ...), masked-out lanes counting as 0.  For half,
// every tree node is rounded to half and, by default, clamped to +-65504 (the
// documented 60000+60000-30000+100 = 35604 example; see
// ascendc_sim::set_half_reduce_saturation).  ReduceSum count form on 2201 adds
// the per-repeat partial sums sequentially; its mask form (and every form on
// 3510) reduces the partials with the same tree, 256 B at a time.
// Max/Min return the first (lowest-index) extreme element.
// The 9.1 names ReduceRepeat / ReduceDataBlock forward to the same code.
#pragma once

#include "vec_common.h"

namespace ascendc_sim::detail {

enum class RedKind : uint8_t { Sum, Max, Min };

inline const char* red_name(RedKind k, const char* sum, const char* max, const char* min) {
    return k == RedKind::Sum ? sum : (k == RedKind::Max ? max : min);
}

template <class T>
inline T red_add(T a, T b) {
    if constexpr (std::is_same_v<T, half>) {
        float s = static_cast<float>(a) + static_cast<float>(b);
        if (st().half_reduce_saturate && std::isfinite(s) && std::fabs(s) > 65504.0f)
            return half(std::copysign(65504.0f, s));
        return half(s);
    } else {
        return e_add(a, b);
    }
}

// Pairwise tree over a power-of-two number of values.
template <class T>
inline T tree_sum(std::vector<T> v) {
    size_t n = v.size();
    while (n > 1) {
        for (size_t i = 0; i < n / 2; ++i) v[i] = red_add(v[2 * i], v[2 * i + 1]);
        n /= 2;
    }
    return v.empty() ? T(0) : v[0];
}

// Multi-level reduction of partial sums: chunks of `lanes` values (one repeat,
// zero-padded) are tree-summed until one value remains.
template <class T>
inline T multi_level_sum(std::vector<T> v, uint32_t lanes) {
    while (v.size() > 1) {
        std::vector<T> next;
        for (size_t i = 0; i < v.size(); i += lanes) {
            std::vector<T> chunk(lanes, T(0));
            for (size_t k = 0; k < lanes && i + k < v.size(); ++k) chunk[k] = v[i + k];
            next.push_back(tree_sum(chunk));
        }
        v.swap(next);
    }
    return v.empty() ? T(0) : v[0];
}

// The lanes of repeat r of a source operand (inactive lanes: value 0, act false).
template <class T>
inline void gather_repeat(uint32_t addr, int64_t r, uint64_t blk, uint64_t rep, const MaskPlan& plan, std::vector<T>& v,
                          std::vector<char>& act) {
    constexpr uint32_t sz = sizeof(T), per_blk = 32 / sz, lanes = 8 * per_blk;
    v.assign(lanes, T(0));
    act.assign(lanes, 0);
    for (uint32_t lane = 0; lane < lanes; ++lane) {
        if (!plan.active(r, lane)) continue;
        const uint64_t j = lane / per_blk, k = lane % per_blk;
        v[lane] = ub_load<T>(static_cast<uint32_t>(addr + (r * rep + j * blk) * 32 + k * sz));
        act[lane] = 1;
    }
}

// First extreme among active entries of v[from, to); returns index or -1.
template <class T>
inline int64_t arg_extreme(const std::vector<T>& v, const std::vector<char>& act, size_t from, size_t to, RedKind k) {
    int64_t best = -1;
    for (size_t i = from; i < to; ++i) {
        if (!act[i]) continue;
        if (best < 0) {
            best = static_cast<int64_t>(i);
            continue;
        }
        auto x = widen(v[i]), b = widen(v[static_cast<size_t>(best)]);
        if ((k == RedKind::Max && x > b) || (k == RedKind::Min && x < b)) best = static_cast<int64_t>(i);
    }
    return best;
}

inline void check_stride16(const char* api, const char* name, int64_t v, const std::source_location& loc) {
    if (v < 0 || v > 65535) violation(api, fmt("%s %lld out of range [0, 65535]", name, static_cast<long long>(v)), loc);
}

// Store an index as the raw bits of the element type (uint16 for half, uint32 for float).
template <class T>
inline void store_index_bits(uint32_t addr, uint64_t idx) {
    if constexpr (sizeof(T) == 2) ub_store<uint16_t>(addr, static_cast<uint16_t>(idx));
    else ub_store<uint32_t>(addr, static_cast<uint32_t>(idx));
}

template <class T>
inline void whole_reduce(const char* api, RedKind kind, const AscendC::LocalTensor<T>& dst,
                         const AscendC::LocalTensor<T>& src, const MaskPlan& plan, int32_t dstRepStride,
                         int32_t srcBlkStride, int32_t srcRepStride, AscendC::ReduceOrder order,
                         const std::source_location& loc) {
    using AscendC::ReduceOrder;
    check_dtype<T>(api, kF16F32, kF16F32, loc);
    check_stride16(api, "dstRepStride", dstRepStride, loc);
    check_stride16(api, "srcBlkStride", srcBlkStride, loc);
    check_stride16(api, "srcRepStride", srcRepStride, loc);
    if (plan.repeats == 0) return;
    constexpr uint32_t sz = sizeof(T);
    check_operand(api, src.meta_, "src", plan.extent(srcBlkStride, srcRepStride, sz), sz, 32, loc);
    // dst layout: unit of dstRepStride and width of one result (table 3 of ReduceRepeat).
    uint32_t unit = sz, width = sz;
    if (kind != RedKind::Sum) {
        if (order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE) unit = width = 2 * sz;
        else if (order == ReduceOrder::ORDER_ONLY_INDEX) unit = width = 4;
    }
    const uint64_t dst_foot = static_cast<uint64_t>(plan.repeats - 1) * dstRepStride * unit + width;
    check_operand(api, dst.meta_, "dst", dst_foot, sz, unit, loc);
    std::vector<T> v;
    std::vector<char> act;
    for (int64_t r = 0; r < plan.repeats; ++r) {
        gather_repeat<T>(src.meta_.addr, r, srcBlkStride, srcRepStride, plan, v, act);
        const uint32_t out = static_cast<uint32_t>(dst.meta_.addr + r * dstRepStride * unit);
        if (kind == RedKind::Sum) {
            ub_store<T>(out, tree_sum(v));
            continue;
        }
        int64_t i = arg_extreme(v, act, 0, v.size(), kind);
        if (i < 0) continue;  // no active lane
        switch (order) {
        case ReduceOrder::ORDER_VALUE_INDEX:
            ub_store<T>(out, v[static_cast<size_t>(i)]);
            store_index_bits<T>(out + sz, static_cast<uint64_t>(i));
            break;
        case ReduceOrder::ORDER_INDEX_VALUE:
            store_index_bits<T>(out, static_cast<uint64_t>(i));
            ub_store<T>(out + sz, v[static_cast<size_t>(i)]);
            break;
        case ReduceOrder::ORDER_ONLY_VALUE: ub_store<T>(out, v[static_cast<size_t>(i)]); break;
        case ReduceOrder::ORDER_ONLY_INDEX: ub_store<uint32_t>(out, static_cast<uint32_t>(i)); break;
        }
    }
}

template <class T>
inline void block_reduce(const char* api, RedKind kind, const AscendC::LocalTensor<T>& dst,
                         const AscendC::LocalTensor<T>& src, const MaskPlan& plan, int32_t dstRepStride,
                         int32_t srcBlkStride, int32_t srcRepStride, const std::source_location& loc) {
    check_dtype<T>(api, kF16F32, kF16F32, loc);
    check_stride16(api, "dstRepStride", dstRepStride, loc);
    check_stride16(api, "srcBlkStride", srcBlkStride, loc);
    check_stride16(api, "srcRepStride", srcRepStride, loc);
    if (plan.repeats == 0) return;
    constexpr uint32_t sz = sizeof(T), per_blk = 32 / sz;
    check_operand(api, src.meta_, "src", plan.extent(srcBlkStride, srcRepStride, sz), sz, 32, loc);
    const uint64_t dst_foot = (static_cast<uint64_t>(plan.repeats - 1) * dstRepStride * 8 + 8) * sz;
    check_operand(api, dst.meta_, "dst", dst_foot, sz, 8 * sz, loc);
    std::vector<T> v;
    std::vector<char> act;
    for (int64_t r = 0; r < plan.repeats; ++r) {
        gather_repeat<T>(src.meta_.addr, r, srcBlkStride, srcRepStride, plan, v, act);
        for (uint32_t j = 0; j < 8; ++j) {
            const uint32_t out = static_cast<uint32_t>(dst.meta_.addr + (r * dstRepStride * 8 + j) * sz);
            int64_t i = arg_extreme(v, act, j * per_blk, (j + 1) * per_blk, kind);
            if (i < 0) {
                // A block without active lanes: untouched on A2/A3, default value on 950.
                if (arch() == 3510) {
                    float def = kind == RedKind::Sum ? 0.0f
                                                     : (kind == RedKind::Max ? -std::numeric_limits<float>::infinity()
                                                                             : std::numeric_limits<float>::infinity());
                    ub_store<T>(out, static_cast<T>(def));
                }
                continue;
            }
            if (kind == RedKind::Sum)
                ub_store<T>(out, tree_sum(std::vector<T>(v.begin() + j * per_blk, v.begin() + (j + 1) * per_blk)));
            else
                ub_store<T>(out, v[static_cast<size_t>(i)]);
        }
    }
}

// Work-tensor sizes (elements) for ReduceMax/ReduceMin (documented formula).
inline uint64_t reduce_maxmin_work(uint64_t first_repeats, uint32_t per_blk, uint32_t lanes, bool cal_index) {
    auto div_ceil = [](uint64_t a, uint64_t b) { return (a + b - 1) / b; };
    uint64_t n1 = first_repeats * 2;
    uint64_t s1 = div_ceil(n1, per_blk) * per_blk;
    if (!cal_index) return s1;
    uint64_t n2 = div_ceil(n1, lanes) * 2;
    uint64_t total = s1 + div_ceil(n2, per_blk) * per_blk;
    if (n2 > 2) {
        uint64_t n3 = div_ceil(n2, lanes) * 2;
        total = s1 + div_ceil(n2, per_blk) * per_blk + div_ceil(n3, per_blk) * per_blk;
    }
    return total;
}

template <class T>
inline void check_work(const char* api, const AscendC::LocalTensor<T>& work, uint64_t need_elems,
                       const std::source_location& loc) {
    check_local_usable(api, work.meta_, "sharedTmpBuffer", loc);
    if (work.meta_.addr % 32 != 0)
        violation(api, fmt("sharedTmpBuffer start address (UB byte offset %u) is not 32-byte aligned", work.meta_.addr),
                  loc);
    if (work.meta_.size < need_elems)
        violation(api,
                  fmt("sharedTmpBuffer has %u elements but at least %llu are required", work.meta_.size,
                      static_cast<unsigned long long>(need_elems)),
                  loc);
}

// Whole-vector Max/Min with optional index (count and mask forms share this).
template <class T>
inline void reduce_extreme(const char* api, RedKind kind, const AscendC::LocalTensor<T>& dst,
                           const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<T>& work,
                           const MaskPlan& plan, uint64_t src_rep_stride, uint64_t first_repeats, bool cal_index,
                           const std::source_location& loc) {
    constexpr uint32_t sz = sizeof(T), per_blk = 32 / sz, lanes = 8 * per_blk;
    if (plan.repeats == 0) return;  // NOP
    check_work(api, work, reduce_maxmin_work(first_repeats, per_blk, lanes, cal_index), loc);
    check_operand(api, src.meta_, "src", plan.extent(1, src_rep_stride, sz), sz, 32, loc);
    check_operand(api, dst.meta_, "dst", cal_index ? 2 * sz : sz, sz, cal_index ? 2 * sz : sz, loc);
    std::vector<T> v, all;
    std::vector<char> act, all_act;
    for (int64_t r = 0; r < plan.repeats; ++r) {
        gather_repeat<T>(src.meta_.addr, r, 1, src_rep_stride, plan, v, act);
        all.insert(all.end(), v.begin(), v.end());
        all_act.insert(all_act.end(), act.begin(), act.end());
    }
    int64_t i = arg_extreme(all, all_act, 0, all.size(), kind);
    if (i < 0) return;
    ub_store<T>(dst.meta_.addr, all[static_cast<size_t>(i)]);
    if (cal_index) {
        if (sz == 2 && i > 65535)
            violation(api, fmt("index %lld of the result does not fit the uint16 index of half", static_cast<long long>(i)),
                      loc);
        store_index_bits<T>(dst.meta_.addr + sz, static_cast<uint64_t>(i));
    }
}

// Plan for ReduceSum/Max/Min mask forms: repeatTime may exceed 255 there.
template <class T>
inline MaskPlan reduce_plan(const char* api, uint64_t mask, const uint64_t* bits, int64_t repeat,
                            const std::source_location& loc) {
    if (repeat < 0) violation(api, fmt("repeatTime %lld is negative", static_cast<long long>(repeat)), loc);
    MaskPlan p = bits ? plan_bits<T, true>(api, bits, 1, loc) : plan_continuous<T, true>(api, mask, 1, loc);
    if (p.repeats != 0) p.repeats = repeat;
    return p;
}

template <class T>
inline void reduce_sum_mask_form(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                                 const AscendC::LocalTensor<T>& work, const MaskPlan& plan, int32_t repeatTime,
                                 int32_t srcRepStride, const std::source_location& loc) {
    constexpr uint32_t sz = sizeof(T), per_blk = 32 / sz, lanes = 8 * per_blk;
    check_dtype<T>("ReduceSum", kF16F32, kF16F32, loc);
    check_stride16("ReduceSum", "srcRepStride", srcRepStride, loc);
    if (plan.repeats == 0) return;  // NOP
    check_work("ReduceSum", work, (static_cast<uint64_t>(repeatTime) + per_blk - 1) / per_blk * per_blk, loc);
    check_operand("ReduceSum", src.meta_, "src", plan.extent(1, srcRepStride, sz), sz, 32, loc);
    check_operand("ReduceSum", dst.meta_, "dst", sz, sz, sz, loc);
    std::vector<T> v, partial;
    std::vector<char> act;
    for (int64_t r = 0; r < plan.repeats; ++r) {
        gather_repeat<T>(src.meta_.addr, r, 1, srcRepStride, plan, v, act);
        partial.push_back(tree_sum(v));
    }
    ub_store<T>(dst.meta_.addr, multi_level_sum(partial, lanes));
}

}  // namespace ascendc_sim::detail

namespace AscendC {

// ---- WholeReduceSum / Max / Min ------------------------------------------------

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    if (mask < 0) d::violation("WholeReduceSum", d::fmt("mask %d is negative", mask), loc);
    d::MaskPlan plan = d::plan_continuous<T, isSetMask>("WholeReduceSum", static_cast<uint64_t>(mask), repeatTime, loc);
    d::whole_reduce<T>("WholeReduceSum", d::RedKind::Sum, dst, src, plan, dstRepStride, srcBlkStride, srcRepStride,
                       ReduceOrder::ORDER_ONLY_VALUE, loc);
}
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::MaskPlan plan = d::plan_bits<T, isSetMask>("WholeReduceSum", mask, repeatTime, loc);
    d::whole_reduce<T>("WholeReduceSum", d::RedKind::Sum, dst, src, plan, dstRepStride, srcBlkStride, srcRepStride,
                       ReduceOrder::ORDER_ONLY_VALUE, loc);
}

#define ASCENDC_SIM_WHOLE_MAXMIN(NAME, KIND)                                                                          \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,                        \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,                \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,                  \
                     std::source_location loc = std::source_location::current()) {                                    \
        namespace d = ascendc_sim::detail;                                                                            \
        if (mask < 0) d::violation(#NAME, d::fmt("mask %d is negative", mask), loc);                                  \
        d::MaskPlan plan = d::plan_continuous<T, isSetMask>(#NAME, static_cast<uint64_t>(mask), repeatTime, loc);     \
        d::whole_reduce<T>(#NAME, KIND, dst, src, plan, dstRepStride, srcBlkStride, srcRepStride, order, loc);        \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                     \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,                \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,                  \
                     std::source_location loc = std::source_location::current()) {                                    \
        namespace d = ascendc_sim::detail;                                                                            \
        d::MaskPlan plan = d::plan_bits<T, isSetMask>(#NAME, mask, repeatTime, loc);                                  \
        d::whole_reduce<T>(#NAME, KIND, dst, src, plan, dstRepStride, srcBlkStride, srcRepStride, order, loc);        \
    }
ASCENDC_SIM_WHOLE_MAXMIN(WholeReduceMax, d::RedKind::Max)
ASCENDC_SIM_WHOLE_MAXMIN(WholeReduceMin, d::RedKind::Min)
#undef ASCENDC_SIM_WHOLE_MAXMIN

// ---- BlockReduceSum / Max / Min (note: repeatTime before mask) ----------------

#define ASCENDC_SIM_BLOCK_REDUCE(NAME, KIND)                                                                          \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,                  \
                     const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,                      \
                     const int32_t srcRepStride, std::source_location loc = std::source_location::current()) {        \
        namespace d = ascendc_sim::detail;                                                                            \
        if (mask < 0) d::violation(#NAME, d::fmt("mask %d is negative", mask), loc);                                  \
        d::MaskPlan plan = d::plan_continuous<T, isSetMask>(#NAME, static_cast<uint64_t>(mask), repeatTime, loc);     \
        d::block_reduce<T>(#NAME, KIND, dst, src, plan, dstRepStride, srcBlkStride, srcRepStride, loc);               \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,                  \
                     const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,                   \
                     const int32_t srcRepStride, std::source_location loc = std::source_location::current()) {        \
        namespace d = ascendc_sim::detail;                                                                            \
        d::MaskPlan plan = d::plan_bits<T, isSetMask>(#NAME, mask, repeatTime, loc);                                  \
        d::block_reduce<T>(#NAME, KIND, dst, src, plan, dstRepStride, srcBlkStride, srcRepStride, loc);               \
    }
ASCENDC_SIM_BLOCK_REDUCE(BlockReduceSum, d::RedKind::Sum)
ASCENDC_SIM_BLOCK_REDUCE(BlockReduceMax, d::RedKind::Max)
ASCENDC_SIM_BLOCK_REDUCE(BlockReduceMin, d::RedKind::Min)
#undef ASCENDC_SIM_BLOCK_REDUCE

// ---- 9.1 names ------------------------------------------------------------------

template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
inline void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask,
                         const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                         const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                         std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    static_assert(std::is_same_v<T, U>, "ReduceRepeat: dst and src types must match on A2/A3");
    if (mask < 0) d::violation("ReduceRepeat", d::fmt("mask %d is negative", mask), loc);
    d::MaskPlan plan = d::plan_continuous<T, isSetMask>("ReduceRepeat", static_cast<uint64_t>(mask), repeatTime, loc);
    d::RedKind k = reduceType == ReduceType::SUM ? d::RedKind::Sum
                                                 : (reduceType == ReduceType::MAX ? d::RedKind::Max : d::RedKind::Min);
    d::whole_reduce<T>("ReduceRepeat", k, dst, src, plan, dstRepStride, srcBlkStride, srcRepStride,
                       k == d::RedKind::Sum ? ReduceOrder::ORDER_ONLY_VALUE : order, loc);
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
inline void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[],
                         const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                         const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                         std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    static_assert(std::is_same_v<T, U>, "ReduceRepeat: dst and src types must match on A2/A3");
    d::MaskPlan plan = d::plan_bits<T, isSetMask>("ReduceRepeat", mask, repeatTime, loc);
    d::RedKind k = reduceType == ReduceType::SUM ? d::RedKind::Sum
                                                 : (reduceType == ReduceType::MAX ? d::RedKind::Max : d::RedKind::Min);
    d::whole_reduce<T>("ReduceRepeat", k, dst, src, plan, dstRepStride, srcBlkStride, srcRepStride,
                       k == d::RedKind::Sum ? ReduceOrder::ORDER_ONLY_VALUE : order, loc);
}

// ReduceDataBlock: like BlockReduce*, but mask comes before repeatTime.
template <ReduceType reduceType, typename T, bool isSetMask = true>
inline void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                            const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                            const int32_t srcRepStride, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    if (mask < 0) d::violation("ReduceDataBlock", d::fmt("mask %d is negative", mask), loc);
    d::MaskPlan plan =
        d::plan_continuous<T, isSetMask>("ReduceDataBlock", static_cast<uint64_t>(mask), repeatTime, loc);
    d::RedKind k = reduceType == ReduceType::SUM ? d::RedKind::Sum
                                                 : (reduceType == ReduceType::MAX ? d::RedKind::Max : d::RedKind::Min);
    d::block_reduce<T>("ReduceDataBlock", k, dst, src, plan, dstRepStride, srcBlkStride, srcRepStride, loc);
}
template <ReduceType reduceType, typename T, bool isSetMask = true>
inline void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                            const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                            const int32_t srcRepStride, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::MaskPlan plan = d::plan_bits<T, isSetMask>("ReduceDataBlock", mask, repeatTime, loc);
    d::RedKind k = reduceType == ReduceType::SUM ? d::RedKind::Sum
                                                 : (reduceType == ReduceType::MAX ? d::RedKind::Max : d::RedKind::Min);
    d::block_reduce<T>("ReduceDataBlock", k, dst, src, plan, dstRepStride, srcBlkStride, srcRepStride, loc);
}

// ---- ReduceSum: whole vector -------------------------------------------------------

// Count form.  2201: tree per repeat, partial sums added sequentially.
template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    constexpr uint32_t sz = sizeof(T), per_blk = 32 / sz, lanes = 8 * per_blk;
    d::check_dtype<T>("ReduceSum", d::kF16F32, d::kF16F32, loc);
    d::check_count("ReduceSum", count, loc);
    if (count == 0) return;  // NOP
    const uint64_t first = std::max<uint64_t>(1, static_cast<uint64_t>(count) / lanes);
    d::check_work("ReduceSum", sharedTmpBuffer, (first + per_blk - 1) / per_blk * per_blk, loc);
    d::check_operand("ReduceSum", src.meta_, "src", static_cast<uint64_t>(count) * sz, sz, 32, loc);
    d::check_operand("ReduceSum", dst.meta_, "dst", sz, sz, sz, loc);
    d::MaskPlan plan;
    plan.lanes = lanes;
    plan.counter = true;
    plan.count = static_cast<uint64_t>(count);
    plan.repeats = (count + lanes - 1) / lanes;
    std::vector<T> v, partial;
    std::vector<char> act;
    for (int64_t r = 0; r < plan.repeats; ++r) {
        d::gather_repeat<T>(src.meta_.addr, r, 1, 8, plan, v, act);
        partial.push_back(d::tree_sum(v));
    }
    T acc;
    if (d::arch() == 2201) {
        acc = partial[0];
        for (size_t i = 1; i < partial.size(); ++i) acc = d::red_add(acc, partial[i]);
    } else {
        acc = d::multi_level_sum(partial, lanes);
    }
    d::ub_store<T>(dst.meta_.addr, acc);
    d::restore_mask_after_count_form();
}

// Mask forms (tree inside and across repeats; repeatTime may exceed 255).
template <typename T>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride,
                      std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    if (mask < 0) d::violation("ReduceSum", d::fmt("mask %d is negative", mask), loc);
    d::MaskPlan plan = d::reduce_plan<T>("ReduceSum", static_cast<uint64_t>(mask), nullptr, repeatTime, loc);
    d::reduce_sum_mask_form<T>(dst, src, sharedTmpBuffer, plan, repeatTime, srcRepStride, loc);
}
template <typename T>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride,
                      std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::MaskPlan plan = d::reduce_plan<T>("ReduceSum", 0, mask, repeatTime, loc);
    d::reduce_sum_mask_form<T>(dst, src, sharedTmpBuffer, plan, repeatTime, srcRepStride, loc);
}

// ---- ReduceMax / ReduceMin: whole vector, optional index -----------------------------

#define ASCENDC_SIM_REDUCE_EXTREME(NAME, KIND)                                                                        \
    template <typename T>                                                                                             \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,     \
                     const int32_t count, bool calIndex = 0,                                                          \
                     std::source_location loc = std::source_location::current()) {                                    \
        namespace d = ascendc_sim::detail;                                                                            \
        constexpr uint32_t lanes = 256 / sizeof(T);                                                                   \
        d::check_dtype<T>(#NAME, d::kF16F32, d::kF16F32, loc);                                                        \
        d::check_count(#NAME, count, loc);                                                                            \
        d::MaskPlan plan;                                                                                             \
        plan.lanes = lanes;                                                                                           \
        plan.counter = true;                                                                                          \
        plan.count = static_cast<uint64_t>(count);                                                                    \
        plan.repeats = (count + lanes - 1) / lanes;                                                                   \
        d::reduce_extreme<T>(#NAME, KIND, dst, src, sharedTmpBuffer, plan, 8, static_cast<uint64_t>(count) / lanes,   \
                             calIndex, loc);                                                                          \
        d::restore_mask_after_count_form();                                                                           \
    }                                                                                                                 \
    template <typename T>                                                                                             \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,     \
                     const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0,     \
                     std::source_location loc = std::source_location::current()) {                                    \
        namespace d = ascendc_sim::detail;                                                                            \
        d::check_dtype<T>(#NAME, d::kF16F32, d::kF16F32, loc);                                                        \
        if (mask < 0) d::violation(#NAME, d::fmt("mask %d is negative", mask), loc);                                  \
        d::check_stride16(#NAME, "srcRepStride", srcRepStride, loc);                                                  \
        d::MaskPlan plan = d::reduce_plan<T>(#NAME, static_cast<uint64_t>(mask), nullptr, repeatTime, loc);           \
        d::reduce_extreme<T>(#NAME, KIND, dst, src, sharedTmpBuffer, plan, static_cast<uint64_t>(srcRepStride),       \
                             static_cast<uint64_t>(repeatTime), calIndex, loc);                                       \
    }                                                                                                                 \
    template <typename T>                                                                                             \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,     \
                     const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0,  \
                     std::source_location loc = std::source_location::current()) {                                    \
        namespace d = ascendc_sim::detail;                                                                            \
        d::check_dtype<T>(#NAME, d::kF16F32, d::kF16F32, loc);                                                        \
        d::check_stride16(#NAME, "srcRepStride", srcRepStride, loc);                                                  \
        d::MaskPlan plan = d::reduce_plan<T>(#NAME, 0, mask, repeatTime, loc);                                        \
        d::reduce_extreme<T>(#NAME, KIND, dst, src, sharedTmpBuffer, plan, static_cast<uint64_t>(srcRepStride),       \
                             static_cast<uint64_t>(repeatTime), calIndex, loc);                                       \
    }
ASCENDC_SIM_REDUCE_EXTREME(ReduceMax, d::RedKind::Max)
ASCENDC_SIM_REDUCE_EXTREME(ReduceMin, d::RedKind::Min)
#undef ASCENDC_SIM_REDUCE_EXTREME

}  // namespace AscendC
