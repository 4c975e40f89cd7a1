// ascendc_sim/sync.h - synchronisation, system variables, mask register and
// other scalar-side APIs (fact sheet 1.2, 1.3, 4.1 mask helpers, 5).
//
// Every API executes immediately and in program order; what the device would
// order is tracked beside it (pipes.h): SetFlag hands the source pipe's progress
// to WaitFlag's destination pipe, PipeBarrier orders a pipe after its own past,
// PIPE_ALL everything, and an instruction that touches UB bytes another
// instruction writes or reads without such an order is a violation (missing
// synchronisation is a data race on the device; ASCENDC_SIM_SYNC_CHECK=0 turns
// the check off).  SetFlag/WaitFlag also validate their arguments and model the
// event flags as a state machine, which catches the pairing mistakes that hang
// real hardware: WaitFlag without a preceding SetFlag and SetFlag twice on the
// same (event, id).
//
// SyncAll() (SyncAll<true>, the hardware barrier of all vector cores of a launch)
// suspends the calling block's coroutine until every block of the launch has
// reached it (launcher.h, block_sched.h); GM writes before it are then visible to
// every block.  Violations: block_dim greater than the chip's vector cores (the
// blocks of a launch that uses SyncAll must all be resident at once), a block
// that returns while others wait at a SyncAll (blocks calling SyncAll a different
// number of times; reported at the waiting block's SyncAll, naming the block that
// returned), SyncAll<false> (it also waits for cube cores, which are not
// simulated) and the software form SyncAll(gmWorkspace, ubWorkspace, usedCores)
// (not supported).  Outside a launch SyncAll has no other block to wait for and
// returns at once.
#pragma once

#include "block_sched.h"
#include "tensor.h"

namespace ascendc_sim::detail {

inline const char* event_name(AscendC::HardEvent e) {
    using AscendC::HardEvent;
    switch (e) {
    case HardEvent::MTE2_V: return "MTE2_V";
    case HardEvent::V_MTE2: return "V_MTE2";
    case HardEvent::MTE3_V: return "MTE3_V";
    case HardEvent::V_MTE3: return "V_MTE3";
    case HardEvent::MTE2_MTE3: return "MTE2_MTE3";
    case HardEvent::MTE3_MTE2: return "MTE3_MTE2";
    case HardEvent::S_V: return "S_V";
    case HardEvent::V_S: return "V_S";
    case HardEvent::S_MTE2: return "S_MTE2";
    case HardEvent::MTE2_S: return "MTE2_S";
    case HardEvent::S_MTE3: return "S_MTE3";
    case HardEvent::MTE3_S: return "MTE3_S";
    case HardEvent::V_V: return "V_V";
    default: return "a cube/fixpipe event";
    }
}

// Pairs usable on a vector core (section 5: S<->V/MTE2/MTE3, V->MTE2/MTE3,
// MTE2->V/MTE3, MTE3->V/MTE2; same-pipe ordering is PipeBarrier's job).
inline bool is_aiv_event(AscendC::HardEvent e) {
    using AscendC::HardEvent;
    switch (e) {
    case HardEvent::MTE2_V:
    case HardEvent::V_MTE2:
    case HardEvent::MTE3_V:
    case HardEvent::V_MTE3:
    case HardEvent::MTE2_MTE3:
    case HardEvent::MTE3_MTE2:
    case HardEvent::S_V:
    case HardEvent::V_S:
    case HardEvent::S_MTE2:
    case HardEvent::MTE2_S:
    case HardEvent::S_MTE3:
    case HardEvent::MTE3_S: return true;
    default: return false;
    }
}

// Source and destination pipe of a vector-core event.
inline std::pair<PipeId, PipeId> event_pipes(AscendC::HardEvent e) {
    using AscendC::HardEvent;
    switch (e) {
    case HardEvent::MTE2_V: return {PipeId::MTE2, PipeId::V};
    case HardEvent::V_MTE2: return {PipeId::V, PipeId::MTE2};
    case HardEvent::MTE3_V: return {PipeId::MTE3, PipeId::V};
    case HardEvent::V_MTE3: return {PipeId::V, PipeId::MTE3};
    case HardEvent::MTE2_MTE3: return {PipeId::MTE2, PipeId::MTE3};
    case HardEvent::MTE3_MTE2: return {PipeId::MTE3, PipeId::MTE2};
    case HardEvent::S_V: return {PipeId::S, PipeId::V};
    case HardEvent::V_S: return {PipeId::V, PipeId::S};
    case HardEvent::S_MTE2: return {PipeId::S, PipeId::MTE2};
    case HardEvent::MTE2_S: return {PipeId::MTE2, PipeId::S};
    case HardEvent::S_MTE3: return {PipeId::S, PipeId::MTE3};
    case HardEvent::MTE3_S: return {PipeId::MTE3, PipeId::S};
    default: return {PipeId::V, PipeId::V};
    }
}

inline PipeTracker::SyncKey flag_key(AscendC::HardEvent e, int32_t id) {
    return {0, (static_cast<uint64_t>(e) << 8) | static_cast<uint64_t>(id)};
}

inline void check_event(const char* api, AscendC::HardEvent e, int32_t id, const std::source_location& loc) {
    if (!is_aiv_event(e))
        violation(api, fmt("HardEvent::%s is not a valid event on a vector core", event_name(e)), loc);
    if (id < 0 || static_cast<uint32_t>(id) >= prof().event_ids)
        violation(api, fmt("event id %d out of range [0, %u)", id, prof().event_ids), loc);
}

inline void kernel_task_type(KernelMetaType t, const std::source_location& loc) {
    // A2/A3/950 accept the first six values; the others belong to 310P.
    if (t > KERNEL_TYPE_MIX_AIC_1_2)
        violation("KERNEL_TASK_TYPE_DEFAULT",
                  fmt("kernel type %u is not supported on %s (only AIV_ONLY, AIC_ONLY and MIX_* 1_0/1_1/1_2)",
                      static_cast<unsigned>(t), prof().name),
                  loc);
}

}  // namespace ascendc_sim::detail

