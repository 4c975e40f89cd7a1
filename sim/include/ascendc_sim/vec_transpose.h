// vec_transpose.h - Transpose (ascendc_api.md §4.7, `API/Memory矢量计算/数据排布转换/Transpose.md`).
//
// Two forms:
//  * basic: `Transpose(dst, src)` transposes one 16x16 tile of a 2-byte type
//    (int16/uint16/half); dst == src (full in-place) is allowed;
//  * enhanced: `Transpose(dst, src, sharedTmpBuffer, TransposeParamsExt)` with
//    TRANSPOSE_NCHW2NHWC ([N, C, H, W] -> [N, H, W, C]) or TRANSPOSE_NHWC2NCHW
//    (the inverse), int8/uint8/int16/uint16/half/int32/uint32/float on 2201.
//    Preconditions checked: h*w*sizeof(T) a multiple of 32 bytes, c <= 4095,
//    sharedTmpBuffer of at least (c+2)*h0*w0*sizeof(T) bytes (NCHW2NHWC) resp.
//    (2c+1)*h0*w0*sizeof(T) (NHWC2NCHW) with h0 = 16 (32 for 8-bit types) and
//    w0 = 32/sizeof(T), src, dst and the temporary pairwise disjoint (no reuse),
//    32-byte aligned operands holding n*c*h*w elements.
//    TRANSPOSE_ND2ND_B16 and the other layout types are not emulated (violation).
#pragma once

#include "vec_common.h"

namespace AscendC {

enum class TransposeType : uint8_t {
    TRANSPOSE_TYPE_NONE = 0,
    TRANSPOSE_ND2ND_B16,
    TRANSPOSE_NCHW2NHWC,
    TRANSPOSE_NHWC2NCHW,
};

struct TransposeParamsExt {
    uint16_t nSize = 0;
    uint16_t cSize = 0;
    uint16_t hSize = 0;
    uint16_t wSize = 0;
    TransposeType transposeType = TransposeType::TRANSPOSE_TYPE_NONE;
    TransposeParamsExt() = default;
    TransposeParamsExt(uint16_t n, uint16_t c, uint16_t h, uint16_t w, TransposeType type)
        : nSize(n), cSize(c), hSize(h), wSize(w), transposeType(type) {}
};

}  // namespace AscendC

namespace ascendc_sim::detail {
inline constexpr uint32_t kTransposeB16 = dbit(DT::I16) | dbit(DT::U16) | dbit(DT::F16);
inline constexpr uint32_t kTransposeExt = dbit(DT::I8) | dbit(DT::U8) | dbit(DT::I16) | dbit(DT::U16) |
                                          dbit(DT::F16) | dbit(DT::I32) | dbit(DT::U32) | dbit(DT::F32);
}  // namespace ascendc_sim::detail

namespace AscendC {

// Basic form: one 16x16 tile of a 2-byte type.
template <typename T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_dtype<T>("Transpose", d::kTransposeB16, d::kTransposeB16, loc);
    constexpr uint32_t sz = sizeof(T);
    constexpr uint64_t bytes = 16ull * 16ull * sz;
    d::check_operand("Transpose", src.meta_, "src", bytes, sz, 32, loc);
    d::check_operand("Transpose", dst.meta_, "dst", bytes, sz, 32, loc);
    d::check_no_partial_overlap("Transpose", "dst", dst.meta_.addr, bytes, "src", src.meta_.addr, bytes, loc);
    T tile[256];
    for (uint32_t i = 0; i < 256; ++i) tile[i] = d::ub_load<T>(src.meta_.addr + i * sz);
    for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t c = 0; c < 16; ++c) d::ub_store<T>(dst.meta_.addr + (c * 16 + r) * sz, tile[r * 16 + c]);
}

// Enhanced form: NCHW <-> NHWC with a shared temporary buffer.
template <typename T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<uint8_t>& sharedTmpBuffer, const TransposeParamsExt& p,
                      std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    const bool to_nhwc = p.transposeType == TransposeType::TRANSPOSE_NCHW2NHWC;
    const bool to_nchw = p.transposeType == TransposeType::TRANSPOSE_NHWC2NCHW;
    if (!to_nhwc && !to_nchw)
        d::violation("Transpose",
                     d::fmt("transposeType %u is not emulated (only TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW)",
                            static_cast<unsigned>(p.transposeType)),
                     loc);
    d::check_dtype<T>("Transpose", d::kTransposeExt, d::kTransposeExt, loc);
    constexpr uint32_t sz = sizeof(T);
    const uint64_t n = p.nSize, c = p.cSize, h = p.hSize, w = p.wSize;
    if ((h * w * sz) % 32 != 0)
        d::violation("Transpose",
                     d::fmt("hSize*wSize*sizeof(T) = %llu bytes is not a multiple of 32",
                            static_cast<unsigned long long>(h * w * sz)),
                     loc);
    if (c > 4095)
        d::violation("Transpose", d::fmt("cSize %llu exceeds 4095", static_cast<unsigned long long>(c)), loc);
    const uint64_t h0 = sz == 1 ? 32 : 16;
    const uint64_t w0 = 32 / sz;
    const uint64_t tmp_need = (to_nhwc ? c + 2 : 2 * c + 1) * h0 * w0 * sz;
    const uint64_t tmp_have = static_cast<uint64_t>(sharedTmpBuffer.meta_.size);
    if (tmp_have < tmp_need)
        d::violation("Transpose",
                     d::fmt("sharedTmpBuffer has %llu bytes but at least %llu are required",
                            static_cast<unsigned long long>(tmp_have), static_cast<unsigned long long>(tmp_need)),
                     loc);
    const uint64_t bytes = n * c * h * w * sz;
    d::check_operand("Transpose", src.meta_, "src", bytes, sz, 32, loc);
    d::check_operand("Transpose", dst.meta_, "dst", bytes, sz, 32, loc);
    d::check_operand("Transpose", sharedTmpBuffer.meta_, "sharedTmpBuffer", tmp_need, 1, 32, loc);
    d::check_disjoint("Transpose", "dst", dst.meta_.addr, bytes, "src", src.meta_.addr, bytes, loc);
    d::check_disjoint("Transpose", "sharedTmpBuffer", sharedTmpBuffer.meta_.addr, tmp_need, "src", src.meta_.addr,
                      bytes, loc);
    d::check_disjoint("Transpose", "sharedTmpBuffer", sharedTmpBuffer.meta_.addr, tmp_need, "dst", dst.meta_.addr,
                      bytes, loc);
    const uint64_t hw = h * w;
    for (uint64_t b = 0; b < n; ++b)
        for (uint64_t ci = 0; ci < c; ++ci)
            for (uint64_t x = 0; x < hw; ++x) {
                const uint64_t nchw = (b * c + ci) * hw + x;
                const uint64_t nhwc = (b * hw + x) * c + ci;
                const uint64_t from = to_nhwc ? nchw : nhwc;
                const uint64_t to = to_nhwc ? nhwc : nchw;
                d::ub_store<T>(static_cast<uint32_t>(dst.meta_.addr + to * sz),
                               d::ub_load<T>(static_cast<uint32_t>(src.meta_.addr + from * sz)));
            }
    // The temporary is clobbered on the device.
    for (uint64_t i = 0; i < tmp_need; ++i)
        d::ub_store<uint8_t>(static_cast<uint32_t>(sharedTmpBuffer.meta_.addr + i), 0xA5);
}

}  // namespace AscendC
