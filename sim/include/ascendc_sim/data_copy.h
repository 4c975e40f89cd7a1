// ascendc_sim/data_copy.h - DataCopy and DataCopyPad between GM and UB (fact sheet 3).
//
// DataCopy (count form) moves floor(count*sizeof(T)/32)*32 bytes: the hardware
// silently drops a trailing partial 32 B block, and so do we (a warning is
// printed only with ASCENDC_SIM_WARN=1).  The strided form moves blockCount
// blocks of blockLen 32 B units with end-to-start gaps in 32 B units.
//
// DataCopyPad is byte-granular on the GM side.  GM->UB lays every block out in
// UB as [leftPadding elements][blockLen bytes][rightPadding elements], rounded
// up to the next 32 B boundary; the padding holds paddingValue (isPad) and the
// filler up to the boundary ("dummy" data) repeats the pad value, or, without
// padding, the block's first element (CCE intrinsic copy_gm_to_ubuf_align
// docs).  With isPad false the pad value is the pad register's: set by SetPadValue
// or by an earlier DataCopyPad with isPad (the vendor writes both with
// set_mov_pad_val).  UB->GM reads 32 B-rounded blocks and writes exactly blockLen bytes.
// GM strides are in bytes, UB strides in 32 B blocks.
//
// Every GM byte range is bounds-checked (GlobalTensor extent and registered
// allocations) and counted in the launch's GM read/write counters.
#pragma once

#include "tensor.h"

namespace ascendc_sim::detail {

template <class T>
inline void check_gm_elem_align(const char* api, const AscendC::GlobalTensor<T>& g, const std::source_location& loc) {
    if (reinterpret_cast<uintptr_t>(g.ptr_) % alignof(T) != 0)
        violation(api, fmt("GM address %p is not aligned to sizeof(%s) = %zu", static_cast<const void*>(g.ptr_),
                           type_name<T>(), sizeof(T)),
                  loc);
}

inline void check_copy_params(const char* api, uint32_t blockCount, const std::source_location& loc) {
    if (blockCount > 4095) violation(api, fmt("blockCount %u out of range [0, 4095]", blockCount), loc);
}

// Element-sized filler value for DataCopyPad.
template <class T>
inline T pad_fill_value(bool isPad, T paddingValue, const uint8_t* first_elem) {
    if (isPad) return paddingValue;
    const SimState& s = st();
    T v;
    if (s.pad_value_set) {
        std::memcpy(&v, &s.pad_value_bits, sizeof(T));
        return v;
    }
    std::memcpy(&v, first_elem, sizeof(T));
    return v;
}

template <class T>
inline void pad_gm_to_ub(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src,
                         uint32_t blockCount, uint32_t blockLen, uint32_t srcStrideBytes, uint32_t dstStrideBlocks,
                         bool isPad, uint32_t left, uint32_t right, T padValue, const std::source_location& loc) {
    constexpr uint32_t sz = sizeof(T);
    check_dtype<T>(api, kAllStorage, kAllStorage, loc);
    check_copy_params(api, blockCount, loc);
    if (blockLen > 2097151) violation(api, fmt("blockLen %u bytes out of range [0, 2097151]", blockLen), loc);
    if (blockLen % sz != 0)
        violation(api, fmt("blockLen %u bytes is not a multiple of sizeof(%s) = %u", blockLen, type_name<T>(), sz),
                  loc);
    if (left * sz > 32 || right * sz > 32)
        violation(api,
                  fmt("leftPadding (%u) and rightPadding (%u) must each be at most 32 bytes (%u elements of %s)", left,
                      right, 32 / sz, type_name<T>()),
                  loc);
    if (isPad && sz == 8) {
        uint64_t bits = 0;
        std::memcpy(&bits, &padValue, 8);
        if (bits != 0) violation(api, "paddingValue must be 0 for 64-bit element types", loc);
    }
    if (blockCount == 0 || blockLen == 0) return;  // NOP on A2/A3
    const uint32_t ub_block = round_up(static_cast<uint64_t>(left) * sz + blockLen + static_cast<uint64_t>(right) * sz, 32);
    const uint64_t ub_pitch = ub_block + static_cast<uint64_t>(dstStrideBlocks) * 32;
    const uint64_t footprint = (blockCount - 1) * ub_pitch + ub_block;
    check_operand(api, dst.meta_, "dst", footprint, sz, 32, loc);
    check_gm_elem_align(api, src, loc);
    uint8_t* ub = ub_base();
    if (isPad) {
        // The pad value goes through the one pad register SetPadValue also writes (the
        // vendor's DataCopyPad and SetPadValue both call set_mov_pad_val), so later
        // copies with isPad false fill with it too (found by the vendor path).
        SimState& s = st();
        s.pad_value_set = true;
        s.pad_value_bits = 0;
        std::memcpy(&s.pad_value_bits, &padValue, sizeof(T));
    }
    for (uint32_t i = 0; i < blockCount; ++i) {
        const uint8_t* g =
            reinterpret_cast<const uint8_t*>(src.ptr_) + static_cast<uint64_t>(i) * (static_cast<uint64_t>(blockLen) + srcStrideBytes);
        gm_access(api, src.root_begin_, src.check_end(), g, blockLen, false, loc);
        uint8_t* u = ub + dst.meta_.addr + i * ub_pitch;
        T fill = pad_fill_value<T>(isPad, padValue, g);
        uint32_t pos = 0;
        for (uint32_t k = 0; k < left; ++k, pos += sz) std::memcpy(u + pos, &fill, sz);
        std::memcpy(u + pos, g, blockLen);
        pos += blockLen;
        for (; pos < ub_block; pos += sz) std::memcpy(u + pos, &fill, sz);  // right padding + dummy filler
    }
}

template <class T>
inline void pad_ub_to_gm(const char* api, const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                         uint32_t blockCount, uint32_t blockLen, uint32_t srcStrideBlocks, uint32_t dstStrideBytes,
                         const std::source_location& loc) {
    constexpr uint32_t sz = sizeof(T);
    check_dtype<T>(api, kAllStorage, kAllStorage, loc);
    check_copy_params(api, blockCount, loc);
    if (blockLen > 2097151) violation(api, fmt("blockLen %u bytes out of range [0, 2097151]", blockLen), loc);
    if (blockLen % sz != 0)
        violation(api, fmt("blockLen %u bytes is not a multiple of sizeof(%s) = %u", blockLen, type_name<T>(), sz),
                  loc);
    if (blockCount == 0 || blockLen == 0) return;
    const uint64_t ub_pitch = round_up(blockLen, 32) + static_cast<uint64_t>(srcStrideBlocks) * 32;
    const uint64_t footprint = (blockCount - 1) * ub_pitch + blockLen;
    check_operand(api, src.meta_, "src", footprint, sz, 32, loc);
    check_gm_elem_align(api, dst, loc);
    const uint8_t* ub = ub_base();
    for (uint32_t i = 0; i < blockCount; ++i) {
        uint8_t* g = reinterpret_cast<uint8_t*>(dst.ptr_) + static_cast<uint64_t>(i) * (static_cast<uint64_t>(blockLen) + dstStrideBytes);
        gm_access(api, dst.root_begin_, dst.check_end(), g, blockLen, true, loc);
        std::memcpy(g, ub + src.meta_.addr + i * ub_pitch, blockLen);
    }
}

inline uint64_t truncated_bytes(const char* api, uint64_t count, uint32_t sz, const std::source_location& loc) {
    uint64_t want = count * sz;
    uint64_t bytes = want / 32 * 32;
    if (bytes != want)
        warn(api,
             fmt("count*sizeof(T) = %llu bytes is not a multiple of 32; only %llu bytes are moved (use DataCopyPad)",
                 static_cast<unsigned long long>(want), static_cast<unsigned long long>(bytes)),
             loc);
    return bytes;
}

}  // namespace ascendc_sim::detail

