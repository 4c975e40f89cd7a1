// af_isa/isa.h - a model of the dav_c220 vector-core ISA, the intrinsics the vendor's
// Ascend C implementation (CANN 8.1.RC1 basic_api/impl/dav_c220) calls for the APIs
// autofuse emits.  Written for autofuse from the fact sheet (ascendc_api.md) and from
// the argument lists the vendor code passes; sim/vendor/README.md says why each
// intrinsic behaves as modelled.
//
// Each intrinsic is a template over its operand types, more specialised than the
// undefined catch-all declaration of stub_fun.h: a call the model does not cover binds
// to the catch-all and fails at link time naming the intrinsic, never silently.
//
// A violated rule prints one line `af-isa: error: <intrinsic>: <message>` on stderr
// and exits with status 3 (the status sim/ uses for the same purpose).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>
#include "../../../include/ascendc_sim/block_sched.h"  // shared with the sim launcher
#include "../../../include/ascendc_sim/read_set.h"     // shared with the sim launcher

namespace af_isa {

[[noreturn]] inline void fail(const char* intrinsic, const char* message) {
    std::fprintf(stderr, "af-isa: error: %s: %s\n", intrinsic, message);
    std::fflush(stdout);
    std::exit(3);
}

// Core state: the vector mask register pair and its mode, the accumulator that
// vcadd's accumulate mode writes, the pad-value register of the MTE copies, the
// hardware flags, and the UB range (set by tikicpulib's AscendCBufAbsAddr hook).
// Everything but the last three fields (the launch's GM traffic and allocations)
// belongs to the core the current block runs on: the launcher keeps a copy while
// the block waits at SyncAll (af_vendor_launch.h).
struct Core {
    bool counter = false;
    uint64_t mask_hi = ~0ull, mask_lo = ~0ull;
    int64_t acc = 0;
    uint64_t pad_val = 0;
    bool pad_set = false;  // whether set_mov_pad_val has written the pad register
    uint64_t cmp_mask[2] = {0, 0};
    uint8_t* ub = nullptr;
    uint64_t ub_len = 0;
    int flags[16][16][8] = {};
    int cross_flags[16] = {};           // ffts_cross_core_sync raised, wait_flag_dev not yet consumed
    ascendc_sim::ReadSet block_reads;  // GM spans the current block read
    // The launch's:
    uint64_t gm_read = 0, gm_written = 0;  // bytes the MTE copies moved from / to GM
    std::vector<std::pair<const uint8_t*, uint64_t>> gm;  // the host's GM allocations
};

// The launch in progress, for wait_flag_dev's check of SyncAll (the launcher sets it).
struct LaunchInfo {
    uint32_t block_dim = 1;
    uint32_t vector_cores = 0;  // 0: unknown chip, not checked
    const char* chip = "";
};
inline LaunchInfo& launch_info() {
    static LaunchInfo l;
    return l;
}
inline Core& core() {
    static Core c;
    return c;
}

constexpr uint32_t kBlock = 32;
constexpr uint32_t kRepeat = 256;

template <class T>
struct Elem {
    using type = T;
};

inline void check_ub(const void* p, uint64_t bytes, const char* intrinsic) {
    const Core& c = core();
    if (c.ub == nullptr) return;
    const uint8_t* q = static_cast<const uint8_t*>(p);
    if (q < c.ub || q + bytes > c.ub + c.ub_len) fail(intrinsic, "operand outside the unified buffer");
}

// A GM byte range of a copy must lie inside one GM allocation of the host (the
// launcher's GmBuffer registers them; fact sheet 7.3: out-of-range GM accesses from bad
// copy parameters are what CPU mode catches).
inline void check_gm(const void* p, uint64_t bytes, const char* intrinsic) {
    const Core& c = core();
    if (c.gm.empty() || bytes == 0) return;
    const uint8_t* q = static_cast<const uint8_t*>(p);
    for (const auto& [base, len] : c.gm)
        if (q >= base && q + bytes <= base + len) return;
    fail(intrinsic, "GM access outside every GM allocation");
}

// Lane j of repeat r of an operand with element size `es`, block stride `blk` and
// repeat stride `rep` (both in 32 B blocks): a repeat is 8 blocks, a block holds
// 32/es lanes (fact sheet 4.1).
inline uint8_t* lane_addr(void* base, uint32_t es, uint64_t blk, uint64_t rep, uint64_t r, uint32_t j) {
    const uint32_t per_blk = kBlock / es;
    return static_cast<uint8_t*>(base) + (r * rep + (j / per_blk) * blk) * kBlock + (j % per_blk) * es;
}

// Runs f(r, j) over every active lane.  Normal mode: `repeat` repeats of 256/width
// lanes, lane j active when its bit of the mask pair is set (bits 0..63 in the low
// word, 64..127 in the high word).  Counter mode: the low mask word is an element
// count, `repeat` is ignored and as many repeats run as that count needs (the vendor
// passes repeat 1 with set_mask_count + set_vector_mask(0, count)).
template <class F>
inline void for_lanes(uint32_t width, uint64_t repeat, F&& f) {
    const Core& c = core();
    const uint32_t lanes = kRepeat / width;
    if (c.counter) {
        const uint64_t total = c.mask_lo;
        const uint64_t reps = (total + lanes - 1) / lanes;
        for (uint64_t r = 0; r < reps; ++r) {
            const uint64_t n = std::min<uint64_t>(lanes, total - r * lanes);
            f.begin(r);
            for (uint32_t j = 0; j < n; ++j) f(r, j);
            f.end(r);
        }
        return;
    }
    for (uint64_t r = 0; r < repeat; ++r) {
        f.begin(r);
        for (uint32_t j = 0; j < lanes; ++j) {
            const bool on = j < 64 ? ((c.mask_lo >> j) & 1) : ((c.mask_hi >> (j - 64)) & 1);
            if (on) f(r, j);
        }
        f.end(r);
    }
}

// Number of repeats an instruction executes (for reductions and the accumulator).
inline uint64_t repeats_of(uint32_t width, uint64_t repeat) {
    const Core& c = core();
    if (!c.counter) return repeat;
    const uint32_t lanes = kRepeat / width;
    return (c.mask_lo + lanes - 1) / lanes;
}
inline bool lane_on(uint32_t width, uint64_t r, uint32_t j) {
    const Core& c = core();
    if (c.counter) return r * (kRepeat / width) + j < c.mask_lo;
    return j < 64 ? ((c.mask_lo >> j) & 1) : ((c.mask_hi >> (j - 64)) & 1);
}

template <class T>
inline T load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}
template <class T>
inline void store(uint8_t* p, T v) {
    std::memcpy(p, &v, sizeof(T));
}

// Arithmetic in the element type: 16-bit floats compute in float and round once
// (correctly rounded for + - * / sqrt), integers wrap.
template <class T>
using Wide = std::conditional_t<std::is_integral_v<T>, int64_t, float>;

template <class T, class W>
inline T narrow(W v) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<int64_t>(v));
    else return T(static_cast<float>(v));
}

// One operand of a vector instruction.
struct Opnd {
    void* base;
    uint32_t es;
    uint64_t blk, rep;
    uint8_t* at(uint64_t r, uint32_t j) const { return lane_addr(base, es, blk, rep, r, j); }
};

// A test hook: with AF_ISA_PERTURB=<intrinsic> in the environment, that intrinsic's
// results are off by 1% (+1 for integers).  It exists so that the tests can prove a
// difference between the two paths is reported (tools/tests/vendor.rs,
// test/Target/ascendc/vendor-negative.test); nothing else sets it.
inline bool perturbed(const char* name) {
    static const char* which = std::getenv("AF_ISA_PERTURB");
    return which != nullptr && std::strcmp(which, name) == 0;
}
template <class D>
inline D skewed(D v) {
    if constexpr (std::is_integral_v<D>) return static_cast<D>(v + 1);
    else return D(static_cast<float>(v) * 1.01f + 0.01f);
}

