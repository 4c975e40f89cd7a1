// ascendc_sim/pipes.h - the pipes of one vector core: instruction accounting,
// the ordering check, and a timeline under the chip model.
//
// The simulator executes every API at once and in program order, but the device
// does not: the scalar unit issues each instruction to its pipe (S, V, MTE2,
// MTE3), the pipes run concurrently, and only SetFlag/WaitFlag, PipeBarrier, the
// automatic flags of TQue (EnQue/DeQue, FreeTensor/AllocTensor) and
// PipeBarrier<PIPE_ALL> order one pipe's instruction after another's.  This file
// keeps what the device would need to know to order the simulated program:
//
// - Every instruction gets a sequence number on its pipe.  known[p][q] = n says
//   that instructions 1..n of pipe q are complete before the next instruction of
//   pipe p starts; SetFlag takes a snapshot of the source pipe's knowledge (its
//   own issued instructions included), WaitFlag merges it into the destination
//   pipe's, PipeBarrier<p> orders p after its own past, PIPE_ALL everything.
// - Every UB byte remembers its last writer (pipe, number) and, per pipe, its last
//   reader.  An instruction that reads a byte whose writer it is not ordered after
//   (read-after-write), writes a byte another pipe still reads (write-after-read)
//   or writes (write-after-write) is a data race on the device.  Within one pipe
//   the device keeps issue order, except that a vector instruction may read its
//   operands before an earlier vector instruction has written them
//   (PipeBarrier<PIPE_V>, ascendc_api.md section 5), and overlapping MTE2
//   destinations need PipeBarrier<PIPE_MTE2>.
// - Every instruction gets a start and an end in cycles: it starts when its pipe
//   is free, when the scalar unit has issued it, and when everything it is
//   ordered after has ended; it lasts as the chip model says (PipeCosts).  The
//   slices can be written as a Chrome trace (one track per pipe per core).
//
// The check and the model see the operand footprints the APIs check (the span
// from an operand's start to its last touched byte), so a strided access counts
// its gaps too; GM is not tracked (SyncAll orders it between blocks).
#pragma once

// Lets a driver shared with other Ascend C CPU libraries print the counts.
#define ASCENDC_SIM_HAS_PIPES 1

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <utility>
#include <string>
#include <vector>

namespace ascendc_sim {

enum class PipeId : uint8_t { S = 0, V = 1, MTE2 = 2, MTE3 = 3 };
inline constexpr size_t kPipeCount = 4;

inline const char* pipe_label(PipeId p) {
    switch (p) {
    case PipeId::S: return "PIPE_S";
    case PipeId::V: return "PIPE_V";
    case PipeId::MTE2: return "PIPE_MTE2";
    case PipeId::MTE3: return "PIPE_MTE3";
    }
    return "?";
}

// What one pipe did in a launch (summed over blocks).
struct PipeCounts {
    uint64_t calls = 0;         // API calls issued to the pipe
    uint64_t instructions = 0;  // vector repeats; one per DMA call and per scalar access
    uint64_t bytes = 0;         // GM bytes for MTE2/MTE3, UB operand bytes for V and S
    double busy_cycles = 0;     // the chip model's time of these instructions
};

// The chip model's price of one instruction: the formula of ChipProfile::mte2_cycles,
// mte3_cycles and vec_cycles (dialects/ascir/src/chip.rs, the one definition the tiling
// solver and the host tiling function use too), in doubles.  The constants come from
// that profile: autofuse-run passes the target's in ASCENDC_SIM_COSTS; the defaults
// here are ascend910b's, for drivers run by hand (unverified estimates, see
// docs/benchmarks/kernel_quality.md).
struct PipeCosts {
    double mte2_bytes_per_cycle = 18;
    double mte3_bytes_per_cycle = 18;
    double dma_head_cycles = 880;
    double vec_bytes_per_cycle = 256;
    double vec_head_cycles = 37;
    double scalar_access_cycles = 1;
    double sync_all_cycles = 1850;
    double clock_ghz = 1.85;  // cycles -> microseconds in traces