namespace AscendC {

// ---- DataCopy, contiguous (count) form ------------------------------------

// GM -> UB
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count,
                     std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("DataCopy", d::kAllStorage, d::kAllStorage, loc);
    uint64_t bytes = d::truncated_bytes("DataCopy", count, sizeof(T), loc);
    if (bytes == 0) return;
    d::check_operand("DataCopy", dst.meta_, "dst", bytes, sizeof(T), 32, loc);
    d::check_gm_elem_align("DataCopy", src, loc);
    d::gm_access("DataCopy", src.root_begin_, src.check_end(), src.ptr_, bytes, false, loc);
    std::memcpy(d::ub_base() + dst.meta_.addr, src.ptr_, bytes);
}

// UB -> GM
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
                     std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("DataCopy", d::kAllStorage, d::kAllStorage, loc);
    uint64_t bytes = d::truncated_bytes("DataCopy", count, sizeof(T), loc);
    if (bytes == 0) return;
    d::check_operand("DataCopy", src.meta_, "src", bytes, sizeof(T), 32, loc);
    d::check_gm_elem_align("DataCopy", dst, loc);
    d::gm_access("DataCopy", dst.root_begin_, dst.check_end(), dst.ptr_, bytes, true, loc);
    std::memcpy(dst.ptr_, d::ub_base() + src.meta_.addr, bytes);
}

// UB -> UB
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
                     std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("DataCopy", d::kAllStorage, d::kAllStorage, loc);
    uint64_t bytes = d::truncated_bytes("DataCopy", count, sizeof(T), loc);
    if (bytes == 0) return;
    d::check_operand("DataCopy", dst.meta_, "dst", bytes, sizeof(T), 32, loc);
    d::check_operand("DataCopy", src.meta_, "src", bytes, sizeof(T), 32, loc);
    std::memmove(d::ub_base() + dst.meta_.addr, d::ub_base() + src.meta_.addr, bytes);
}

