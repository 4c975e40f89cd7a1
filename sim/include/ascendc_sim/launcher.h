// ascendc_sim/launcher.h - host-side launch of a kernel on the simulator.
//
// Models `kernel<<<blockDim, ...>>>(args...)`: the kernel function runs once per
// block index 0..blockDim-1 in this thread, each with a fresh UB (filled with
// 0xFF), fresh TPipe/event/mask/pad state, and GetBlockIdx()/GetBlockNum() set.
// GM is ordinary host memory shared by all blocks.  The launch reports the GM
// bytes the kernel moved (DataCopy, DataCopyPad, GlobalTensor::GetValue/SetValue)
// and how the block count compares with the chip's vector cores (extra blocks run
// in waves on device).
//
// Every block runs on a coroutine of its own (block_sched.h).  A block that
// returns without calling SyncAll is simply followed by the next block, one after
// the other as on a sequential simulator.  A block that calls SyncAll suspends:
// its per-core state (UB, TPipe, flags, mask register, pad value, deq scale, GM
// read set; state.h BlockSlot) is put aside and the next block starts on a fresh
// core.  When every block has reached the barrier or returned, the waiting blocks
// resume in block order, each on its own state again, up to their next SyncAll or
// their end.  The rules the device imposes on SyncAll are violations: block_dim
// beyond the vector cores of the chip (all blocks must be resident at once), and
// a block that returns while others wait at a barrier, i.e. blocks calling SyncAll
// a different number of times (sync.h).
#pragma once

#include <cstring>
#include <map>
#include <type_traits>

#include "block_sched.h"
#include "state.h"

namespace ascendc_sim {

struct LaunchStats {
    uint64_t gm_bytes_read = 0;
    uint64_t gm_bytes_read_per_core = 0;  // distinct bytes per block, summed (read_set.h)
    uint64_t gm_bytes_written = 0;
    uint32_t blocks = 0;
    uint32_t vector_cores = 0;          // of the profile
    uint32_t waves = 0;                 // ceil(blocks / vector_cores)
    bool exceeds_vector_cores = false;  // blocks > vector_cores: legal, runs in waves
    uint32_t ub_peak_bytes = 0;         // largest TPipe allocation of any block
    uint32_t pipe_buffers_peak = 0;     // most buffers (TQue blocks + TBufs) of any block
    // Per pipe (S, V, MTE2, MTE3; pipes.h), summed over blocks.
    std::array<PipeCounts, kPipeCount> pipes{};
    double cycles_timeline = 0;  // the last core's end on the pipe timeline (waves included)
    double cycles_hbm = 0;       // GM bytes over the HBM bandwidth all cores share
    double cycles = 0;           // the chip model's kernel time: the larger of the two
};

// The chip model the timeline prices instructions with (until changed).
inline void set_pipe_costs(const PipeCosts& costs) { detail::st().costs = costs; }
inline const PipeCosts& pipe_costs() { return detail::st().costs; }

// Whether launches check the ordering of pipes (on unless turned off here or by
// ASCENDC_SIM_SYNC_CHECK=0): tests of single APIs that leave synchronisation out
// on purpose turn it off.
inline void set_sync_check(bool on) { detail::st().sync_check_wanted = on; }

// A GM argument that also declares its allocation for bounds checks:
//   launch("k", k, 8, prof, ascendc_sim::gm(x, n * sizeof(float)), ...)
struct GmArg {
    void* ptr;
    template <class P>
    operator P*() const {
        return static_cast<P*>(ptr);
    }
};
inline GmArg gm(void* base, size_t bytes) {
    register_gm(base, bytes);
    return GmArg{base};
}

// Owning GM buffer for host code and tests: registered while alive.
template <class T>
class GmBuffer {
public:
    explicit GmBuffer(size_t n, T init = T{}) : data_(n, init) {
        if (n != 0) register_gm(data_.data(), n * sizeof(T));
    }
    ~GmBuffer() {
        if (!data_.empty()) unregister_gm(data_.data());
    }
    GmBuffer(const GmBuffer&) = delete;
    GmBuffer& operator=(const GmBuffer&) = delete;