// Elementwise engine: reads every active lane of a repeat first, then writes them,
// so that a dst that fully overlaps a src (in place) sees the old values.
template <class D, class Fn>
struct Elementwise {
    const char* name;
    Opnd dst;
    Fn fn;
    std::vector<std::pair<uint8_t*, D>> out;
    void begin(uint64_t) { out.clear(); }
    void operator()(uint64_t r, uint32_t j) { out.emplace_back(dst.at(r, j), fn(r, j)); }
    void end(uint64_t) {
        const bool skew = perturbed(name);
        for (auto& [p, v] : out) {
            check_ub(p, sizeof(D), name);
            store<D>(p, skew ? skewed(v) : v);
        }
    }
};
template <class D, class Fn>
inline void run_elementwise(const char* name, Opnd dst, uint32_t width, uint64_t repeat, Fn fn) {
    Elementwise<D, Fn> e{name, dst, fn, {}};
    for_lanes(width, repeat, e);
}

template <class T>
inline T read_lane(const Opnd& o, uint64_t r, uint32_t j, const char* name) {
    uint8_t* p = o.at(r, j);
    check_ub(p, sizeof(T), name);
    return load<T>(p);
}

// ---------------------------------------------------------------------------
// Binary: vop(dst, src0, src1, repeat, dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep)
// ---------------------------------------------------------------------------
#define AF_ISA_BINARY(NAME, EXPR)                                                                               \
    template <class T, class R, class B0, class B1, class B2, class R0, class R1, class R2>                       \
    inline void NAME(T* dst, T* src0, T* src1, R repeat, B0 db, B1 s0b, B2 s1b, R0 dr, R1 s0r, R2 s1r) {         \
        const Opnd d{dst, sizeof(T), uint64_t(db), uint64_t(dr)};                                                 \
        const Opnd a{src0, sizeof(T), uint64_t(s0b), uint64_t(s0r)};                                              \
        const Opnd b{src1, sizeof(T), uint64_t(s1b), uint64_t(s1r)};                                              \
        af_isa::run_elementwise<T>(#NAME, d, sizeof(T), uint64_t(repeat), [&](uint64_t r, uint32_t j) {           \
            using W = af_isa::Wide<T>;                                                                            \
            const W x = static_cast<W>(af_isa::read_lane<T>(a, r, j, #NAME));                                    \
            const W y = static_cast<W>(af_isa::read_lane<T>(b, r, j, #NAME));                                    \
            return af_isa::narrow<T>(EXPR);                                                                       \
        });                                                                                                       \
    }

// ---------------------------------------------------------------------------
// Unary: vop(dst, src, repeat, dstBlk, srcBlk, dstRep, srcRep)
// ---------------------------------------------------------------------------
#define AF_ISA_UNARY(NAME, EXPR)                                                                          \
    template <class T, class R, class B0, class B1, class R0, class R1>                                    \
    inline void NAME(T* dst, T* src, R repeat, B0 db, B1 sb, R0 dr, R1 sr) {                               \
        const Opnd d{dst, sizeof(T), uint64_t(db), uint64_t(dr)};                                          \
        const Opnd a{src, sizeof(T), uint64_t(sb), uint64_t(sr)};                                          \
        af_isa::run_elementwise<T>(#NAME, d, sizeof(T), uint64_t(repeat), [&](uint64_t r, uint32_t j) {    \
            using W = af_isa::Wide<T>;                                                                     \
            const W x = static_cast<W>(af_isa::read_lane<T>(a, r, j, #NAME));                             \
            return af_isa::narrow<T>(EXPR);                                                                \
        });                                                                                                \
    }

// ---------------------------------------------------------------------------
// Vector-scalar: vop(dst, src, scalar, repeat, dstBlk, srcBlk, dstRep, srcRep[, ...])
// (vmaxs/vmins/vshl/vshr take two trailing mode flags the vector core ignores for
// plain element types).
// ---------------------------------------------------------------------------
#define AF_ISA_SCALAR(NAME, EXPR)                                                                               \
    template <class T, class S, class R, class B0, class B1, class R0, class R1, class... M>                     \
    inline void NAME(T* dst, T* src, S scalar, R repeat, B0 db, B1 sb, R0 dr, R1 sr, M...) {                     \
        const Opnd d{dst, sizeof(T), uint64_t(db), uint64_t(dr)};                                                \
        const Opnd a{src, sizeof(T), uint64_t(sb), uint64_t(sr)};                                                \
        using W = af_isa::Wide<T>;                                                                               \
        const W y = static_cast<W>(static_cast<T>(scalar));                                                      \
        af_isa::run_elementwise<T>(#NAME, d, sizeof(T), uint64_t(repeat), [&](uint64_t r, uint32_t j) {          \
            const W x = static_cast<W>(af_isa::read_lane<T>(a, r, j, #NAME));                                   \
            return af_isa::narrow<T>(EXPR);                                                                      \
        });                                                                                                      \
    }

}  // namespace af_isa

// The intrinsics live at global scope, where the vendor code calls them unqualified.
using af_isa::Opnd;

AF_ISA_BINARY(vadd, x + y)
AF_ISA_BINARY(vsub, x - y)
AF_ISA_BINARY(vmul, x * y)
AF_ISA_BINARY(vdiv, x / y)
AF_ISA_BINARY(vmax, (x > y || std::isnan(double(x))) ? x : y)
AF_ISA_BINARY(vmin, (x < y || std::isnan(double(x))) ? x : y)
AF_ISA_BINARY(vand, (int64_t(x) & int64_t(y)))
AF_ISA_BINARY(vor, (int64_t(x) | int64_t(y)))
AF_ISA_BINARY(vaddrelu, std::max<decltype(x + y)>(x + y, 0))
AF_ISA_BINARY(vsubrelu, std::max<decltype(x - y)>(x - y, 0))

AF_ISA_UNARY(vexp, std::exp(x))
AF_ISA_UNARY(vln, std::log(x))
AF_ISA_UNARY(vabs, (x < 0 ? -x : x))
AF_ISA_UNARY(vrec, 1.0f / x)
AF_ISA_UNARY(vsqrt, std::sqrt(x))
AF_ISA_UNARY(vrsqrt, 1.0f / std::sqrt(x))
AF_ISA_UNARY(vrelu, (x < 0 ? W(0) : x))
AF_ISA_UNARY(vnot, (~int64_t(x)))

AF_ISA_SCALAR(vadds, x + y)
AF_ISA_SCALAR(vmuls, x * y)
AF_ISA_SCALAR(vmaxs, (x > y || std::isnan(double(x))) ? x : y)
AF_ISA_SCALAR(vmins, (x < y || std::isnan(double(x))) ? x : y)
AF_ISA_SCALAR(vshl, (int64_t(x) << int64_t(y)))
// vlrelu: x for x >= 0, else x * alpha (the vendor's LeakyRelu; fact sheet 4.2).
AF_ISA_SCALAR(vlrelu, (x < 0 ? x * y : x))
AF_ISA_SCALAR(vshr, (int64_t(x) >> int64_t(y)))

#undef AF_ISA_BINARY
#undef AF_ISA_UNARY
#undef AF_ISA_SCALAR

// vector_dup(dst, scalar, repeat, dstBlk, srcBlk, dstRep, srcRep): the scalar into
// every active lane (the src strides describe no operand).
template <class T, class S, class R, class B0, class B1, class R0, class R1>
inline void vector_dup(T* dst, S scalar, R repeat, B0 db, B1, R0 dr, R1) {
    const af_isa::Opnd d{dst, sizeof(T), uint64_t(db), uint64_t(dr)};
    const T v = static_cast<T>(scalar);
    af_isa::run_elementwise<T>("vector_dup", d, sizeof(T), uint64_t(repeat), [&](uint64_t, uint32_t) { return v; });
}

// vcopy(dst, src, repeat, dstBlk, srcBlk, dstRep, srcRep): a bit copy of the lanes.
template <class T, class R, class B0, class B1, class R0, class R1>
inline void vcopy(T* dst, T* src, R repeat, B0 db, B1 sb, R0 dr, R1 sr) {
    const af_isa::Opnd d{dst, sizeof(T), uint64_t(db), uint64_t(dr)};
    const af_isa::Opnd a{src, sizeof(T), uint64_t(sb), uint64_t(sr)};
    af_isa::run_elementwise<T>("vcopy", d, sizeof(T), uint64_t(repeat),
                               [&](uint64_t r, uint32_t j) { return af_isa::read_lane<T>(a, r, j, "vcopy"); });
}

// ---------------------------------------------------------------------------
// Conversions vconv_<src><dst>[mode](dst, src, repeat, dstBlk, srcBlk, dstRep, srcRep).
// Lanes per repeat follow the wider type (fact sheet 4.4); mode suffix: r = to
// nearest even, a = to nearest away from zero, f = floor, c = ceil, z = toward zero,
// o = to odd; no suffix = the conversion's default (exact, or nearest even for
// float -> half).  Results out of the integer range saturate (fact sheet 4.4).
// ---------------------------------------------------------------------------
namespace af_isa {
enum class Rnd { Rint, Round, Floor, Ceil, Trunc, Odd };

inline double round_int(double x, Rnd m) {
    switch (m) {
    case Rnd::Rint: return std::nearbyint(x);
    case Rnd::Round: return std::round(x);
    case Rnd::Floor: return std::floor(x);
    case Rnd::Ceil: return std::ceil(x);
    case Rnd::Trunc: return std::trunc(x);
    case Rnd::Odd: {
        const double t = std::trunc(x);
        if (t == x) return t;
        return std::fmod(t, 2.0) != 0 ? t : t + (x > 0 ? 1 : -1);
    }
    }
    return x;
}

template <class D>
inline D to_int(double x, Rnd m) {
    if (std::isnan(x)) return 0;
    const double v = round_int(x, m);
    if (v >= static_cast<double>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    if (v <= static_cast<double>(std::numeric_limits<D>::lowest())) return std::numeric_limits<D>::lowest();
    return static_cast<D>(v);
}

// The 16-bit float nearest to x in direction m: the nearest-even candidate is within
// one unit of x, so a directed result is it or its neighbour toward x.
template <class H>
inline H to_fp16(double x, Rnd m) {
    const H h(static_cast<float>(x));
    if (m == Rnd::Rint || std::isnan(x)) return h;
    const double hv = h.ToFloat();
    if (hv == x) return h;
    auto step = [](H v, bool up) {
        uint16_t b = v.val;
        const bool neg = (b & 0x8000u) != 0;
        if ((b & 0x7fffu) == 0) return H::FromBits(up ? 0x0001 : 0x8001);
        b = static_cast<uint16_t>((up != neg) ? b + 1 : b - 1);
        return H::FromBits(b);
    };
    // lo <= x <= hi, both 16-bit neighbours.
    const H lo = hv < x ? h : step(h, false);
    const H hi = hv < x ? step(h, true) : h;
    switch (m) {
    case Rnd::Floor: return lo;
    case Rnd::Ceil: return hi;
    case Rnd::Trunc: return x > 0 ? lo : hi;
    case Rnd::Round: {
        const double dl = x - double(lo.ToFloat()), dh = double(hi.ToFloat()) - x;
        if (dl == dh) return x > 0 ? hi : lo;
        return h;
    }
    case Rnd::Odd: return (lo.val & 1u) ? lo : hi;
    default: return h;
    }
}

template <class D>
inline D convert(double x, Rnd m) {
    if constexpr (std::is_integral_v<D>) return to_int<D>(x, m);
    else if constexpr (std::is_same_v<D, float>) {
        if (m == Rnd::Rint) return static_cast<float>(x);
        return static_cast<float>(x);
    } else return to_fp16<D>(x, m);
}

template <class D, class S>
inline void vconv(const char* name, D* dst, S* src, uint64_t repeat, uint64_t db, uint64_t sb, uint64_t dr,
                  uint64_t sr, Rnd m, bool integral_float) {
    const Opnd d{dst, sizeof(D), db, dr};
    const Opnd a{src, sizeof(S), sb, sr};
    const uint32_t width = std::max<uint32_t>(sizeof(D), sizeof(S));
    run_elementwise<D>(name, d, width, repeat, [&](uint64_t r, uint32_t j) {
        const double x = static_cast<double>(static_cast<Wide<S>>(read_lane<S>(a, r, j, name)));
        // float -> float with a mode rounds to an integral value (fact sheet 4.4).
        if (integral_float) return static_cast<D>(std::isfinite(x) ? round_int(x, m) : x);
        return convert<D>(x, m);
    });
}
}  // namespace af_isa

#define AF_ISA_VCONV(NAME, DT, ST, MODE, INTEGRAL)                                                            \
    template <class R, class B0, class B1, class R0, class R1>                                                 \
    inline void NAME(DT* dst, ST* src, R repeat, B0 db, B1 sb, R0 dr, R1 sr) {                                 \
        af_isa::vconv(#NAME, dst, src, uint64_t(repeat), uint64_t(db), uint64_t(sb), uint64_t(dr), uint64_t(sr), \
                      af_isa::Rnd::MODE, INTEGRAL);                                                            \
    }
#define AF_ISA_VCONV_MODES(PREFIX, DT, ST)              \
    AF_ISA_VCONV(PREFIX##r, DT, ST, Rint, false)        \
    AF_ISA_VCONV(PREFIX##a, DT, ST, Round, false)       \
    AF_ISA_VCONV(PREFIX##f, DT, ST, Floor, false)       \
    AF_ISA_VCONV(PREFIX##c, DT, ST, Ceil, false)        \
    AF_ISA_VCONV(PREFIX##z, DT, ST, Trunc, false)

AF_ISA_VCONV(vconv_f162f32, float, half, Rint, false)
AF_ISA_VCONV(vconv_bf162f32, float, bfloat16_t, Rint, false)
AF_ISA_VCONV(vconv_s162f32, float, int16_t, Rint, false)
AF_ISA_VCONV(vconv_s322s64, int64_t, int32_t, Rint, false)
AF_ISA_VCONV(vconv_s642s32, int32_t, int64_t, Rint, false)
AF_ISA_VCONV(vconv_s322s16, int16_t, int32_t, Rint, false)
AF_ISA_VCONV(vconv_u82f16, half, uint8_t, Rint, false)
AF_ISA_VCONV(vconv_s82f16, half, int8_t, Rint, false)
AF_ISA_VCONV(vconv_s162f16, half, int16_t, Rint, false)
AF_ISA_VCONV(vconv_s322f32, float, int32_t, Rint, false)
AF_ISA_VCONV(vconv_f322f16, half, float, Rint, false)
AF_ISA_VCONV(vconv_f322f16o, half, float, Odd, false)
AF_ISA_VCONV(vconv_f162s8, int8_t, half, Trunc, false)
AF_ISA_VCONV(vconv_f162u8, uint8_t, half, Trunc, false)
AF_ISA_VCONV_MODES(vconv_f322f16, half, float)
AF_ISA_VCONV_MODES(vconv_f322bf16, bfloat16_t, float)
AF_ISA_VCONV_MODES(vconv_f322s32, int32_t, float)
AF_ISA_VCONV_MODES(vconv_f322s16, int16_t, float)
AF_ISA_VCONV_MODES(vconv_f322s64, int64_t, float)
AF_ISA_VCONV_MODES(vconv_f162s32, int32_t, half)
AF_ISA_VCONV_MODES(vconv_f162s16, int16_t, half)
AF_ISA_VCONV_MODES(vconv_f162s8, int8_t, half)
AF_ISA_VCONV_MODES(vconv_f162u8, uint8_t, half)
AF_ISA_VCONV_MODES(vconv_bf162s32, int32_t, bfloat16_t)
AF_ISA_VCONV_MODES(vconv_s322f32, float, int32_t)
AF_ISA_VCONV_MODES(vconv_s642f32, float, int64_t)
AF_ISA_VCONV_MODES(vconv_s162f16, half, int16_t)
AF_ISA_VCONV(vconv_f322f32r, float, float, Rint, true)
AF_ISA_VCONV(vconv_f322f32a, float, float, Round, true)
AF_ISA_VCONV(vconv_f322f32f, float, float, Floor, true)
AF_ISA_VCONV(vconv_f322f32c, float, float, Ceil, true)
AF_ISA_VCONV(vconv_f322f32z, float, float, Trunc, true)
#undef AF_ISA_VCONV_MODES
#undef AF_ISA_VCONV

// ---------------------------------------------------------------------------
// Reductions.
// ---------------------------------------------------------------------------
namespace af_isa {
// Pairwise tree over the 256/width lanes of a repeat (adjacent pairs, masked lanes
// count as 0); a half node above 65504 in magnitude clamps to 65504 (fact sheet 4.6,
// the documented 60000+60000-30000+100 = 35604 example).
template <class T>
inline T tree_sum(std::vector<T> v) {
    size_t n = v.size();
    while (n > 1) {
        for (size_t i = 0; i < n / 2; ++i) {
            if constexpr (std::is_same_v<T, half>) {
                float s = v[2 * i].ToFloat() + v[2 * i + 1].ToFloat();
                if (std::isfinite(s) && std::fabs(s) > 65504.0f) s = std::copysign(65504.0f, s);
                v[i] = half(s);
            } else {
                v[i] = narrow<T>(static_cast<Wide<T>>(v[2 * i]) + static_cast<Wide<T>>(v[2 * i + 1]));
            }
        }
        n /= 2;
    }
    return v.empty() ? T(0) : v[0];
}

template <class T>
inline std::vector<T> repeat_lanes(const Opnd& a, uint32_t lanes, uint64_t r, bool* any, const char* name) {
    std::vector<T> v(lanes, T(0));
    *any = false;
    for (uint32_t j = 0; j < lanes; ++j)
        if (lane_on(sizeof(T), r, j)) {
            v[j] = read_lane<T>(a, r, j, name);
            *any = true;
        }
    return v;
}
}  // namespace af_isa

// vcadd(dst, src, repeat, dstRepStride, srcBlk, srcRep, accumulate): the tree sum of
// each repeat at dst + r*dstRepStride elements; with accumulate set (the vendor's
// ReduceSum count form), the repeat sums are added in order into the accumulator that
// get_acc_val reads (fact sheet 4.6: tree per repeat, sequential across repeats).
template <class T, class R, class D, class B, class S, class M>
inline void vcadd(T* dst, T* src, R repeat, D dst_rep, B sb, S sr, M accumulate) {
    const af_isa::Opnd a{src, sizeof(T), uint64_t(sb), uint64_t(sr)};
    const uint32_t lanes = af_isa::kRepeat / sizeof(T);
    const uint64_t reps = af_isa::repeats_of(sizeof(T), uint64_t(repeat));
    T total = T(0);
    for (uint64_t r = 0; r < reps; ++r) {
        bool any = false;
        const T s = af_isa::tree_sum(af_isa::repeat_lanes<T>(a, lanes, r, &any, "vcadd"));
        if (accumulate) {
            total = r == 0 ? s : af_isa::narrow<T>(static_cast<af_isa::Wide<T>>(total) + static_cast<af_isa::Wide<T>>(s));
        } else {
            T* out = dst + r * uint64_t(dst_rep);
            af_isa::check_ub(out, sizeof(T), "vcadd");
            *out = s;
        }
    }
    if (accumulate) {
        int64_t bits = 0;
        std::memcpy(&bits, &total, sizeof(T));
        af_isa::core().acc = bits;
    }
}

namespace af_isa {
// vcmax / vcmin: the first extreme lane of each repeat, written as selected by the
// order operand: value and index (index = the lane's integer stored in the bits of
// the element type), index and value, value only, index only (a uint32).  The dst
// repeat stride counts pairs, single values, or 4-byte indices accordingly (fact
// sheet 4.6).
template <class T, bool Max>
inline void whole_minmax(T* dst, T* src, uint64_t repeat, uint64_t dst_rep, uint64_t sb, uint64_t sr, int order,
                         const char* name) {
    const Opnd a{src, sizeof(T), sb, sr};
    const uint32_t lanes = kRepeat / sizeof(T);
    const uint64_t reps = repeats_of(sizeof(T), repeat);
    using I = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
    for (uint64_t r = 0; r < reps; ++r) {
        T best{};
        uint32_t idx = 0;
        bool have = false;
        for (uint32_t j = 0; j < lanes; ++j) {
            if (!lane_on(sizeof(T), r, j)) continue;
            const T v = read_lane<T>(a, r, j, name);
            const float fv = static_cast<float>(v), fb = static_cast<float>(best);
            if (!have || (Max ? fv > fb : fv < fb)) {
                best = v;
                idx = j;
                have = true;
            }
        }
        if (!have) continue;
        uint8_t* base = reinterpret_cast<uint8_t*>(dst);
        const I ib = static_cast<I>(idx);
        switch (order) {
        case 0:  // VALUE_INDEX
            check_ub(base + r * dst_rep * 2 * sizeof(T), 2 * sizeof(T), name);
            store<T>(base + r * dst_rep * 2 * sizeof(T), best);
            store<I>(base + r * dst_rep * 2 * sizeof(T) + sizeof(T), ib);
            break;
        case 1:  // INDEX_VALUE
            check_ub(base + r * dst_rep * 2 * sizeof(T), 2 * sizeof(T), name);
            store<I>(base + r * dst_rep * 2 * sizeof(T), ib);
            store<T>(base + r * dst_rep * 2 * sizeof(T) + sizeof(T), best);
            break;
        case 2:  // ONLY_VALUE
            check_ub(base + r * dst_rep * sizeof(T), sizeof(T), name);
            store<T>(base + r * dst_rep * sizeof(T), best);
            break;
        default:  // ONLY_INDEX
            check_ub(base + r * dst_rep * 4, 4, name);
            store<uint32_t>(base + r * dst_rep * 4, idx);
            break;
        }
    }
}

// vcgadd / vcgmax / vcgmin: one result per 32 B block, 8 per repeat, dst repeat
// stride in units of 8 results (fact sheet 4.6 BlockReduce*).
template <class T, int Kind>
inline void block_reduce(T* dst, T* src, uint64_t repeat, uint64_t dst_rep, uint64_t sb, uint64_t sr,
                         const char* name) {
    const Opnd a{src, sizeof(T), sb, sr};
    const uint32_t per_blk = kBlock / sizeof(T);
    const uint64_t reps = repeats_of(sizeof(T), repeat);
    for (uint64_t r = 0; r < reps; ++r) {
        for (uint32_t b = 0; b < 8; ++b) {
            std::vector<T> v(per_blk, T(0));
            bool any = false;
            T best{};
            for (uint32_t k = 0; k < per_blk; ++k) {
                const uint32_t j = b * per_blk + k;
                if (!lane_on(sizeof(T), r, j)) continue;
                const T x = read_lane<T>(a, r, j, name);
                v[k] = x;
                if (!any || (Kind == 1 ? float(x) > float(best) : float(x) < float(best))) best = x;
                any = true;
            }
            if (!any) continue;
            T* out = dst + r * dst_rep * 8 + b;
            check_ub(out, sizeof(T), name);
            *out = Kind == 0 ? tree_sum(v) : best;
        }
    }
}
}  // namespace af_isa

template <class T, class R, class D, class B, class S, class O>
inline void vcmax(T* dst, T* src, R repeat, D dr, B sb, S sr, O order) {
    af_isa::whole_minmax<T, true>(dst, src, uint64_t(repeat), uint64_t(dr), uint64_t(sb), uint64_t(sr),
                                  static_cast<int>(order), "vcmax");
}
template <class T, class R, class D, class B, class S, class O>
inline void vcmin(T* dst, T* src, R repeat, D dr, B sb, S sr, O order) {
    af_isa::whole_minmax<T, false>(dst, src, uint64_t(repeat), uint64_t(dr), uint64_t(sb), uint64_t(sr),
                                   static_cast<int>(order), "vcmin");
}
template <class T, class R, class D, class B, class S>
inline void vcgadd(T* dst, T* src, R repeat, D dr, B sb, S sr) {
    af_isa::block_reduce<T, 0>(dst, src, uint64_t(repeat), uint64_t(dr), uint64_t(sb), uint64_t(sr), "vcgadd");
}
template <class T, class R, class D, class B, class S>
inline void vcgmax(T* dst, T* src, R repeat, D dr, B sb, S sr) {
    af_isa::block_reduce<T, 1>(dst, src, uint64_t(repeat), uint64_t(dr), uint64_t(sb), uint64_t(sr), "vcgmax");
}
template <class T, class R, class D, class B, class S>
inline void vcgmin(T* dst, T* src, R repeat, D dr, B sb, S sr) {
    af_isa::block_reduce<T, 2>(dst, src, uint64_t(repeat), uint64_t(dr), uint64_t(sb), uint64_t(sr), "vcgmin");
}

// get_acc_val: the accumulator of the last accumulating vcadd.
template <class... A>
inline int64_t get_acc_val(A...) {
    return af_isa::core().acc;
}

// ---------------------------------------------------------------------------
// Mask register.
// ---------------------------------------------------------------------------
template <class H, class L>
inline void set_vector_mask(H hi, L lo) {
    af_isa::core().mask_hi = static_cast<uint64_t>(hi);
    af_isa::core().mask_lo = static_cast<uint64_t>(lo);
}
template <class... A>
inline void set_mask_count(A...) {
    af_isa::core().counter = true;
}
template <class... A>
inline void set_mask_norm(A...) {
    af_isa::core().counter = false;
}

// ---------------------------------------------------------------------------
// Moves between GM and UB.
// ---------------------------------------------------------------------------
namespace af_isa {
// copy_gm_to_ubuf_align_bN(dst, src, sid, nBurst, lenBurst, leftPad, rightPad, srcGap,
// dstGap): nBurst bursts of lenBurst bytes; in UB each burst is leftPad elements,
// the data, rightPad elements, rounded up to 32 B, then dstGap blocks; in GM bursts
// are srcGap bytes apart (end to start).  The pad elements and the filler up to the
// 32 B boundary take the pad register (set_mov_pad_val: the vendor's DataCopyPad with
// isPad and SetPadValue both write it), or, while nothing has written it, the burst's
// first element (fact sheet 3.3, the "dummy" data).
template <class T>
inline void gm_to_ub_align(const char* name, T* dst, T* src, uint64_t n, uint64_t len, uint64_t lp, uint64_t rp,
                           uint64_t src_gap, uint64_t dst_gap) {
    uint8_t* d = reinterpret_cast<uint8_t*>(dst);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src);
    const uint32_t es = sizeof(T) == 8 ? 4 : sizeof(T);
    const uint64_t row = (lp * es + len + rp * es + kBlock - 1) / kBlock * kBlock;
    for (uint64_t b = 0; b < n; ++b) {
        uint8_t* out = d + b * (row + dst_gap * kBlock);
        const uint8_t* in = s + b * (len + src_gap);
        check_ub(out, row, name);
        uint8_t fill[8] = {};
        std::memcpy(fill, core().pad_set ? reinterpret_cast<const uint8_t*>(&core().pad_val) : in, es);
        for (uint64_t k = 0; k < lp; ++k) std::memcpy(out + k * es, fill, es);
        check_gm(in, len, name);
        std::memcpy(out + lp * es, in, len);
        core().gm_read += len;
        core().block_reads.add(reinterpret_cast<uintptr_t>(in), len);
        for (uint64_t pos = lp * es + len; pos + es <= row; pos += es) std::memcpy(out + pos, fill, es);
    }
}
// copy_ubuf_to_gm_align_bN(dst, src, sid, nBurst, lenBurst, 0, 0, srcGap, dstGap):
// bursts read from 32 B-rounded UB rows srcGap blocks apart, lenBurst bytes written
// per burst, dstGap bytes apart in GM.
template <class T>
inline void ub_to_gm_align(const char* name, T* dst, T* src, uint64_t n, uint64_t len, uint64_t src_gap,
                           uint64_t dst_gap) {
    uint8_t* d = reinterpret_cast<uint8_t*>(dst);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src);
    const uint64_t row = (len + kBlock - 1) / kBlock * kBlock;
    for (uint64_t b = 0; b < n; ++b) {
        const uint8_t* in = s + b * (row + src_gap * kBlock);
        check_ub(in, len, name);
        check_gm(d + b * (len + dst_gap), len, name);
        std::memcpy(d + b * (len + dst_gap), in, len);
        core().gm_written += len;
    }
}
// copy_{gm_to_ubuf,ubuf_to_gm,ubuf_to_ubuf}(dst, src, sid, nBurst, lenBurst, srcGap,
// dstGap): everything in 32 B blocks (fact sheet 3.2).
inline void block_copy(const char* name, void* dst, const void* src, uint64_t n, uint64_t len, uint64_t src_gap,
                       uint64_t dst_gap, bool dst_ub, bool src_ub) {
    uint8_t* d = static_cast<uint8_t*>(dst);
    const uint8_t* s = static_cast<const uint8_t*>(src);
    for (uint64_t b = 0; b < n; ++b) {
        uint8_t* out = d + b * (len + dst_gap) * kBlock;
        const uint8_t* in = s + b * (len + src_gap) * kBlock;
        if (dst_ub) check_ub(out, len * kBlock, name);
        else check_gm(out, len * kBlock, name);
        if (src_ub) check_ub(in, len * kBlock, name);
        else check_gm(in, len * kBlock, name);
        std::memmove(out, in, len * kBlock);
        if (!src_ub) {
            core().gm_read += len * kBlock;
            core().block_reads.add(reinterpret_cast<uintptr_t>(in), len * kBlock);
        }
        if (!dst_ub) core().gm_written += len * kBlock;
    }
}
}  // namespace af_isa

#define AF_ISA_ALIGN_COPIES(BITS)                                                                                   \
    template <class T, class... A>                                                                                  \
    inline void copy_gm_to_ubuf_align_b##BITS(T* dst, T* src, A... a) {                                             \
        const uint64_t v[] = {uint64_t(a)...};                                                                      \
        static_assert(sizeof...(A) == 7, "copy_gm_to_ubuf_align: sid, nBurst, lenBurst, leftPad, rightPad, gaps");  \
        af_isa::gm_to_ub_align("copy_gm_to_ubuf_align_b" #BITS, dst, src, v[1], v[2], v[3], v[4], v[5], v[6]);      \
    }                                                                                                               \
    template <class T, class... A>                                                                                  \
    inline void copy_ubuf_to_gm_align_b##BITS(T* dst, T* src, A... a) {                                             \
        const uint64_t v[] = {uint64_t(a)...};                                                                      \
        static_assert(sizeof...(A) == 7, "copy_ubuf_to_gm_align: sid, nBurst, lenBurst, leftPad, rightPad, gaps");  \
        af_isa::ub_to_gm_align("copy_ubuf_to_gm_align_b" #BITS, dst, src, v[1], v[2], v[5], v[6]);                  \
    }
AF_ISA_ALIGN_COPIES(8)
AF_ISA_ALIGN_COPIES(16)
AF_ISA_ALIGN_COPIES(32)
#undef AF_ISA_ALIGN_COPIES

template <class D, class S, class Sid, class N, class L, class G0, class G1>
inline void copy_gm_to_ubuf(D* dst, S* src, Sid, N n, L len, G0 sg, G1 dg) {
    af_isa::block_copy("copy_gm_to_ubuf", dst, src, uint64_t(n), uint64_t(len), uint64_t(sg), uint64_t(dg), true,
                       false);
}
template <class D, class S, class Sid, class N, class L, class G0, class G1>
inline void copy_ubuf_to_gm(D* dst, S* src, Sid, N n, L len, G0 sg, G1 dg) {
    af_isa::block_copy("copy_ubuf_to_gm", dst, src, uint64_t(n), uint64_t(len), uint64_t(sg), uint64_t(dg), false,
                       true);
}
template <class D, class S, class Sid, class N, class L, class G0, class G1>
inline void copy_ubuf_to_ubuf(D* dst, S* src, Sid, N n, L len, G0 sg, G1 dg) {
    af_isa::block_copy("copy_ubuf_to_ubuf", dst, src, uint64_t(n), uint64_t(len), uint64_t(sg), uint64_t(dg), true,
                       true);
}

template <class V>
inline void set_mov_pad_val(V v) {
    af_isa::core().pad_val = static_cast<uint64_t>(v);
    af_isa::core().pad_set = true;
}

// ---------------------------------------------------------------------------
// Synchronisation.  The model executes every instruction at once and in program
// order, so flags and barriers order nothing; what it checks is what would hang the
// device: a wait_flag on a (pipe, pipe, event) that no set_flag has raised.
// ---------------------------------------------------------------------------
template <class P0, class P1, class E>
inline void set_flag(P0 from, P1 to, E e) {
    int& f = af_isa::core().flags[int(from) & 15][int(to) & 15][int(e) & 7];
    ++f;
}
template <class P0, class P1, class E>
inline void wait_flag(P0 from, P1 to, E e) {
    int& f = af_isa::core().flags[int(from) & 15][int(to) & 15][int(e) & 7];
    if (f <= 0) af_isa::fail("wait_flag", "waits for an event no set_flag raised (the device would hang)");
    --f;
}
template <class P>
inline void pipe_barrier(P) {}

// Cross-core synchronisation, as far as SyncAll<true> uses it (dav_c220 SyncAllImpl:
// ffts_cross_core_sync(PIPE_MTE3, config) then wait_flag_dev(flag)).  The config word
// is 1 + (mode << 4) + (flag << 8); mode 0 with flag 14 (SYNC_AIV_ONLY_ALL) raises the
// flag on every vector core of the launch once all of them have raised it, and
// wait_flag_dev waits for it: a barrier of all blocks.  Here each block's raise is
// counted on its core, and wait_flag_dev suspends the block until every block has
// reached its own wait (ascendc_sim/block_sched.h runs the blocks as coroutines).
// Other modes and flags (CrossCoreSetFlag, SyncAll<false>: groups with cube cores)
// are not modelled and fail.
namespace af_isa {
constexpr unsigned kSyncAivOnlyAll = 14;
}
template <class P, class C>
inline void ffts_cross_core_sync(P, C config) {
    const unsigned v = static_cast<unsigned>(config), mode = (v >> 4) & 3, flag = (v >> 8) & 15;
    if (mode != 0 || flag != af_isa::kSyncAivOnlyAll) {
        char msg[200];
        std::snprintf(msg, sizeof msg,
                      "mode %u flag %u is not modelled (only SyncAll<true>'s barrier of all vector cores, mode 0 "
                      "flag 14)",
                      mode, flag);
        af_isa::fail("ffts_cross_core_sync", msg);
    }
    ++af_isa::core().cross_flags[flag];
}
template <class F>
inline void wait_flag_dev(F flag) {
    int& f = af_isa::core().cross_flags[static_cast<unsigned>(flag) & 15];
    if (f <= 0)
        af_isa::fail("wait_flag_dev",
                     "waits for a cross-core flag this core has not raised with ffts_cross_core_sync (the device would "
                     "hang)");
    --f;
    ascendc_sim::coop::Scheduler* sched = ascendc_sim::coop::Scheduler::active();
    if (sched == nullptr) return;  // outside a launch: a single block
    const af_isa::LaunchInfo& l = af_isa::launch_info();
    if (l.vector_cores != 0 && l.block_dim > l.vector_cores) {
        char msg[240];
        std::snprintf(msg, sizeof msg,
                      "block_dim %u exceeds the %u vector cores of %s: SyncAll needs every block of the launch "
                      "resident at once (the device would hang)",
                      l.block_dim, l.vector_cores, l.chip);
        af_isa::fail("wait_flag_dev", msg);
    }
    sched->barrier();
}

// Scalar bit helpers of the event-ID pools (kernel_tpipe_impl.h AllocEventID/ReleaseEventID):
// sff0 = index of the lowest zero bit (64 when none); sbitset0/1 clear/set one bit.
template <class X>
inline int64_t sff0(X x) {
    const uint64_t v = static_cast<uint64_t>(x);
    for (int i = 0; i < 64; ++i)
        if (((v >> i) & 1u) == 0) return i;
    return 64;
}
template <class X, class I>
inline int64_t sbitset0(X x, I i) {
    return static_cast<int64_t>(static_cast<uint64_t>(x) & ~(1ull << (uint64_t(i) & 63)));
}
template <class X, class I>
inline int64_t sbitset1(X x, I i) {
    return static_cast<int64_t>(static_cast<uint64_t>(x) | (1ull << (uint64_t(i) & 63)));
}

// Registers a vector-only kernel sets but never reads back: the L1 3-D size, the
// padding register of the cube's img2col, the atomic mode of stores (autofuse emits
// no atomic stores), the data-cache maintenance.  They change no value on this core.
template <class... A>
inline void set_l1_3d_size(A...) {}
template <class... A>
inline void set_padding(A...) {}
template <class... A>
inline void set_atomic_none(A...) {}
template <class... A>
inline void dcci(A...) {}

// Intrinsics of the cube core's buffers (L1, L0A/B/C, bias table, fixpipe buffer):
// the vector core of dav_c220 has none of them, so reaching one is an error.  The
// vendor code references them in position dispatches (DataCopy between local
// tensors) that autofuse's positions (VECIN/VECOUT/VECCALC) never take.
#define AF_ISA_CUBE_ONLY(NAME)                                                 \
    template <class... A>                                                      \
    inline void NAME(A...) {                                                   \
        af_isa::fail(#NAME, "a cube-core buffer intrinsic on the vector core"); \
    }
AF_ISA_CUBE_ONLY(copy_cbuf_to_bt)
AF_ISA_CUBE_ONLY(copy_cbuf_to_fbuf)
AF_ISA_CUBE_ONLY(copy_cbuf_to_gm)
AF_ISA_CUBE_ONLY(copy_gm_to_cbuf)
AF_ISA_CUBE_ONLY(copy_gm_to_cbuf_multi_nd2nz_b16)
AF_ISA_CUBE_ONLY(copy_gm_to_cbuf_multi_nd2nz_b32s)
AF_ISA_CUBE_ONLY(copy_gm_to_cbuf_multi_nd2nz_b8)
AF_ISA_CUBE_ONLY(copy_matrix_cbuf_to_cc)
AF_ISA_CUBE_ONLY(copy_matrix_cc_to_cbuf)
AF_ISA_CUBE_ONLY(copy_matrix_cc_to_gm)
AF_ISA_CUBE_ONLY(create_ca_matrix)
AF_ISA_CUBE_ONLY(create_ca_matrix_bf16)
AF_ISA_CUBE_ONLY(create_cb_matrix)
AF_ISA_CUBE_ONLY(create_cb_matrix_bf16)
AF_ISA_CUBE_ONLY(create_cbuf_matrix)
AF_ISA_CUBE_ONLY(create_cbuf_matrix_bf16)
AF_ISA_CUBE_ONLY(img2colv2_cbuf_to_ca)
AF_ISA_CUBE_ONLY(img2colv2_cbuf_to_ca_s4)
AF_ISA_CUBE_ONLY(img2colv2_cbuf_to_cb)
AF_ISA_CUBE_ONLY(img2colv2_cbuf_to_ub)
AF_ISA_CUBE_ONLY(load_cbuf_to_ca)
AF_ISA_CUBE_ONLY(load_cbuf_to_ca_s4)
AF_ISA_CUBE_ONLY(load_cbuf_to_ca_transpose)
AF_ISA_CUBE_ONLY(load_cbuf_to_cb)
AF_ISA_CUBE_ONLY(load_cbuf_to_cb_s4)
AF_ISA_CUBE_ONLY(load_cbuf_to_cb_sp)
AF_ISA_CUBE_ONLY(load_cbuf_to_cb_transpose)
AF_ISA_CUBE_ONLY(load_cbuf_to_cb_transpose_s4)
AF_ISA_CUBE_ONLY(load_gm_to_ca)
AF_ISA_CUBE_ONLY(load_gm_to_cb)
AF_ISA_CUBE_ONLY(load_gm_to_cbuf)
AF_ISA_CUBE_ONLY(load_image_to_cbuf)
AF_ISA_CUBE_ONLY(mad)
AF_ISA_CUBE_ONLY(mad_s4)
AF_ISA_CUBE_ONLY(mad_sp)
AF_ISA_CUBE_ONLY(set_fmatrix)
AF_ISA_CUBE_ONLY(set_fmatrix_b)
AF_ISA_CUBE_ONLY(set_l0_set_value_bf16)
AF_ISA_CUBE_ONLY(set_l0_set_value_h)
AF_ISA_CUBE_ONLY(set_l0a_2d)
AF_ISA_CUBE_ONLY(set_l0b_2d)
AF_ISA_CUBE_ONLY(set_l1_2d)
#undef AF_ISA_CUBE_ONLY

// ---------------------------------------------------------------------------
// Compare and select.
// ---------------------------------------------------------------------------
namespace af_isa {
// vcmpv_<op>(dst, src0, src1, repeat, strides...) / vcmpvs_<op>(dst, src, scalar, ...):
// every lane of `repeat` full repeats (the mask register plays no part: the vendor's
// Compare never sets it, and the fact sheet 4.5 calls the mask "reserved" on A2/A3),
// one result bit per lane, packed: repeat r writes bytes [r*L/8, (r+1)*L/8) of dst
// for L lanes (the vendor's count form advances dst by that much per repeat).
template <class T, class Cmp>
inline void compare(const char* name, uint8_t* dst, const Opnd& a, const Opnd* b, T scalar, uint64_t repeat,
                    Cmp cmp) {
    const uint32_t lanes = kRepeat / sizeof(T);
    for (uint64_t r = 0; r < repeat; ++r) {
        std::vector<uint8_t> bits(lanes / 8, 0);
        for (uint32_t j = 0; j < lanes; ++j) {
            const float x = static_cast<float>(read_lane<T>(a, r, j, name));
            const float y = b != nullptr ? static_cast<float>(read_lane<T>(*b, r, j, name)) : static_cast<float>(scalar);
            if constexpr (std::is_integral_v<T>) {
                const int64_t xi = static_cast<int64_t>(read_lane<T>(a, r, j, name));
                const int64_t yi = b != nullptr ? static_cast<int64_t>(read_lane<T>(*b, r, j, name)) : int64_t(scalar);
                if (cmp(xi, yi)) bits[j / 8] |= static_cast<uint8_t>(1u << (j % 8));
            } else if (cmp(x, y)) {
                bits[j / 8] |= static_cast<uint8_t>(1u << (j % 8));
            }
        }
        uint8_t* out = dst + r * (lanes / 8);
        check_ub(out, lanes / 8, name);
        std::memcpy(out, bits.data(), lanes / 8);
    }
}
}  // namespace af_isa

#define AF_ISA_CMP(OP, EXPR)                                                                                     \
    template <class T, class R, class... S>                                                                      \
    inline void vcmpv_##OP(uint8_t* dst, T* src0, T* src1, R repeat, S... s) {                                  \
        const uint64_t v[] = {uint64_t(s)...};                                                                   \
        static_assert(sizeof...(S) == 6, "vcmpv: three block and three repeat strides");                         \
        const af_isa::Opnd a{src0, sizeof(T), v[1], v[4]}, b{src1, sizeof(T), v[2], v[5]};                      \
        af_isa::compare<T>("vcmpv_" #OP, dst, a, &b, T(0), uint64_t(repeat),                                    \
                           [](auto x, auto y) { return EXPR; });                                                 \
    }                                                                                                            \
    template <class T, class U, class R, class... S>                                                             \
    inline void vcmpvs_##OP(uint8_t* dst, T* src0, U scalar, R repeat, S... s) {                                 \
        const uint64_t v[] = {uint64_t(s)...};                                                                   \
        static_assert(sizeof...(S) == 4, "vcmpvs: two block and two repeat strides");                            \
        const af_isa::Opnd a{src0, sizeof(T), v[1], v[3]};                                                       \
        af_isa::compare<T>("vcmpvs_" #OP, dst, a, nullptr, static_cast<T>(scalar), uint64_t(repeat),            \
                           [](auto x, auto y) { return EXPR; });                                                 \
    }
AF_ISA_CMP(lt, x < y)
AF_ISA_CMP(gt, x > y)
AF_ISA_CMP(eq, x == y)
AF_ISA_CMP(le, x <= y)
AF_ISA_CMP(ge, x >= y)
AF_ISA_CMP(ne, x != y)
#undef AF_ISA_CMP

// set_cmpmask(p): loads the 128-bit CMPMASK register from UB at p.  Select uses it
// three ways (dav_c220/kernel_operator_vec_cmpsel_impl.h): mode 0, the selection bits
// of one repeat themselves; mode 2 (in CPU-debug mode), a 64-bit word holding the
// address of the selection-mask tensor; mode 1, the scalar operand (duplicated over
// a 32 B block).
template <class T>
inline void set_cmpmask(T* p) {
    af_isa::check_ub(p, 16, "set_cmpmask");
    std::memcpy(af_isa::core().cmp_mask, p, 16);
}
template <class T>
inline void get_cmpmask(T* p) {
    af_isa::check_ub(p, 16, "get_cmpmask");
    std::memcpy(p, af_isa::core().cmp_mask, 16);
}

namespace af_isa {
inline bool bit_at(const uint8_t* bits, uint64_t i) { return ((bits[i / 8] >> (i % 8)) & 1u) != 0; }

// vsel: dst lane = src0 lane where the selection bit is 1, else the second source.
// mode 0: bits from CMPMASK, the same for every repeat (fact sheet 4.5); mode 2: bits
// from the tensor CMPMASK points at, consumed continuously (lane r*L + j); mode 1:
// the third operand is the selection tensor (continuous bits) and the second source
// is the scalar in CMPMASK.
template <class T>
inline void vsel(T* dst, T* src0, T* third, uint64_t repeat, const uint64_t* s, int mode) {
    const Opnd d{dst, sizeof(T), s[0], s[3]};
    const Opnd a{src0, sizeof(T), s[1], s[4]};
    const Opnd b{third, sizeof(T), s[2], s[5]};
    const uint32_t lanes = kRepeat / sizeof(T);
    const uint8_t* reg = reinterpret_cast<const uint8_t*>(core().cmp_mask);
    const uint8_t* sel = nullptr;
    if (mode == 2) {
        int64_t addr = 0;
        std::memcpy(&addr, reg, sizeof addr);
        sel = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(addr));
    } else if (mode == 1) {
        sel = reinterpret_cast<const uint8_t*>(third);
    }
    T scalar{};
    std::memcpy(&scalar, reg, sizeof(T));
    run_elementwise<T>("vsel", d, sizeof(T), repeat, [&](uint64_t r, uint32_t j) {
        const uint64_t i = mode == 0 ? j : r * lanes + j;
        if (mode != 0) check_ub(sel + i / 8, 1, "vsel");
        const bool take0 = mode == 0 ? bit_at(reg, j) : bit_at(sel, i);
        if (take0) return read_lane<T>(a, r, j, "vsel");
        return mode == 1 ? scalar : read_lane<T>(b, r, j, "vsel");
    });
}
}  // namespace af_isa

template <class T, class U, class R, class... S>
inline void vsel(T* dst, T* src0, U* third, R repeat, S... s) {
    static_assert(sizeof...(S) == 6 || sizeof...(S) == 7, "vsel: six strides and an optional mode");
    const uint64_t v[] = {uint64_t(s)..., 0};
    af_isa::vsel<T>(dst, src0, reinterpret_cast<T*>(third), uint64_t(repeat), v, sizeof...(S) == 7 ? int(v[6]) : 0);
}

// vbrcb(dst, src, dstBlk, dstRep, repeat): each repeat reads 8 consecutive src
// elements and fills one 32 B block of dst with each (fact sheet 4.3).
template <class T, class B, class D, class R>
inline void vbrcb(T* dst, T* src, B blk, D rep, R repeat) {
    const uint32_t per_blk = af_isa::kBlock / sizeof(T);
    for (uint64_t r = 0; r < uint64_t(repeat); ++r) {
        for (uint32_t k = 0; k < 8; ++k) {
            T* in = src + r * 8 + k;
            af_isa::check_ub(in, sizeof(T), "vbrcb");
            const T v = *in;
            uint8_t* out = reinterpret_cast<uint8_t*>(dst) + (r * uint64_t(rep) + k * uint64_t(blk)) * af_isa::kBlock;
            af_isa::check_ub(out, af_isa::kBlock, "vbrcb");
            for (uint32_t e = 0; e < per_blk; ++e) af_isa::store<T>(out + e * sizeof(T), v);
        }
    }
}

// ---------------------------------------------------------------------------
// Transposes.
// ---------------------------------------------------------------------------
namespace af_isa {
// The VA address registers of vnchwconv: 8 UB addresses each; VA0/VA1 hold the 16
// destination blocks and VA2/VA3 the 16 source blocks (the vendor's SetVaReg).
inline uint64_t (&va_regs())[8][8] {
    static uint64_t regs[8][8];
    return regs;
}

// scatter_vnchwconv_b16(dstVA, srcVA, repeat, dstRepStride, srcRepStride): the 16
// source blocks as a 16 x 16 matrix (row i = block i) written transposed: destination
// block k, element i = source block i, element k.  b32: 16 blocks of 8 elements; the
// 8 columns go out in halves, destination block 2k + h holding column k of source
// rows 8h .. 8h+7 (TransDataTo5HD, fact sheet 4.7).  Each repeat advances every
// address by its repeat stride in 32 B blocks.
template <class T>
inline void vnchwconv(const char* name, int dst_va, int src_va, uint64_t repeat, uint64_t dst_rep, uint64_t src_rep) {
    uint64_t dst[16], src[16];
    for (int i = 0; i < 8; ++i) {
        dst[i] = va_regs()[dst_va][i];
        dst[8 + i] = va_regs()[dst_va + 1][i];
        src[i] = va_regs()[src_va][i];
        src[8 + i] = va_regs()[src_va + 1][i];
    }
    constexpr uint32_t per_blk = kBlock / sizeof(T);
    for (uint64_t r = 0; r < repeat; ++r) {
        T m[16][per_blk];
        for (int i = 0; i < 16; ++i) {
            const uint8_t* p = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(src[i])) + r * src_rep * kBlock;
            check_ub(p, kBlock, name);
            std::memcpy(m[i], p, kBlock);
        }
        for (int k = 0; k < 16; ++k) {
            uint8_t* p = reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(dst[k])) + r * dst_rep * kBlock;
            check_ub(p, kBlock, name);
            T out[per_blk];
            for (uint32_t e = 0; e < per_blk; ++e) {
                if constexpr (per_blk == 16) out[e] = m[e][k];
                else out[e] = m[8 * (k % 2) + e][k / 2];
            }
            std::memcpy(p, out, kBlock);
        }
    }
}
}  // namespace af_isa

template <class V, class A>
inline void set_va_reg_sb(V va, A* addrs) {
    for (int i = 0; i < 8; ++i) af_isa::va_regs()[int(va) & 7][i] = static_cast<uint64_t>(addrs[i]);
}
template <class D, class S, class R, class DR, class SR>
inline void scatter_vnchwconv_b16(D dst_va, S src_va, R repeat, DR dst_rep, SR src_rep) {
    af_isa::vnchwconv<uint16_t>("scatter_vnchwconv_b16", int(dst_va), int(src_va), uint64_t(repeat),
                                uint64_t(dst_rep), uint64_t(src_rep));
}
template <class D, class S, class R, class DR, class SR>
inline void scatter_vnchwconv_b32(D dst_va, S src_va, R repeat, DR dst_rep, SR src_rep) {
    af_isa::vnchwconv<uint32_t>("scatter_vnchwconv_b32", int(dst_va), int(src_va), uint64_t(repeat),
                                uint64_t(dst_rep), uint64_t(src_rep));
}

// vtranspose(dst, src): one 16 x 16 matrix of 16-bit elements, 512 contiguous bytes.
template <class T>
inline void vtranspose(T* dst, T* src) {
    static_assert(sizeof(T) == 2, "vtranspose moves 16-bit elements");
    af_isa::check_ub(src, 512, "vtranspose");
    af_isa::check_ub(dst, 512, "vtranspose");
    T m[256];
    std::memcpy(m, src, 512);
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) dst[j * 16 + i] = m[i * 16 + j];
}
