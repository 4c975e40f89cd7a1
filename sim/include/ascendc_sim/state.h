// ascendc_sim/state.h - the simulated machine state and the checking machinery.
//
// Models one AI vector core at a time: its Unified Buffer (a byte array of the
// chip profile's TOTAL_UB_SIZE), the vector mask register, the SetFlag/WaitFlag
// event flags, and the GM side (the allocations the host registered, byte
// counters).  One block runs at a time, so a single global state suffices: the
// launcher resets the per-block parts (marked "[block]" in SimState) before every
// block, and while a block waits at SyncAll it keeps them in a BlockSlot
// (save_block / restore_block below) so that the next block starts afresh.
//
// Also here: chip profiles (section 6), data-type identification and per-arch
// dtype gating (section 4.2 / 9.11), and the single error path: every violated
// hardware rule ends in `violation()`, which prints
//   ascendc-sim: error: kernel '<name>' block <i>: <API>: <message> (at <file>:<line>)
// and exits with status 3.  API functions take a trailing defaulted
// `std::source_location` so that <file>:<line> is the caller's line.
#pragma once

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <source_location>

#include "read_set.h"
#include <string>
#include <type_traits>
#include <vector>

#include "float16.h"
#include "pipes.h"
#include "types.h"

namespace ascendc_sim {

// ---------------------------------------------------------------------------
// Chip profiles.
// ---------------------------------------------------------------------------
struct ChipProfile {
    const char* name;
    uint32_t ub_bytes_total;    // TOTAL_UB_SIZE: the size of the UB byte array
    uint32_t ub_bytes_usable;   // what TPipe::InitBuffer may hand out (reserves subtracted)
    uint32_t vector_cores;      // AIV cores; blocks beyond this run in waves
    uint32_t cube_cores;        // AIC cores (informational)
    uint32_t npu_arch;          // __NPU_ARCH__: 2201 (A2/A3) or 3510 (950)
    uint32_t event_ids;         // hardware event ids per pipe pair (SetFlag ids 0..n-1)
    uint32_t max_queue_buffers_per_position;  // one event id per queue buffer
    uint32_t max_pipe_buffers;  // total TQue blocks + TBufs per TPipe
    bool core_counts_verified;  // false: vector_cores/cube_cores are placeholders
};

namespace detail {
// Numbers from fact sheet section 6.  A2/A3 (arch 2201): TOTAL_UB_SIZE 196608;
// usable = 192 KiB - 256 B - 8 KiB Ascend C reserve = 188160.  950 (arch 3510):
// 256 KiB UB, 248 KiB usable by default.  Core counts: 910B1/B2 48 AIV / 24 AIC and
// 910B3/B4 40 / 20 come from copies of the CANN platform ini files (third party);
// A3 and 950 core counts are not documented - placeholders, marked unverified.
inline constexpr ChipProfile kProfiles[] = {
    {"ascend910b", 196608, 188160, 48, 24, 2201, 8, 8, 64, true},
    {"ascend910b1", 196608, 188160, 48, 24, 2201, 8, 8, 64, true},
    {"ascend910b2", 196608, 188160, 48, 24, 2201, 8, 8, 64, true},
    {"ascend910b3", 196608, 188160, 40, 20, 2201, 8, 8, 64, true},
    {"ascend910b4", 196608, 188160, 40, 20, 2201, 8, 8, 64, true},
    {"ascend910_93", 196608, 188160, 48, 24, 2201, 8, 8, 64, false},
    {"ascend950", 262144, 253952, 48, 24, 3510, 8, 8, 64, false},
};
}  // namespace detail

// Unknown names are a usage error of the launcher: report and exit(3).
inline const ChipProfile& profile(const std::string& name) {
    for (const ChipProfile& p : detail::kProfiles)
        if (name == p.name) return p;
    std::fprintf(stderr, "ascendc-sim: error: unknown chip profile '%s' (known:", name.c_str());
    for (const ChipProfile& p : detail::kProfiles) std::fprintf(stderr, " %s", p.name);
    std::fprintf(stderr, ")\n");
    std::exit(3);
}

// The profile named by the environment variable ASCENDC_SIM_CHIP, else `fallback`
// (lets a test runner pick the chip without recompiling).
inline const ChipProfile& profile_from_env(const char* fallback = "ascend910b") {
    const char* e = std::getenv("ASCENDC_SIM_CHIP");
    return profile(e != nullptr && *e != '\0' ? e : fallback);
}

namespace detail {

using namespace ascendc_sim::fp;  // rounding helpers (Rnd, Format, round_to_format, ...)

// ---------------------------------------------------------------------------
// Data-type identification (for gating and messages).
// ---------------------------------------------------------------------------
enum class DT : uint8_t { BOOL, I8, U8, I16, U16, F16, BF16, I32, U32, F32, I64, U64, F64, OTHER };

template <class T>
constexpr DT dtype_of() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, half>) return DT::F16;
    else if constexpr (std::is_same_v<U, bfloat16_t>) return DT::BF16;
    else if constexpr (std::is_same_v<U, bool>) return DT::BOOL;
    else if constexpr (std::is_same_v<U, float>) return DT::F32;
    else if constexpr (std::is_same_v<U, double>) return DT::F64;
    else if constexpr (std::is_integral_v<U> && !std::is_same_v<U, char>) {
        constexpr bool s = std::is_signed_v<U>;
        if constexpr (sizeof(U) == 1) return s ? DT::I8 : DT::U8;
        else if constexpr (sizeof(U) == 2) return s ? DT::I16 : DT::U16;
        else if constexpr (sizeof(U) == 4) return s ? DT::I32 : DT::U32;
        else if constexpr (sizeof(U) == 8) return s ? DT::I64 : DT::U64;
        else return DT::OTHER;
    } else return DT::OTHER;
}