    double cycles(PipeId p, uint64_t instructions, uint64_t bytes) const {
        switch (p) {
        case PipeId::MTE2: return dma_head_cycles + static_cast<double>(bytes) / mte2_bytes_per_cycle;
        case PipeId::MTE3: return dma_head_cycles + static_cast<double>(bytes) / mte3_bytes_per_cycle;
        case PipeId::V: return vec_head_cycles + static_cast<double>(instructions) * 256.0 / vec_bytes_per_cycle;
        case PipeId::S: return scalar_access_cycles * static_cast<double>(instructions);
        }
        return 0;
    }
};

namespace detail {

// Instructions 1..seen[q] of pipe q are complete (what a flag carries).
struct PipeToken {
    std::array<uint32_t, kPipeCount> seen{};
    void merge(const PipeToken& o) {
        for (size_t q = 0; q < kPipeCount; ++q) seen[q] = std::max(seen[q], o.seen[q]);
    }
};

struct UbSpan {
    uint32_t addr;
    uint64_t bytes;
};

// One slice of the timeline (cycles relative to the block's start).
struct PipeSlice {
    PipeId pipe;
    const char* api;
    double start, end;
    uint64_t instructions, bytes;
};

struct IssuedInstruction {
    const char* api;
    const char* file;
    uint32_t line;
};

// The pipes of the core the current block runs on.
class PipeTracker {
public:
    PipeTracker(uint32_t ub_bytes, bool keep_slices) : ub_bytes_(ub_bytes), keep_slices_(keep_slices) {}

    // Ordering --------------------------------------------------------------
    PipeToken snapshot(PipeId p) const {
        PipeToken t;
        t.seen = known_[idx(p)];
        t.seen[idx(p)] = issued(p);
        return t;
    }
    void learn(PipeId p, const PipeToken& t) {
        for (size_t q = 0; q < kPipeCount; ++q) known_[idx(p)][q] = std::max(known_[idx(p)][q], t.seen[q]);
        if (p == PipeId::S) issue_time_ = std::max(issue_time_, ready_time(PipeId::S));
    }
    // A flag or queue hand-over: `stash` when the source pipe signals, `take`
    // when the destination pipe waits (keys name the flag or queue buffer).
    using SyncKey = std::pair<uint64_t, uint64_t>;
    void stash(SyncKey key, PipeId src) { tokens_[key] = snapshot(src); }
    void take(SyncKey key, PipeId dst) {
        auto it = tokens_.find(key);
        if (it != tokens_.end()) learn(dst, it->second);
    }
    void barrier(PipeId p) { known_[idx(p)][idx(p)] = issued(p); }
    void barrier_all() {
        for (size_t p = 0; p < kPipeCount; ++p)
            for (size_t q = 0; q < kPipeCount; ++q) known_[p][q] = static_cast<uint32_t>(done_[q].size());
        issue_time_ = end_time();
    }
    // Every pipe waits until `t` (a barrier across blocks released then).
    void advance_to(double t) {
        barrier_all();
        issue_time_ = std::max(issue_time_, t);
        for (double& c : cursor_) c = std::max(c, t);
    }

    // The first unordered access of an instruction of pipe `p` that reads
    // `reads` and writes `writes`, as a message; empty if it is ordered.
    std::string hazard(PipeId p, const std::vector<UbSpan>& reads, const std::vector<UbSpan>& writes) {
        ensure_shadow();
        const size_t pi = idx(p);
        for (const UbSpan& s : reads) {
            for (uint32_t b = s.addr, e = end_of(s); b < e; ++b) {
                const uint8_t w = writer_pipe_[b];
                if (w == kNone) continue;
                const uint32_t n = writer_seq_[b];
                const bool same = w == pi;
                if (same && p != PipeId::V) continue;  // in issue order
                if (known_[pi][w] >= n) continue;
                return describe(p, "reads", b, s, static_cast<PipeId>(w), n, "written",
                                same ? "PipeBarrier<PIPE_V>" : nullptr);
            }
        }
        for (const UbSpan& s : writes) {
            for (uint32_t b = s.addr, e = end_of(s); b < e; ++b) {
                const uint8_t w = writer_pipe_[b];
                if (w != kNone) {
                    const uint32_t n = writer_seq_[b];
                    const bool same = w == pi;
                    if (!(same && p != PipeId::MTE2) && known_[pi][w] < n)
                        return describe(p, "writes", b, s, static_cast<PipeId>(w), n, "written",
                                        same ? "PipeBarrier<PIPE_MTE2>" : nullptr);
                }
                // A scalar read has delivered its value before the scalar unit
                // issues anything after it, so only other pipes' reads can race.
                for (size_t r = 0; r < kPipeCount; ++r) {
                    if (r == pi || r == idx(PipeId::S)) continue;
                    const uint32_t n = reader_seq_[r][b];
                    if (n != 0 && known_[pi][r] < n)
                        return describe(p, "writes", b, s, static_cast<PipeId>(r), n, "still read", nullptr);
                }
            }
        }
        return {};
    }