    T* data() { return data_.data(); }
    const T* data() const { return data_.data(); }
    size_t size() const { return data_.size(); }
    size_t bytes() const { return data_.size() * sizeof(T); }
    T& operator[](size_t i) { return data_[i]; }
    const T& operator[](size_t i) const { return data_[i]; }
    uint8_t* addr() { return reinterpret_cast<uint8_t*>(data_.data()); }  // as GM_ADDR
    std::vector<T>& vec() { return data_; }

private:
    std::vector<T> data_;
};

namespace detail {

inline void json_string(FILE* f, const std::string& v) {
    std::fputc('"', f);
    for (char c : v) {
        if (c == '"' || c == '\\') std::fputc('\\', f);
        if (static_cast<unsigned char>(c) < 0x20) {
            std::fprintf(f, "\\u%04x", c);
            continue;
        }
        std::fputc(c, f);
    }
    std::fputc('"', f);
}

// The launch's timeline as Chrome trace events (opens in Perfetto and
// chrome://tracing): one process per core, one thread per pipe, one complete
// event ("X") per instruction, timestamps in microseconds at the model clock.
inline void write_trace(const std::string& path, const std::string& kernel, const LaunchStats& st,
                        const std::vector<TraceSlice>& slices, const PipeCosts& costs) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        std::fprintf(stderr, "ascendc-sim: error: cannot write the trace file %s\n", path.c_str());
        std::exit(3);
    }
    const double us_per_cycle = 1.0 / (costs.clock_ghz * 1000.0);
    const double ts0 = 0.0;
    const unsigned pid0 = 0;
    std::fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"kernel\":");
    json_string(f, kernel);
    std::fprintf(f, ",\"blocks\":%u,\"cycles\":%.1f,\"cycles_timeline\":%.1f,\"cycles_hbm\":%.1f,\"clock_ghz\":%g},",
                 st.blocks, st.cycles, st.cycles_timeline, st.cycles_hbm, costs.clock_ghz);
    std::fprintf(f, "\"traceEvents\":[");
    bool first = true;
    auto sep = [&] {
        if (!first) std::fputc(',', f);
        first = false;
        std::fputc('\n', f);
    };
    std::vector<bool> seen;
    for (const TraceSlice& t : slices) {
        if (seen.size() <= t.core) seen.resize(t.core + 1, false);
        if (seen[t.core]) continue;
        seen[t.core] = true;
        sep();
        std::fprintf(f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"args\":{\"name\":", pid0 + t.core);
        json_string(f, kernel + " core " + std::to_string(t.core));
        std::fprintf(f, "}}");
        sep();
        std::fprintf(f, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%u,\"args\":{\"sort_index\":%u}}",
                     pid0 + t.core, pid0 + t.core);
        static const PipeId order[] = {PipeId::MTE2, PipeId::V, PipeId::MTE3, PipeId::S};
        for (size_t i = 0; i < kPipeCount; ++i) {
            sep();
            std::fprintf(f,
                         "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"%s\"}}",
                         pid0 + t.core, static_cast<unsigned>(order[i]), pipe_label(order[i]) + 5);
            sep();
            std::fprintf(f,
                         "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%u,\"tid\":%u,\"args\":{\"sort_index\":%zu}}",
                         pid0 + t.core, static_cast<unsigned>(order[i]), i);
        }
    }
    for (const TraceSlice& t : slices) {
        sep();
        std::fprintf(f, "{\"ph\":\"X\",\"name\":");
        json_string(f, t.slice.api);
        std::fprintf(f,
                     ",\"cat\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":%.4f,\"dur\":%.4f,\"args\":{\"block\":%u,"
                     "\"instructions\":%llu,\"bytes\":%llu}}",
                     pipe_label(t.slice.pipe) + 5, pid0 + t.core, static_cast<unsigned>(t.slice.pipe),
                     ts0 + t.slice.start * us_per_cycle, (t.slice.end - t.slice.start) * us_per_cycle, t.block,
                     static_cast<unsigned long long>(t.slice.instructions),
                     static_cast<unsigned long long>(t.slice.bytes));
    }
    std::fprintf(f, "\n]}\n");
    std::fclose(f);
}

// The simulator's side of the block scheduler: fresh and saved per-block state.
template <class Body>
class LaunchHooks final : public coop::BlockHooks {
public:
    explicit LaunchHooks(Body& body) : body_(body) {}
    void start(uint32_t b) override { fresh_block(b); }
    void body() override { body_(); }
    void finish(uint32_t b) override {
        SimState& s = st();
        s.gm_read_per_core += s.block_reads.take();
        flush_call();
        if (!s.pipes) return;
        const uint32_t cores = std::max<uint32_t>(1, s.profile->vector_cores);
        const uint32_t core = b % cores;
        for (size_t p = 0; p < kPipeCount; ++p) {
            const PipeCounts& c = s.pipes->counts()[p];
            PipeCounts& t = s.pipe_totals[p];
            t.calls += c.calls;
            t.instructions += c.instructions;
            t.bytes += c.bytes;
            t.busy_cycles += c.busy_cycles;
        }
        for (const PipeSlice& sl : s.pipes->slices()) {
            PipeSlice abs = sl;
            abs.start += s.block_origin;
            abs.end += s.block_origin;
            s.trace.push_back({core, b, abs});
        }
        s.core_end[core] = s.block_origin + s.pipes->end_time();
        s.pipes.reset();
    }
    void save(uint32_t b) override { save_block(slots_[b]); }
    void restore(uint32_t b) override { restore_block(slots_[b]); }
    [[noreturn]] void deadlock(uint32_t waiting, uint32_t barrier, uint32_t returned, uint32_t calls) override {
        st().block_idx = waiting;
        violation("SyncAll",
                  fmt("block %u returned from the kernel after %u SyncAll call%s while this block waits at SyncAll "
                      "#%u: every block of the launch must call SyncAll equally often (the device would hang)",
                      returned, calls, calls == 1 ? "" : "s", barrier),
                  slots_[waiting].sync_loc);
    }

private:
    Body& body_;
    std::map<uint32_t, BlockSlot> slots_;  // of the blocks that reached a SyncAll
};

}  // namespace detail