constexpr uint32_t dbit(DT d) { return 1u << static_cast<unsigned>(d); }

inline const char* dt_name(DT d) {
    switch (d) {
    case DT::BOOL: return "bool";
    case DT::I8: return "int8_t";
    case DT::U8: return "uint8_t";
    case DT::I16: return "int16_t";
    case DT::U16: return "uint16_t";
    case DT::F16: return "half";
    case DT::BF16: return "bfloat16_t";
    case DT::I32: return "int32_t";
    case DT::U32: return "uint32_t";
    case DT::F32: return "float";
    case DT::I64: return "int64_t";
    case DT::U64: return "uint64_t";
    case DT::F64: return "double";
    case DT::OTHER: return "<unsupported type>";
    }
    return "?";
}

template <class T>
const char* type_name() {
    return dt_name(dtype_of<T>());
}

inline std::string dt_list(uint32_t mask) {
    std::string s;
    for (unsigned i = 0; i <= static_cast<unsigned>(DT::OTHER); ++i) {
        if (mask & (1u << i)) {
            if (!s.empty()) s += ", ";
            s += dt_name(static_cast<DT>(i));
        }
    }
    return s.empty() ? std::string("none") : s;
}

// Common dtype sets (bit masks over DT).
inline constexpr uint32_t kF16F32 = dbit(DT::F16) | dbit(DT::F32);
inline constexpr uint32_t kArith2201 = dbit(DT::I16) | dbit(DT::F16) | dbit(DT::I32) | dbit(DT::F32);
inline constexpr uint32_t kB16Int = dbit(DT::I16) | dbit(DT::U16);
inline constexpr uint32_t kAllStorage = dbit(DT::BOOL) | dbit(DT::I8) | dbit(DT::U8) | dbit(DT::I16) |
                                        dbit(DT::U16) | dbit(DT::F16) | dbit(DT::BF16) | dbit(DT::I32) |
                                        dbit(DT::U32) | dbit(DT::F32) | dbit(DT::I64) | dbit(DT::U64) |
                                        dbit(DT::F64);

// ---------------------------------------------------------------------------
// Global simulator state.
// ---------------------------------------------------------------------------
struct GmRegion {
    uintptr_t begin;
    uintptr_t end;
};