// Both macros must receive a KernelMetaType enumerator; anything else fails to
// compile (no implicit conversion from int to the enum).
#define KERNEL_TASK_TYPE_DEFAULT(value) \
    ::ascendc_sim::detail::kernel_task_type((value), ::std::source_location::current())
#define KERNEL_TASK_TYPE(key, value)                                                  \
    do {                                                                              \
        (void)(key);                                                                  \
        ::ascendc_sim::detail::kernel_task_type((value), ::std::source_location::current()); \
    } while (0)

namespace AscendC {

inline int64_t GetBlockIdx() { return ascendc_sim::detail::st().block_idx; }
inline int64_t GetBlockNum() { return ascendc_sim::detail::st().block_num; }
inline int64_t GetSubBlockIdx() { return 0; }
inline int64_t GetSubBlockNum() { return 1; }
inline int64_t GetTaskRatio() { return 1; }
inline uint32_t GetUBSizeInBytes() { return ascendc_sim::detail::prof().ub_bytes_total; }
inline uint32_t GetRuntimeUBSize() { return ascendc_sim::detail::prof().ub_bytes_usable; }
inline uint32_t GetDataBlockSizeInBytes() { return 32; }

template <HardEvent event>
inline void SetFlag(int32_t eventID, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_event("SetFlag", event, eventID, loc);
    uint32_t& f = d::st().flags[static_cast<size_t>(event)];
    if (f & (1u << eventID))
        d::violation("SetFlag",
                     d::fmt("HardEvent::%s id %d is already set (SetFlag twice without WaitFlag hangs the device)",
                            d::event_name(event), eventID),
                     loc);
    f |= 1u << eventID;
    d::flush_call();
    if (d::tracking_pipes()) d::st().pipes->stash(d::flag_key(event, eventID), d::event_pipes(event).first);
}

template <HardEvent event>
inline void WaitFlag(int32_t eventID, std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    d::check_event("WaitFlag", event, eventID, loc);
    uint32_t& f = d::st().flags[static_cast<size_t>(event)];
    if (!(f & (1u << eventID)))
        d::violation("WaitFlag",
                     d::fmt("HardEvent::%s id %d was not set before (WaitFlag without SetFlag waits forever)",
                            d::event_name(event), eventID),
                     loc);
    f &= ~(1u << eventID);
    d::flush_call();
    if (d::tracking_pipes()) d::st().pipes->take(d::flag_key(event, eventID), d::event_pipes(event).second);
}

template <pipe_t pipe>
inline void PipeBarrier(std::source_location loc = std::source_location::current()) {
    if constexpr (pipe == PIPE_S) {
        ascendc_sim::detail::violation("PipeBarrier", "PipeBarrier<PIPE_S> is not allowed", loc);
    } else if constexpr (pipe != PIPE_V && pipe != PIPE_MTE2 && pipe != PIPE_MTE3 && pipe != PIPE_ALL) {
        ascendc_sim::detail::violation("PipeBarrier", "only PIPE_V, PIPE_MTE2, PIPE_MTE3 and PIPE_ALL exist on a vector core", loc);
    }
    namespace d = ascendc_sim::detail;
    d::flush_call();
    if (!d::tracking_pipes()) return;
    using ascendc_sim::PipeId;
    if constexpr (pipe == PIPE_ALL) d::st().pipes->barrier_all();
    else if constexpr (pipe == PIPE_V) d::st().pipes->barrier(PipeId::V);
    else if constexpr (pipe == PIPE_MTE2) d::st().pipes->barrier(PipeId::MTE2);
    else if constexpr (pipe == PIPE_MTE3) d::st().pipes->barrier(PipeId::MTE3);
}

// The hardware barrier of all blocks of the launch (see the top of this file).
template <bool isAIVOnly = true>
inline void SyncAll(std::source_location loc = std::source_location::current()) {
    namespace d = ascendc_sim::detail;
    if constexpr (!isAIVOnly) {
        d::violation("SyncAll",
                     "SyncAll<false> also waits for the cube cores, which the simulator does not run (vector-only "
                     "kernels use SyncAll<true>, the default)",
                     loc);
    }
    ascendc_sim::coop::Scheduler* sched = ascendc_sim::coop::Scheduler::active();
    if (sched == nullptr) return;  // outside a launch: a single block
    d::SimState& s = d::st();
    const uint32_t cores = d::prof().vector_cores;
    if (cores != 0 && s.block_num > cores)
        d::violation("SyncAll",
                     d::fmt("block_dim %lld exceeds the %u vector cores of %s: SyncAll needs every block of the "
                            "launch resident at once (the device would hang)",
                            static_cast<long long>(s.block_num), cores, d::prof().name),
                     loc);
    s.sync_loc = loc;
    // The timeline: every block leaves the barrier when the last one arrives.
    d::flush_call();
    const uint32_t k = s.block_sync_count++;
    if (d::tracking_pipes()) {
        if (s.barrier_arrival.size() <= k) s.barrier_arrival.resize(k + 1, 0.0);
        s.barrier_arrival[k] = std::max(s.barrier_arrival[k], s.block_origin + s.pipes->end_time());
    }
    sched->barrier();
    if (d::tracking_pipes()) s.pipes->advance_to(s.barrier_arrival[k] + s.costs.sync_all_cycles - s.block_origin);
}

// The software barrier over a GM workspace is not modelled.
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>&, const LocalTensor<int32_t>&, const int32_t = 0,
                    std::source_location loc = std::source_location::current()) {
    ascendc_sim::detail::violation("SyncAll",
                                   "the software form SyncAll(gmWorkspace, ubWorkspace, usedCores) is not supported "
                                   "by the simulator; use SyncAll() (the hardware barrier)",
                                   loc);
}

enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

// Scalar GM writes go straight to host memory here: nothing to clean.
template <typename T, CacheLine entireType = CacheLine::SINGLE_CACHE_LINE, DcciDst dcciDst = DcciDst::CACHELINE_OUT>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}

// ---- Vector mask register (section 4.1) ------------------------------------

inline void SetMaskCount() { ascendc_sim::detail::st().mask_mode = MaskMode::COUNTER; }
inline void SetMaskNorm() { ascendc_sim::detail::st().mask_mode = MaskMode::NORMAL; }
inline void ResetMask() {
    auto& s = ascendc_sim::detail::st();
    s.mask_hi = ~0ull;
    s.mask_lo = ~0ull;
}

// High word first, as in the real API.
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
    auto& s = ascendc_sim::detail::st();
    s.mask_hi = maskHigh;
    s.mask_lo = maskLow;
}

// Normal mode: the first `len` lanes; counter mode: `len` elements.
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len) {
    auto& s = ascendc_sim::detail::st();
    if (mode == MaskMode::COUNTER || s.mask_mode == MaskMode::COUNTER) {
        s.mask_hi = 0;
        s.mask_lo = static_cast<uint64_t>(len < 0 ? 0 : len);
        return;
    }
    uint32_t n = len < 0 ? 0u : static_cast<uint32_t>(len);
    s.mask_lo = n >= 64 ? ~0ull : ((1ull << n) - 1);
    s.mask_hi = n >= 128 ? ~0ull : (n <= 64 ? 0ull : ((1ull << (n - 64)) - 1));
}

// Scale for Cast int32 -> half (the only way that conversion exists on 2201).
inline void SetDeqScale(float scale) { ascendc_sim::detail::st().deq_scale = scale; }
inline void SetDeqScale(half scale) { ascendc_sim::detail::st().deq_scale = static_cast<float>(scale); }

}  // namespace AscendC