// ---- DataCopy, strided form (units: 32 B blocks on both sides) ------------

namespace sim_impl {
inline uint64_t strided_footprint(const DataCopyParams& p, uint16_t stride) {
    return ((static_cast<uint64_t>(p.blockCount) - 1) * (p.blockLen + stride) + p.blockLen) * 32;
}
}  // namespace sim_impl

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                     std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("DataCopy", d::kAllStorage, d::kAllStorage, loc);
    d::check_copy_params("DataCopy", p.blockCount, loc);
    if (p.blockCount == 0 || p.blockLen == 0) return;
    d::check_operand("DataCopy", dst.meta_, "dst", sim_impl::strided_footprint(p, p.dstStride), sizeof(T), 32, loc);
    d::check_gm_elem_align("DataCopy", src, loc);
    const uint64_t len = static_cast<uint64_t>(p.blockLen) * 32;
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        const uint8_t* g = reinterpret_cast<const uint8_t*>(src.ptr_) + i * (static_cast<uint64_t>(p.blockLen) + p.srcStride) * 32;
        d::gm_access("DataCopy", src.root_begin_, src.check_end(), g, len, false, loc);
        std::memcpy(d::ub_base() + dst.meta_.addr + i * (static_cast<uint64_t>(p.blockLen) + p.dstStride) * 32, g, len);
    }
}

template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                     std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("DataCopy", d::kAllStorage, d::kAllStorage, loc);
    d::check_copy_params("DataCopy", p.blockCount, loc);
    if (p.blockCount == 0 || p.blockLen == 0) return;
    d::check_operand("DataCopy", src.meta_, "src", sim_impl::strided_footprint(p, p.srcStride), sizeof(T), 32, loc);
    d::check_gm_elem_align("DataCopy", dst, loc);
    const uint64_t len = static_cast<uint64_t>(p.blockLen) * 32;
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        uint8_t* g = reinterpret_cast<uint8_t*>(dst.ptr_) + i * (static_cast<uint64_t>(p.blockLen) + p.dstStride) * 32;
        d::gm_access("DataCopy", dst.root_begin_, dst.check_end(), g, len, true, loc);
        std::memcpy(g, d::ub_base() + src.meta_.addr + i * (static_cast<uint64_t>(p.blockLen) + p.srcStride) * 32, len);
    }
}

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                     std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("DataCopy", d::kAllStorage, d::kAllStorage, loc);
    d::check_copy_params("DataCopy", p.blockCount, loc);
    if (p.blockCount == 0 || p.blockLen == 0) return;
    d::check_operand("DataCopy", dst.meta_, "dst", sim_impl::strided_footprint(p, p.dstStride), sizeof(T), 32, loc);
    d::check_operand("DataCopy", src.meta_, "src", sim_impl::strided_footprint(p, p.srcStride), sizeof(T), 32, loc);
    const uint64_t len = static_cast<uint64_t>(p.blockLen) * 32;
    uint8_t* ub = d::ub_base();
    for (uint32_t i = 0; i < p.blockCount; ++i)
        std::memmove(ub + dst.meta_.addr + i * (static_cast<uint64_t>(p.blockLen) + p.dstStride) * 32,
                     ub + src.meta_.addr + i * (static_cast<uint64_t>(p.blockLen) + p.srcStride) * 32, len);
}

// ---- DataCopyPad ------------------------------------------------------------

// GM -> UB, byte-granular with padding.
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                        const DataCopyPadExtParams<T>& pad, std::source_location loc = std::source_location::current()) {
    ascendc_sim::detail::pad_gm_to_ub<T>("DataCopyPad", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride,
                                         pad.isPad, pad.leftPadding, pad.rightPadding, pad.paddingValue, loc);
}

// UB -> GM, byte-granular.
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p,
                        std::source_location loc = std::source_location::current()) {
    ascendc_sim::detail::pad_ub_to_gm<T>("DataCopyPad", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride,
                                         loc);
}

// Older overloads: DataCopyParams with blockLen in bytes (GM stride bytes, UB stride blocks).
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                        const DataCopyPadParams& pad, std::source_location loc = std::source_location::current()) {
    ascendc_sim::detail::pad_gm_to_ub<T>("DataCopyPad", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride,
                                         pad.isPad, pad.leftPadding, pad.rightPadding,
                                         static_cast<T>(pad.paddingValue), loc);
}

template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                        std::source_location loc = std::source_location::current()) {
    ascendc_sim::detail::pad_ub_to_gm<T>("DataCopyPad", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride,
                                         loc);
}

// Value used for DataCopyPad padding when isPad is false.
template <typename T, TPosition pos = TPosition::MAX>
inline void SetPadValue(T paddingValue) {
    auto& s = ascendc_sim::detail::st();
    s.pad_value_set = true;
    s.pad_value_bits = 0;
    std::memcpy(&s.pad_value_bits, &paddingValue, sizeof(T));
}

}  // namespace AscendC