// Fields marked [block] belong to the core the current block runs on: the
// launcher sets them afresh for every block, and BlockSlot / save_block /
// restore_block (below) must list every one of them.
// The API call being recorded: its operands arrive one by one through
// check_operand and gm_access, and it is issued to its pipe when the next call
// (another API or source line, or an operand role seen twice) or any
// synchronisation starts.
struct PendingCall {
    bool open = false;
    const char* api = nullptr;
    const char* file = nullptr;
    uint32_t line = 0;
    uint32_t column = 0;
    std::vector<const char*> roles;
    std::vector<UbSpan> reads, writes;
    uint64_t gm_read = 0, gm_written = 0;
    int64_t repeats = -1;  // -1: not reported by the API; estimated from the footprints
};

struct TraceSlice {
    uint32_t core;
    uint32_t block;
    PipeSlice slice;  // with absolute times
};

struct SimState {
    const ChipProfile* profile = &kProfiles[0];
    std::string kernel_name;  // empty outside launch()
    bool in_launch = false;
    int64_t block_idx = 0;  // [block]
    int64_t block_num = 1;

    // Unified Buffer of the current block.  [block]
    std::unique_ptr<uint8_t[]> ub;
    uint32_t ub_size = 0;

    // GM allocations declared by the host (bounds checks) and traffic counters.
    std::vector<GmRegion> gm_regions;
    uint64_t gm_read = 0;
    uint64_t gm_written = 0;
    // GM spans the current block read [block], and the distinct bytes of the
    // blocks so far.
    ReadSet block_reads;
    uint64_t gm_read_per_core = 0;

    // Vector mask register (SetVectorMask / SetMaskCount / SetMaskNorm).  [block]
    AscendC::MaskMode mask_mode = AscendC::MaskMode::NORMAL;
    uint64_t mask_hi = ~0ull;
    uint64_t mask_lo = ~0ull;

    // SetFlag/WaitFlag: bit i of flags[e] = event id i of HardEvent e is set.  [block]
    std::array<uint32_t, static_cast<size_t>(AscendC::HardEvent::MAX)> flags{};

    // DataCopyPad filler set by SetPadValue (raw bits of the element type).  [block]
    bool pad_value_set = false;
    uint64_t pad_value_bits = 0;

    float deq_scale = 1.0f;  // SetDeqScale, used by Cast int32 -> half  [block]

    // Reduction trees on half clamp intermediate results to +-65504 (fact
    // sheet 4.6).  Newer docs describe a non-saturating default; switchable.
    bool half_reduce_saturate = true;

    void* active_pipe = nullptr;  // the TPipe of the current block (only one may exist)  [block]
    uint32_t ub_peak = 0;         // max bytes allocated by a TPipe in this launch
    uint32_t pipe_buffers_peak = 0;

    // Where the current block last called SyncAll (for the deadlock report).  [block]
    std::source_location sync_loc = std::source_location::current();

    // Pipes of the current core (pipes.h), only inside a launch.  [block]
    std::unique_ptr<PipeTracker> pipes;
    PendingCall pending;           // [block]
    double block_origin = 0;       // when the block started on its core (cycles)  [block]
    uint32_t block_sync_count = 0;  // SyncAll calls of the block so far  [block]
    // Per launch: the chip model, the summed counts, when each core is free,
    // the latest arrival at each SyncAll, and the trace slices.
    PipeCosts costs;
    bool sync_check = true;         // of the current launch
    bool sync_check_wanted = true;  // set_sync_check; ASCENDC_SIM_SYNC_CHECK=0 also turns it off
    std::array<PipeCounts, kPipeCount> pipe_totals{};
    std::vector<double> core_end;
    std::vector<double> barrier_arrival;
    std::string trace_path;  // ASCENDC_SIM_TRACE: write the launch's timeline here
    std::vector<TraceSlice> trace;
};

inline SimState& st() {
    static SimState s;
    return s;
}

inline bool warnings_enabled() {
    static const bool on = [] {
        const char* e = std::getenv("ASCENDC_SIM_WARN");
        return e != nullptr && *e != '\0' && *e != '0';
    }();
    return on;
}