    // Issues one instruction (after `hazard`): accounts for it, places it on
    // the timeline and records its accesses.
    void issue(PipeId p, const char* api, const char* file, uint32_t line, const std::vector<UbSpan>& reads,
               const std::vector<UbSpan>& writes, uint64_t instructions, uint64_t bytes, const PipeCosts& costs) {
        ensure_shadow();
        const size_t pi = idx(p);
        const uint32_t n = static_cast<uint32_t>(done_[pi].size()) + 1;
        double start = std::max({cursor_[pi], issue_time_, ready_time(p)});
        const double cycles = costs.cycles(p, instructions, bytes);
        const double end = start + cycles;
        done_[pi].push_back(end);
        info_[pi].push_back({api, file, line});
        cursor_[pi] = end;
        if (p == PipeId::S) issue_time_ = end;  // the scalar unit runs its own accesses in line
        PipeCounts& c = counts_[pi];
        c.calls += 1;
        c.instructions += instructions;
        c.bytes += bytes;
        c.busy_cycles += cycles;
        if (keep_slices_) slices_.push_back({p, api, start, end, instructions, bytes});
        for (const UbSpan& s : reads) std::fill(reader_seq_[pi].begin() + s.addr, reader_seq_[pi].begin() + end_of(s), n);
        for (const UbSpan& s : writes) {
            std::fill(writer_pipe_.begin() + s.addr, writer_pipe_.begin() + end_of(s), static_cast<uint8_t>(pi));
            std::fill(writer_seq_.begin() + s.addr, writer_seq_.begin() + end_of(s), n);
        }
    }

    uint32_t issued(PipeId p) const { return static_cast<uint32_t>(done_[idx(p)].size()); }
    double end_time() const {
        double t = issue_time_;
        for (double c : cursor_) t = std::max(t, c);
        return t;
    }
    const std::array<PipeCounts, kPipeCount>& counts() const { return counts_; }
    const std::vector<PipeSlice>& slices() const { return slices_; }

private:
    static constexpr uint8_t kNone = 0xFF;
    static size_t idx(PipeId p) { return static_cast<size_t>(p); }

    uint32_t end_of(const UbSpan& s) const {
        const uint64_t e = static_cast<uint64_t>(s.addr) + s.bytes;
        return static_cast<uint32_t>(std::min<uint64_t>(e, ub_bytes_));
    }

    // When everything pipe p is ordered after has ended.
    double ready_time(PipeId p) const {
        double t = 0;
        for (size_t q = 0; q < kPipeCount; ++q) {
            const uint32_t n = known_[idx(p)][q];
            if (n != 0) t = std::max(t, done_[q][n - 1]);
        }
        return t;
    }

    void ensure_shadow() {
        if (!writer_pipe_.empty()) return;
        writer_pipe_.assign(ub_bytes_, kNone);
        writer_seq_.assign(ub_bytes_, 0);
        for (auto& r : reader_seq_) r.assign(ub_bytes_, 0);
    }

    std::string describe(PipeId p, const char* verb, uint32_t byte, const UbSpan& span, PipeId other, uint32_t n,
                         const char* what, const char* same_pipe_fix) const {
        const IssuedInstruction& o = info_[idx(other)][n - 1];
        char buf[768];
        if (same_pipe_fix != nullptr) {
            std::snprintf(buf, sizeof buf,
                          "%s %s UB byte %u (operand at %u, %llu bytes) %s by %s instruction #%u (%s at %s:%u) "
                          "without a %s between them: a data race on the device",
                          pipe_label(p), verb, byte, span.addr, static_cast<unsigned long long>(span.bytes), what,
                          pipe_label(other), n, o.api, o.file, o.line, same_pipe_fix);
        } else {
            const char* from = pipe_label(other) + 5;
            const char* to = pipe_label(p) + 5;
            std::snprintf(buf, sizeof buf,
                          "%s %s UB byte %u (operand at %u, %llu bytes) %s by %s instruction #%u (%s at %s:%u) "
                          "with nothing ordering the two (SetFlag/WaitFlag<HardEvent::%s_%s>, a queue's "
                          "EnQue/DeQue or PipeBarrier<PIPE_ALL>): a data race on the device",
                          pipe_label(p), verb, byte, span.addr, static_cast<unsigned long long>(span.bytes), what,
                          pipe_label(other), n, o.api, o.file, o.line, from, to);
        }
        return buf;
    }

    uint32_t ub_bytes_;
    bool keep_slices_;
    std::array<std::array<uint32_t, kPipeCount>, kPipeCount> known_{};
    std::array<std::vector<double>, kPipeCount> done_;
    std::array<std::vector<IssuedInstruction>, kPipeCount> info_;
    std::array<double, kPipeCount> cursor_{};
    double issue_time_ = 0;
    std::array<PipeCounts, kPipeCount> counts_{};
    std::vector<PipeSlice> slices_;
    std::map<SyncKey, PipeToken> tokens_;
    std::vector<uint8_t> writer_pipe_;
    std::vector<uint32_t> writer_seq_;
    std::array<std::vector<uint32_t>, kPipeCount> reader_seq_;
};

}  // namespace detail
}  // namespace ascendc_sim
