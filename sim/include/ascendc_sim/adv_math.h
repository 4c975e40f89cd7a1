// ascendc_sim/adv_math.h - a few high-level (library) activation APIs (fact sheet 4.8):
// Sigmoid, Tanh, Erf, Silu, Gelu (tanh approximation), FasterGelu.
//
// On the device these are sequences of basic vector instructions working in a
// temporary buffer; here each element is evaluated in double precision with
// the documented formula and rounded once to the element type, so results can
// differ from the device in the last bits.  The optional sharedTmpBuffer is
// checked for usability, 32 B alignment and, for Tanh and Erf, the smallest size the
// vendor's implementation accepts (CANN 8.1.RC1 highlevel_api math/tanh, math/erf:
// they split the count into chunks of bytes/sizeof(float) resp. bytes/sizeof(T)
// divided by 2 (Tanh half), 1 (Tanh float), 8 (Erf half), 3 (Erf float), rounded
// down to 32 elements, and refuse a chunk of 0 - found by the vendor path,
// docs/ascendc.md); its contents are not modelled.
#pragma once

#include <string_view>

#include "vec_common.h"

namespace ascendc_sim::detail {

// The smallest sharedTmpBuffer (bytes) of `api` for T: one 32-element chunk of its
// temporaries (see the file comment); 0 when any non-empty buffer will do.
template <class T>
inline uint32_t adv_min_tmp_bytes(const char* api) {
    const bool h = sizeof(T) == 2;
    if (std::string_view(api) == "Tanh") return h ? 256 : 128;
    if (std::string_view(api) == "Erf") return h ? 512 : 384;
    return 0;
}

template <class T, class F>
inline void adv_unary(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                      const AscendC::LocalTensor<uint8_t>* tmp, uint32_t count, F f, const std::source_location& loc) {
    check_dtype<T>(api, kF16F32, kF16F32, loc);
    if (tmp != nullptr) {
        check_operand(api, tmp->meta_, "sharedTmpBuffer", 0, 1, 32, loc);
        const uint32_t need = adv_min_tmp_bytes<T>(api);
        if (tmp->meta_.size < need)
            violation(api,
                      fmt("sharedTmpBuffer of %u bytes is too small: the %s implementation needs at least %u bytes "
                          "for %s (one 32-element chunk of its temporaries)",
                          tmp->meta_.size, api, need, sizeof(T) == 2 ? "half" : "float"),
                      loc);
    }
    if (count == 0) return;
    run_count<T, 1>(api, dst, {&src.meta_}, count,
                    [f](const std::array<T, 1>& v) {
                        return static_cast<T>(static_cast<float>(f(static_cast<double>(static_cast<float>(v[0])))));
                    },
                    loc);
}

inline double f_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline double f_gelu(double x) { return x / (1.0 + std::exp(-1.5957691216 * (x + 0.044715 * x * x * x))); }
inline double f_faster_gelu(double x) { return x / (1.0 + std::exp(-1.702 * x)); }
inline double f_silu(double x) { return x / (1.0 + std::exp(-x)); }

}  // namespace ascendc_sim::detail

#define ASCENDC_SIM_ADV_UNARY(NAME, FN)                                                                               \
    template <typename T, bool isReuseSource = false>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                     const uint32_t calCount, std::source_location loc = std::source_location::current()) {           \
        ascendc_sim::detail::adv_unary<T>(#NAME, dst, src, &sharedTmpBuffer, calCount, FN, loc);                      \
    }                                                                                                                 \
    template <typename T, bool isReuseSource = false>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount,                   \
                     std::source_location loc = std::source_location::current()) {                                    \
        ascendc_sim::detail::adv_unary<T>(#NAME, dst, src, nullptr, calCount, FN, loc);                               \
    }

namespace AscendC {

ASCENDC_SIM_ADV_UNARY(Sigmoid, ascendc_sim::detail::f_sigmoid)
ASCENDC_SIM_ADV_UNARY(Tanh, [](double x) { return std::tanh(x); })
ASCENDC_SIM_ADV_UNARY(Erf, [](double x) { return std::erf(x); })
ASCENDC_SIM_ADV_UNARY(Silu, ascendc_sim::detail::f_silu)

// Gelu / FasterGelu carry two extra template flags on the device.
template <typename T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                 const uint32_t dataSize, std::source_location loc = std::source_location::current()) {
    ascendc_sim::detail::adv_unary<T>("Gelu", dst, src, &sharedTmpBuffer, dataSize, ascendc_sim::detail::f_gelu, loc);
}
template <typename T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dataSize,
                 std::source_location loc = std::source_location::current()) {
    ascendc_sim::detail::adv_unary<T>("Gelu", dst, src, nullptr, dataSize, ascendc_sim::detail::f_gelu, loc);
}
template <typename T, bool highPrecision = false, bool highPerformance = false>
inline void FasterGelu(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                       const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t dataSize,
                       std::source_location loc = std::source_location::current()) {
    ascendc_sim::detail::adv_unary<T>("FasterGelu", dst, src, &sharedTmpBuffer, dataSize,
                                      ascendc_sim::detail::f_faster_gelu, loc);
}
template <typename T, bool highPrecision = false, bool highPerformance = false>
inline void FasterGelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dataSize,
                       std::source_location loc = std::source_location::current()) {
    ascendc_sim::detail::adv_unary<T>("FasterGelu", dst, src, nullptr, dataSize, ascendc_sim::detail::f_faster_gelu,
                                      loc);
}

}  // namespace AscendC

#undef ASCENDC_SIM_ADV_UNARY