// Runs kernel(args...) once per block.  Arguments convert to the kernel's
// parameter types as in an ordinary call (the parameter types are taken from
// the kernel, so braced tiling structs and GmArg work).  Violations inside the
// kernel exit the process with status 3 (see state.h).
template <class... Args>
LaunchStats launch(const char* kernel_name, void (*kernel)(Args...), uint32_t block_dim, const ChipProfile& prof,
                   std::type_identity_t<Args>... args) {
    detail::SimState& s = detail::st();
    const ChipProfile* saved_profile = s.profile;
    void* saved_pipe = s.active_pipe;
    s.profile = &prof;
    s.kernel_name = kernel_name ? kernel_name : "<unnamed>";
    s.in_launch = true;
    s.block_idx = 0;
    s.block_num = block_dim;
    if (block_dim < 1 || block_dim > 65535)
        detail::violation("launch", detail::fmt("block_dim %u out of range [1, 65535]", block_dim),
                          std::source_location::current());
    s.gm_read = 0;
    s.gm_written = 0;
    s.gm_read_per_core = 0;
    s.block_reads.take();
    s.ub_peak = 0;
    s.pipe_buffers_peak = 0;
    s.pipe_totals = {};
    s.core_end.assign(std::max<uint32_t>(1, prof.vector_cores), 0.0);
    s.barrier_arrival.clear();
    s.trace.clear();
    {
        const char* check = std::getenv("ASCENDC_SIM_SYNC_CHECK");
        s.sync_check = s.sync_check_wanted && !(check != nullptr && std::strcmp(check, "0") == 0);
        const char* trace = std::getenv("ASCENDC_SIM_TRACE");
        s.trace_path = trace != nullptr ? trace : "";
        // The driver of autofuse-run passes the target's chip model:
        // "mte2 mte3 dma_head vec_bytes vec_head sync_all" (cycles, bytes per cycle).
        const char* costs = std::getenv("ASCENDC_SIM_COSTS");
        PipeCosts c = s.costs;
        if (costs != nullptr &&
            std::sscanf(costs, "%lf %lf %lf %lf %lf %lf", &c.mte2_bytes_per_cycle, &c.mte3_bytes_per_cycle,
                        &c.dma_head_cycles, &c.vec_bytes_per_cycle, &c.vec_head_cycles, &c.sync_all_cycles) == 6 &&
            c.mte2_bytes_per_cycle > 0 && c.mte3_bytes_per_cycle > 0 && c.vec_bytes_per_cycle > 0)
            s.costs = c;
    }
    {
        auto body = [&] { kernel(args...); };
        detail::LaunchHooks<decltype(body)> hooks(body);
        coop::Scheduler sched(block_dim, hooks, "ascendc-sim");
        sched.run();
    }
    LaunchStats st;
    st.gm_bytes_read = s.gm_read;
    st.gm_bytes_read_per_core = s.gm_read_per_core;
    st.gm_bytes_written = s.gm_written;
    st.blocks = block_dim;
    st.vector_cores = prof.vector_cores;
    st.waves = prof.vector_cores ? (block_dim + prof.vector_cores - 1) / prof.vector_cores : 1;
    st.exceeds_vector_cores = prof.vector_cores != 0 && block_dim > prof.vector_cores;
    st.ub_peak_bytes = s.ub_peak;
    st.pipe_buffers_peak = s.pipe_buffers_peak;
    st.pipes = s.pipe_totals;
    for (double e : s.core_end) st.cycles_timeline = std::max(st.cycles_timeline, e);
    const double hbm = s.costs.mte2_bytes_per_cycle * std::max<uint32_t>(1, prof.vector_cores);
    st.cycles_hbm = static_cast<double>(s.gm_read + s.gm_written) / hbm;
    st.cycles = std::max(st.cycles_timeline, st.cycles_hbm);
    if (!s.trace_path.empty()) detail::write_trace(s.trace_path, s.kernel_name, st, s.trace, s.costs);
    s.trace.clear();
    s.in_launch = false;
    s.kernel_name.clear();
    s.block_idx = 0;
    s.block_num = 1;
    s.active_pipe = saved_pipe;
    s.profile = saved_profile;
    detail::reset_ub();
    return st;
}

// Counters of the current / last launch, for code that cannot use the return value.
inline uint64_t gm_bytes_read() { return detail::st().gm_read; }
inline uint64_t gm_bytes_written() { return detail::st().gm_written; }

}  // namespace ascendc_sim