inline const char* base_kernel_name() {
    const SimState& s = st();
    return s.in_launch ? s.kernel_name.c_str() : "<none>";
}

// The one error path.  Never returns.
[[noreturn]] inline void violation(const char* api, const std::string& msg, const std::source_location& loc) {
    std::fflush(stdout);
    std::fprintf(stderr, "ascendc-sim: error: kernel '%s' block %" PRId64 ": %s: %s (at %s:%u)\n",
                 base_kernel_name(), st().block_idx, api, msg.c_str(), loc.file_name(),
                 static_cast<unsigned>(loc.line()));
    std::fflush(stderr);
    std::exit(3);
}

// Non-fatal notes about legal-but-suspicious code (silent hardware behaviour
// such as DataCopy truncation); printed only with ASCENDC_SIM_WARN=1.
inline void warn(const char* api, const std::string& msg, const std::source_location& loc) {
    if (!warnings_enabled()) return;
    std::fprintf(stderr, "ascendc-sim: warning: kernel '%s' block %" PRId64 ": %s: %s (at %s:%u)\n",
                 base_kernel_name(), st().block_idx, api, msg.c_str(), loc.file_name(),
                 static_cast<unsigned>(loc.line()));
}

inline std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
inline std::string fmt(const char* f, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

inline const ChipProfile& prof() { return *st().profile; }
inline uint32_t arch() { return st().profile->npu_arch; }

// Gate element type T of `api` by the current chip's support table.
template <class T>
inline void check_dtype(const char* api, uint32_t allowed2201, uint32_t allowed3510, const std::source_location& loc,
                        const char* what = "data type") {
    uint32_t allowed = arch() == 3510 ? allowed3510 : allowed2201;
    if (!(allowed & dbit(dtype_of<T>())))
        violation(api, fmt("%s %s is not supported on %s (arch %u); supported: %s", what, type_name<T>(),
                           prof().name, arch(), dt_list(allowed).c_str()),
                  loc);
}

// The UB of the current block, allocated on first use (so that APIs also work
// outside launch(), e.g. in unit tests calling them from main()).
inline void reset_ub() {
    SimState& s = st();
    s.ub_size = s.profile->ub_bytes_total;
    s.ub.reset(new uint8_t[s.ub_size]);
    // Fresh UB content is undefined on hardware; fill with 0xFF so that reading
    // never-written data shows up as NaN (float/half) or -1 (integers).
    std::memset(s.ub.get(), 0xFF, s.ub_size);
}
inline uint8_t* ub_base() {
    SimState& s = st();
    if (!s.ub) reset_ub();
    return s.ub.get();
}

// The [block] fields of SimState of a block that waits at SyncAll.  The UB moves
// (no copy): the waiting block keeps its own buffer, so its contents and any
// pointer into it (GetPhyAddr) stay valid when it resumes.
struct BlockSlot {
    int64_t block_idx = 0;
    std::unique_ptr<uint8_t[]> ub;
    uint32_t ub_size = 0;
    ReadSet block_reads;
    AscendC::MaskMode mask_mode = AscendC::MaskMode::NORMAL;
    uint64_t mask_hi = ~0ull, mask_lo = ~0ull;
    std::array<uint32_t, static_cast<size_t>(AscendC::HardEvent::MAX)> flags{};
    bool pad_value_set = false;
    uint64_t pad_value_bits = 0;
    float deq_scale = 1.0f;
    void* active_pipe = nullptr;
    std::source_location sync_loc = std::source_location::current();
    std::unique_ptr<PipeTracker> pipes;
    PendingCall pending;
    double block_origin = 0;
    uint32_t block_sync_count = 0;
};

// A fresh core for block `b`: UB filled with 0xFF, no TPipe, no flags, the mask
// register in normal mode with all lanes, no pad value, deq scale 1.
inline void fresh_block(int64_t b) {
    SimState& s = st();
    s.block_idx = b;
    reset_ub();
    s.active_pipe = nullptr;
    s.flags.fill(0);
    s.mask_mode = AscendC::MaskMode::NORMAL;
    s.mask_hi = s.mask_lo = ~0ull;
    s.pad_value_set = false;
    s.deq_scale = 1.0f;
    s.block_reads = ReadSet{};
    s.pending = PendingCall{};
    s.block_sync_count = 0;
    if (s.in_launch) {
        s.pipes = std::make_unique<PipeTracker>(s.ub_size, !s.trace_path.empty());
        const uint32_t cores = std::max<uint32_t>(1, s.profile->vector_cores);
        if (s.core_end.size() < cores) s.core_end.assign(cores, 0.0);
        s.block_origin = s.core_end[static_cast<size_t>(b) % cores];
    } else {
        s.pipes.reset();
    }
}

inline void save_block(BlockSlot& k) {
    SimState& s = st();
    k.block_idx = s.block_idx;
    k.ub = std::move(s.ub);
    k.ub_size = s.ub_size;
    k.block_reads = std::move(s.block_reads);
    s.block_reads = ReadSet{};
    k.mask_mode = s.mask_mode;
    k.mask_hi = s.mask_hi;
    k.mask_lo = s.mask_lo;
    k.flags = s.flags;
    k.pad_value_set = s.pad_value_set;
    k.pad_value_bits = s.pad_value_bits;
    k.deq_scale = s.deq_scale;
    k.active_pipe = s.active_pipe;
    s.active_pipe = nullptr;
    k.sync_loc = s.sync_loc;
    k.pipes = std::move(s.pipes);
    k.pending = std::move(s.pending);
    s.pending = PendingCall{};
    k.block_origin = s.block_origin;
    k.block_sync_count = s.block_sync_count;
}

inline void restore_block(BlockSlot& k) {
    SimState& s = st();
    s.block_idx = k.block_idx;
    s.ub = std::move(k.ub);
    s.ub_size = k.ub_size;
    s.block_reads = std::move(k.block_reads);
    k.block_reads = ReadSet{};
    s.mask_mode = k.mask_mode;
    s.mask_hi = k.mask_hi;
    s.mask_lo = k.mask_lo;
    s.flags = k.flags;
    s.pad_value_set = k.pad_value_set;
    s.pad_value_bits = k.pad_value_bits;
    s.deq_scale = k.deq_scale;
    s.active_pipe = k.active_pipe;
    s.sync_loc = k.sync_loc;
    s.pipes = std::move(k.pipes);
    s.pending = std::move(k.pending);
    k.pending = PendingCall{};
    s.block_origin = k.block_origin;
    s.block_sync_count = k.block_sync_count;
}

// Element load/store in UB by byte address (memcpy: no alignment/aliasing UB).
template <class T>
inline T ub_load(uint32_t addr) {
    T v;
    std::memcpy(&v, ub_base() + addr, sizeof(T));
    return v;
}
template <class T>
inline void ub_store(uint32_t addr, T v) {
    std::memcpy(ub_base() + addr, &v, sizeof(T));
}

// ---------------------------------------------------------------------------
// Pipe accounting (pipes.h): every API call is issued to one pipe.
// ---------------------------------------------------------------------------

inline bool tracking_pipes() { return st().in_launch && st().pipes != nullptr; }

// Issues one instruction to pipe `p` of the current core: the ordering check
// (a violation if unordered and the check is on), then the accounting.
inline void issue_instruction(PipeId p, const char* api, const char* file, uint32_t line, uint32_t column,
                              const std::vector<UbSpan>& reads, const std::vector<UbSpan>& writes,
                              uint64_t instructions, uint64_t bytes) {
    SimState& s = st();
    if (s.sync_check) {
        std::string race = s.pipes->hazard(p, reads, writes);
        if (!race.empty()) {
            std::fflush(stdout);
            std::fprintf(stderr, "ascendc-sim: error: kernel '%s' block %" PRId64 ": %s: %s (at %s:%u)\n",
                         base_kernel_name(), s.block_idx, api, race.c_str(), file, line);
            std::fflush(stderr);
            std::exit(3);
        }
    }
    (void)column;
    s.pipes->issue(p, api, file, line, reads, writes, instructions, bytes, s.costs);
}

// Issues the recorded call, if any.
inline void flush_call() {
    SimState& s = st();
    PendingCall& c = s.pending;
    if (!c.open) return;
    c.open = false;
    if (!tracking_pipes()) return;
    PipeId p = PipeId::V;
    uint64_t bytes = 0, instructions = 1;
    if (c.gm_written != 0) {
        p = PipeId::MTE3;
        bytes = c.gm_written;
    } else if (c.gm_read != 0) {
        p = PipeId::MTE2;
        bytes = c.gm_read;
    } else {
        uint64_t widest = 0;
        for (const UbSpan& r : c.reads) {
            bytes += r.bytes;
            widest = std::max(widest, r.bytes);
        }
        for (const UbSpan& w : c.writes) {
            bytes += w.bytes;
            widest = std::max(widest, w.bytes);
        }
        instructions = c.repeats >= 0 ? static_cast<uint64_t>(c.repeats) : std::max<uint64_t>(1, (widest + 255) / 256);
    }
    issue_instruction(p, c.api, c.file, c.line, c.column, c.reads, c.writes, instructions, bytes);
}

// Joins an operand to the call being recorded, or starts the next call.
inline void begin_or_join(const char* api, const char* role, const std::source_location& loc) {
    PendingCall& c = st().pending;
    bool same = c.open && c.line == loc.line() && c.column == loc.column() && std::strcmp(c.api, api) == 0 &&
                std::strcmp(c.file, loc.file_name()) == 0;
    if (same && role != nullptr)
        for (const char* r : c.roles)
            if (std::strcmp(r, role) == 0) same = false;
    if (same) return;
    flush_call();
    c.open = true;
    c.api = api;
    c.file = loc.file_name();
    c.line = loc.line();
    c.column = loc.column();
    c.roles.clear();
    c.reads.clear();
    c.writes.clear();
    c.gm_read = c.gm_written = 0;
    c.repeats = -1;
}

// A UB operand of `api`: "dst" and scratch buffers are written, sources read;
// the accumulating APIs also read their destination.
inline void record_operand(const char* api, const char* role, uint32_t addr, uint64_t bytes,
                           const std::source_location& loc) {
    if (!tracking_pipes() || bytes == 0) return;
    begin_or_join(api, role, loc);
    PendingCall& c = st().pending;
    c.roles.push_back(role);
    const bool dst = std::strcmp(role, "dst") == 0;
    const bool scratch = std::strcmp(role, "sharedTmpBuffer") == 0 || std::strcmp(role, "work") == 0;
    if (dst || scratch) c.writes.push_back({addr, bytes});
    else c.reads.push_back({addr, bytes});
    if (dst && (std::strcmp(api, "MulAddDst") == 0 || std::strcmp(api, "Axpy") == 0))
        c.reads.push_back({addr, bytes});
}

// Replaces the footprint span the operand check recorded for `role` at `addr` with the
// bytes the call touches (`spans`): a strided operand does not access its gaps, so
// another call may write them meanwhile without a race on the device.
inline void refine_operand(const char* role, uint32_t addr, uint64_t footprint, const std::vector<UbSpan>& spans) {
    if (!tracking_pipes() || footprint == 0) return;
    PendingCall& c = st().pending;
    auto replace = [&](std::vector<UbSpan>& list) {
        for (size_t i = list.size(); i-- > 0;) {
            if (list[i].addr == addr && list[i].bytes == footprint) {
                list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
                list.insert(list.end(), spans.begin(), spans.end());
                return;
            }
        }
    };
    const bool dst = std::strcmp(role, "dst") == 0;
    replace(dst ? c.writes : c.reads);
    if (dst && (std::strcmp(c.api, "MulAddDst") == 0 || std::strcmp(c.api, "Axpy") == 0)) replace(c.reads);
}

// The repeats a mask/repeat or count form executes (one instruction each).
inline void record_repeats(const char* api, int64_t repeats, const std::source_location& loc) {
    if (!tracking_pipes()) return;
    PendingCall& c = st().pending;
    if (c.open && c.line == loc.line() && std::strcmp(c.api, api) == 0) c.repeats = std::max<int64_t>(c.repeats, 0) + repeats;
}

// A scalar access of the current block: to UB bytes [addr, addr+bytes), or
// (ub == false) to GM.
inline void record_scalar(const char* api, bool ub, uint32_t addr, uint64_t bytes, bool write,
                          const std::source_location& loc) {
    if (!tracking_pipes()) return;
    flush_call();
    std::vector<UbSpan> none, span;
    if (ub) span.push_back({addr, bytes});
    issue_instruction(PipeId::S, api, loc.file_name(), loc.line(), loc.column(), write ? none : span,
                      write ? span : none, 1, bytes);
}

// ---------------------------------------------------------------------------
// GM checks and counters.
// ---------------------------------------------------------------------------

// Checks one contiguous GM access of `bytes` bytes at `p` against the extent
// given to SetGlobalBuffer ([root_begin, root_end), root_end == 0 if no size was
// given) and against the allocations the host registered, then counts it.
inline void gm_access(const char* api, uintptr_t root_begin, uintptr_t root_end, const void* p, uint64_t bytes,
                      bool write, const std::source_location& loc) {
    if (bytes == 0) return;
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const char* kind = write ? "write" : "read";
    if (root_begin == 0)
        violation(api, fmt("GM %s through a GlobalTensor without a buffer (SetGlobalBuffer not called, or called with a null pointer)", kind), loc);
    if (root_end != 0 && (a < root_begin || a + bytes > root_end)) {
        long long off = static_cast<long long>(a) - static_cast<long long>(root_begin);
        violation(api,
                  fmt("GM %s out of bounds: bytes [%lld, %lld) relative to the SetGlobalBuffer base, but the buffer "
                      "has %llu bytes",
                      kind, off, off + static_cast<long long>(bytes),
                      static_cast<unsigned long long>(root_end - root_begin)),
                  loc);
    }
    const auto& regs = st().gm_regions;
    if (!regs.empty()) {
        bool inside = false;
        for (const GmRegion& r : regs)
            if (a >= r.begin && a + bytes <= r.end) {
                inside = true;
                break;
            }
        if (!inside)
            violation(api,
                      fmt("GM %s of %llu bytes at %p is outside every GM allocation registered with the launcher",
                          kind, static_cast<unsigned long long>(bytes), p),
                      loc);
    }
    if (write) {
        st().gm_written += bytes;
    } else {
        st().gm_read += bytes;
        st().block_reads.add(a, bytes);
    }
    if (tracking_pipes()) {
        if (std::strncmp(api, "GlobalTensor::", 14) == 0) {
            record_scalar(api, false, 0, bytes, write, loc);
        } else {
            begin_or_join(api, nullptr, loc);
            (write ? st().pending.gm_written : st().pending.gm_read) += bytes;
        }
    }
}

inline constexpr uint32_t round_up(uint64_t v, uint32_t a) { return static_cast<uint32_t>((v + a - 1) / a * a); }

}  // namespace detail

// ---------------------------------------------------------------------------
// Host-side GM registration (bounds of real allocations).
// ---------------------------------------------------------------------------
inline void register_gm(const void* base, size_t bytes) {
    uintptr_t b = reinterpret_cast<uintptr_t>(base);
    auto& regs = detail::st().gm_regions;
    for (auto& r : regs)
        if (r.begin == b) {
            r.end = b + bytes;
            return;
        }
    regs.push_back({b, b + bytes});
}
inline void unregister_gm(const void* base) {
    uintptr_t b = reinterpret_cast<uintptr_t>(base);
    auto& regs = detail::st().gm_regions;
    regs.erase(std::remove_if(regs.begin(), regs.end(), [&](const detail::GmRegion& r) { return r.begin == b; }),
               regs.end());
}
inline void clear_gm_registry() { detail::st().gm_regions.clear(); }

// Reduction-tree saturation for half (see SimState::half_reduce_saturate).
inline void set_half_reduce_saturation(bool on) { detail::st().half_reduce_saturate = on; }

}  // namespace ascendc_sim
