// ascendc_sim/adv_math.h - a few high-level (library) activation APIs (fact sheet 4.8):
// Sigmoid, Tanh, Erf, Sin, Cos, Silu, Gelu (tanh approximation), FasterGelu.
//
// On the device these are sequences of basic vector instructions working in a
// temporary buffer.  Sigmoid and Tanh follow the vendor's sequences step by step (CANN
// 8.1.RC1 highlevel_api, found by the vendor path, docs/ascendc.md): Sigmoid in the
// element type, 1 / (1 + exp(-x)) with every step rounded; Tanh in float (half goes
// through float and back), x clipped to [-8.8, 8.8], then (e^2x - 1) / (e^2x + 1).
// The others are evaluated in double precision with the documented formula and
// rounded once to the element type, so their results can differ from the device's
// approximations in the last bits.  The optional sharedTmpBuffer is
// checked for usability, 32 B alignment and, for Tanh, Erf, Sin and Cos, the smallest
// size the vendor's implementation accepts (CANN 8.1.RC1 highlevel_api math/tanh,
// math/erf, math/sin, math/cos: they split the count into chunks of bytes/sizeof(float)
// resp. bytes/sizeof(T) divided by 2 (Tanh half), 1 (Tanh float), 8 (Erf half), 3 (Erf
// float), 4 (Sin/Cos half), 3 (Sin/Cos float), rounded down to 32 elements, and refuse
// a chunk of 0 - found by the vendor path, docs/ascendc.md); its contents are not
// modelled.
#pragma once

#include <string_view>

#include "vec_common.h"
#include "vec_elementwise.h"

namespace ascendc_sim::detail {

// The smallest sharedTmpBuffer (bytes) of `api` for T: one 32-element chunk of its
// temporaries (see the file comment); 0 when any non-empty buffer will do.
template <class T>
inline uint32_t adv_min_tmp_bytes(const char* api) {
    const bool h = sizeof(T) == 2;
    if (std::string_view(api) == "Tanh") return h ? 256 : 128;
    if (std::string_view(api) == "Erf") return h ? 512 : 384;
    if (std::string_view(api) == "Sin" || std::string_view(api) == "Cos") return h ? 512 : 384;
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

// The element-typed forms take T and return T (see adv_unary_t).
template <class T>
inline T v_sigmoid(T x) {
    T t = e_mul(x, static_cast<T>(-1.0f));
    t = e_exp(t);
    t = e_add(t, static_cast<T>(1.0f));
    return e_div(static_cast<T>(1.0f), t);
}
template <class T>
inline T v_tanh(T x) {
    float v = static_cast<float>(x);
    v = v < 8.8f ? v : 8.8f;
    v = v > -8.8f ? v : -8.8f;
    const float e = std::exp(v * 2.0f);
    return static_cast<T>((e - 1.0f) / (e + 1.0f));
}

// An element-typed function wrapped for adv_unary (which passes a double holding the
// element's value, exactly).
template <class T, T (*F)(T)>
inline double typed(double x) {
    return static_cast<double>(static_cast<float>(F(static_cast<T>(static_cast<float>(x)))));
}
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

ASCENDC_SIM_ADV_UNARY(Sigmoid, (ascendc_sim::detail::typed<T, ascendc_sim::detail::v_sigmoid<T>>))
ASCENDC_SIM_ADV_UNARY(Tanh, (ascendc_sim::detail::typed<T, ascendc_sim::detail::v_tanh<T>>))
ASCENDC_SIM_ADV_UNARY(Erf, [](double x) { return std::erf(x); })
ASCENDC_SIM_ADV_UNARY(Sin, [](double x) { return std::sin(x); })
ASCENDC_SIM_ADV_UNARY(Cos, [](double x) { return std::cos(x); })
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
