// af_vendor_launch.h - the host side of the vendor path: the kernel launcher and GM
// buffers with the interface of sim/'s launcher (ascendc_sim::launch, GmBuffer,
// profile, LaunchStats), so that autofuse-run's driver text is the same on both
// paths, plus the tikicpulib parameter checks the vendor API code calls.
//
// Force-included (g++ -include) ahead of the driver: it includes the vendor's
// kernel_operator.h itself, whose include guard makes the driver's own #include a
// no-op.
#pragma once

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "kernel_operator.h"

namespace ascendc_sim {

struct ChipProfile {
    std::string name;
    uint32_t vector_cores = 0;  // 0: not known here (SyncAll's core check is skipped)
};

// The chip name only selects the dav_c220 configuration this header is compiled for
// and the vector-core count SyncAll is checked against (the numbers of sim/'s
// profiles, ascendc_sim/state.h kProfiles); the usable UB comes from the driver's
// request (af_vendor::set_ub_limit).
inline ChipProfile profile(const std::string& name) {
    static const struct {
        const char* name;
        uint32_t vector_cores;
    } kCores[] = {{"ascend910b", 48},  {"ascend910b1", 48},  {"ascend910b2", 48}, {"ascend910b3", 40},
                  {"ascend910b4", 40}, {"ascend910_93", 48}, {"ascend950", 48}};
    for (const auto& c : kCores)
        if (name == c.name) return ChipProfile{name, c.vector_cores};
    return ChipProfile{name, 0};
}

// GM traffic, counted by the copy intrinsics (af_isa::core().gm_*).
struct LaunchStats {
    uint64_t gm_bytes_read = 0, gm_bytes_written = 0;
    uint64_t gm_bytes_read_per_core = 0;  // distinct bytes per block, summed
    uint32_t blocks = 0;
    uint32_t ub_peak_bytes = 0;
};

// An owning GM allocation, registered with the ISA model so that copies are checked
// against it.
template <class T>
class GmBuffer {
public:
    explicit GmBuffer(size_t n) : data_(n == 0 ? 1 : n) {
        af_isa::core().gm.emplace_back(addr(), data_.size() * sizeof(T));
    }
    GmBuffer(const GmBuffer&) = delete;
    GmBuffer& operator=(const GmBuffer&) = delete;
    ~GmBuffer() {
        auto& gm = af_isa::core().gm;
        for (size_t i = 0; i < gm.size(); ++i)
            if (gm[i].first == addr()) {
                gm.erase(gm.begin() + static_cast<std::ptrdiff_t>(i));
                break;
            }
    }
    T* data() { return data_.data(); }
    uint8_t* addr() { return reinterpret_cast<uint8_t*>(data_.data()); }

private:
    std::vector<T> data_;
};

// The vendor's CPU-debug checks log to stdout (KERNEL_LOG is printf) and then raise
// SIGABRT: stdout is line-buffered so that the message survives, and the abort becomes
// exit status 3, the status of every other model violation.  (The handler also runs
// on a block's coroutine stack, block_sched.h.)
extern "C" inline void af_vendor_on_abort(int) {
    std::fflush(stdout);
    std::fputs("af-isa: error: a check of the vendor's Ascend C code failed (its [ERROR] line is on stdout)\n", stderr);
    std::_Exit(3);
}

}  // namespace ascendc_sim

namespace af_vendor {

// What one core holds while its block waits at SyncAll: the core registers of
// stub_def.h, the ISA model's core state (af_isa::Core but the launch's GM fields),
// the hooks' buffer table, the VA registers, the vendor's block-local globals (the
// TPipe pointer GetTPipePtr returns, the deq scale, the system workspace) and the
// contents of the vendor's UB host array (ConstDefiner::cpuUB), which every block's
// TPipe addresses.
struct BlockSlot {
    int64_t block_idx = 0, block_num = 1, sub_block_idx = 0, task_ration = 1;
    int32_t core_type = 0;
    af_isa::Core core;
    std::map<uint64_t, af_isa::Buffer> buffers;
    uint64_t buffers_peak = 0;
    uint64_t va[8][8] = {};
    AscendC::TPipe* pipe = nullptr;
    half deq_value;
    bool is_vdeq = false;
    uint8_t* sys_workspace = nullptr;
    std::vector<uint8_t> ub;
};

inline uint8_t* vendor_ub() { return AscendC::ConstDefiner::Instance().cpuUB; }
inline size_t vendor_ub_bytes() { return AscendC::ConstDefiner::Instance().bufferInitLen.at(AscendC::Hardware::UB); }

// Each logical block is one vector core in AIV-only mode: GetBlockIdx() = block_idx *
// g_taskRation + sub_block_idx (dav_c220/kernel_operator_common_impl.h), so block_idx =
// the block, one vector core per task.  The core state (mask, flags, accumulator,
// buffers, the TPipe pointer) starts afresh for every block, as on a fresh core; the
// UB host array keeps what the previous block left.
template <class Body>
class LaunchHooks final : public ascendc_sim::coop::BlockHooks {
public:
    LaunchHooks(Body& body, uint32_t block_dim) : body_(body), block_dim_(block_dim) {}
    void start(uint32_t b) override {
        block_idx = b;
        block_num = block_dim_;
        sub_block_idx = 0;
        g_taskRation = 1;
        g_coreType = AscendC::AIV;
        af_isa::Core& c = af_isa::core();
        c.counter = false;
        c.mask_hi = c.mask_lo = ~0ull;
        c.acc = 0;
        c.pad_set = false;
        std::memset(c.flags, 0, sizeof c.flags);
        std::memset(c.cross_flags, 0, sizeof c.cross_flags);
        c.block_reads = ascendc_sim::ReadSet{};
        af_isa::buffers().reset();
        g_vecTPipePtr = nullptr;
    }
    void body() override { body_(); }
    void finish(uint32_t) override {
        per_core_ += af_isa::core().block_reads.take();
        peak_ = std::max<uint64_t>(peak_, af_isa::buffers().peak);
    }
    void save(uint32_t b) override {
        BlockSlot& k = slots_[b];
        k.block_idx = block_idx;
        k.block_num = block_num;
        k.sub_block_idx = sub_block_idx;
        k.task_ration = g_taskRation;
        k.core_type = g_coreType;
        af_isa::Core& c = af_isa::core();
        k.core = c;
        k.core.gm.clear();
        c.block_reads = ascendc_sim::ReadSet{};
        af_isa::Buffers& bufs = af_isa::buffers();
        k.buffers = std::move(bufs.by_addr);
        k.buffers_peak = bufs.peak;
        bufs.reset();
        std::memcpy(k.va, af_isa::va_regs(), sizeof k.va);
        k.pipe = g_vecTPipePtr;
        k.deq_value = g_deqValue;
        k.is_vdeq = AscendC::g_isVdeq;
        k.sys_workspace = g_sysWorkspaceReserved;
        k.ub.assign(vendor_ub(), vendor_ub() + vendor_ub_bytes());
    }
    void restore(uint32_t b) override {
        BlockSlot& k = slots_[b];
        block_idx = k.block_idx;
        block_num = k.block_num;
        sub_block_idx = k.sub_block_idx;
        g_taskRation = k.task_ration;
        g_coreType = k.core_type;
        af_isa::Core& c = af_isa::core();
        k.core.gm_read = c.gm_read;
        k.core.gm_written = c.gm_written;
        k.core.gm.swap(c.gm);
        c = std::move(k.core);
        af_isa::Buffers& bufs = af_isa::buffers();
        bufs.by_addr = std::move(k.buffers);
        bufs.peak = k.buffers_peak;
        std::memcpy(af_isa::va_regs(), k.va, sizeof k.va);
        g_vecTPipePtr = k.pipe;
        g_deqValue = k.deq_value;
        AscendC::g_isVdeq = k.is_vdeq;
        g_sysWorkspaceReserved = k.sys_workspace;
        std::memcpy(vendor_ub(), k.ub.data(), k.ub.size());
    }
    [[noreturn]] void deadlock(uint32_t waiting, uint32_t barrier, uint32_t returned, uint32_t calls) override {
        char msg[320];
        std::snprintf(msg, sizeof msg,
                      "block %u returned from the kernel after %u SyncAll call%s while block %u waits at SyncAll #%u: "
                      "every block of the launch must call SyncAll equally often (the device would hang)",
                      returned, calls, calls == 1 ? "" : "s", waiting, barrier);
        af_isa::fail("wait_flag_dev", msg);
    }
    uint64_t per_core() const { return per_core_; }
    uint64_t peak() const { return peak_; }

private:
    Body& body_;
    uint32_t block_dim_;
    std::map<uint32_t, BlockSlot> slots_;  // of the blocks that reached a SyncAll
    uint64_t per_core_ = 0, peak_ = 0;
};

}  // namespace af_vendor

namespace ascendc_sim {

// Runs the blocks on coroutines (ascendc_sim/block_sched.h): one after the other,
// except that a block reaching SyncAll (wait_flag_dev) waits there, with its core
// state put aside, until every block has reached it; then the waiting blocks resume
// in block order.
template <class... P, class... A>
LaunchStats launch(const char*, void (*kernel)(P...), uint32_t block_dim, const ChipProfile& prof, A... args) {
    LaunchStats st;
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::signal(SIGABRT, ascendc_sim::af_vendor_on_abort);
    af_isa::core().gm_read = 0;
    af_isa::core().gm_written = 0;
    af_isa::core().block_reads.take();
    af_isa::LaunchInfo& info = af_isa::launch_info();
    info.block_dim = block_dim;
    info.vector_cores = prof.vector_cores;
    info.chip = prof.name.c_str();
    auto body = [&] { kernel(args...); };
    af_vendor::LaunchHooks<decltype(body)> hooks(body, block_dim);
    {
        coop::Scheduler sched(block_dim, hooks, "af-isa");
        sched.run();
    }
    info = af_isa::LaunchInfo{};
    st.gm_bytes_read = af_isa::core().gm_read;
    st.gm_bytes_written = af_isa::core().gm_written;
    st.gm_bytes_read_per_core = hooks.per_core();
    st.blocks = block_dim;
    st.ub_peak_bytes = static_cast<uint32_t>(hooks.peak());
    return st;
}

}  // namespace ascendc_sim

namespace af_vendor {
inline void set_ub_limit(uint64_t bytes) { af_isa::buffers().ub_limit = bytes; }
}  // namespace af_vendor

// tikicpulib's parameter checks.  The count forms are checked here (every operand
// holds count elements); the mask forms' footprints are checked lane by lane by the
// ISA model against the unified buffer.
namespace AscendC {
namespace check {

inline bool af_fits(uint64_t count, uint32_t bytes, uint64_t size, const char* what, const char* api) {
    if (count * bytes > size) {
        std::fprintf(stderr, "af-isa: error: %s: %s holds %llu bytes, the count form needs %llu\n", api, what,
                     static_cast<unsigned long long>(size), static_cast<unsigned long long>(count * bytes));
        std::exit(3);
    }
    return true;
}

inline bool CheckFuncVecBinaryImpl(VecBinaryApiParams& p, const char* api) {
    return af_fits(p.calCount, p.dstDtypeBytes, p.dstSize, "dst", api) &&
           af_fits(p.calCount, p.src0DtypeBytes, p.src0Size, "src0", api) &&
           af_fits(p.calCount, p.src1DtypeBytes, p.src1Size, "src1", api);
}
inline bool CheckFuncVecBinaryImpl(VecBinaryApiParams&, const uint64_t, const char*) { return true; }
inline bool CheckFuncVecBinaryImplForMaskArray(VecBinaryApiParams&, const uint64_t[], const char*) { return true; }
inline bool CheckFuncVecBinaryCmpImpl(VecBinaryApiParams&, const char*) { return true; }
inline bool CheckFuncVecBinaryCmpImpl(VecBinaryApiParams&, const uint64_t, const char*) { return true; }
inline bool CheckFuncVecBinaryCmpImplForMaskArray(VecBinaryApiParams&, const uint64_t[], const char*) { return true; }
inline bool CheckFuncVecBinaryScalarCmpImpl(VecBinaryScalarApiParams&, const char*) { return true; }
inline bool CheckFunVecBinaryScalarImpl(VecBinaryScalarApiParams& p, const char* api) {
    return af_fits(p.calCount, p.dstDtypeBytes, p.dstSize, "dst", api) &&
           af_fits(p.calCount, p.src0DtypeBytes, p.src0Size, "src", api);
}
inline bool CheckFunVecBinaryScalarImpl(VecBinaryScalarApiParams&, const uint64_t, const char*) { return true; }
inline bool CheckFunVecBinaryScalarImplForMaskArray(VecBinaryScalarApiParams&, const uint64_t[], const char*) {
    return true;
}
inline bool CheckFunDupImpl(VecDupApiParams& p, const char* api) {
    return af_fits(p.calCount, p.dstDtypeBytes, p.dstSize, "dst", api);
}
inline bool CheckFunDupImpl(VecDupApiParams&, const uint64_t, const char*) { return true; }
inline bool CheckFunDupImplForMaskArray(VecDupApiParams&, const uint64_t[], const char*) { return true; }
inline bool CheckFunReduceImpl(VecReduceApiParams&, const char*) { return true; }
inline bool CheckFunReduceImpl(VecReduceApiParams&, const uint64_t, const char*) { return true; }
inline bool CheckFunReduceImplForMaskArray(VecReduceApiParams&, const uint64_t[], const char*) { return true; }
inline bool CheckFunReduceOtherImpl(VecReduceApiParams&, const uint64_t, const char*) { return true; }
inline bool CheckFunReduceOtherImplForMaskArray(VecReduceApiParams&, const uint64_t[], const char*) { return true; }
inline bool CheckFunReduceOtherWhlImpl(VecReduceWhlApiParams&, const uint64_t, const char*) { return true; }
inline bool CheckFunReduceOtherWhlImplForMaskArray(VecReduceWhlApiParams&, const uint64_t[], const char*) {
    return true;
}
// Brcb and the mask forms of Copy: footprints checked lane by lane by the ISA model.
inline bool CheckFunBcBImpl(VecBroadCastApiParams&, uint32_t, const char*) { return true; }
inline bool CheckFuncCopyImpl(CopyApiParams&, const uint64_t, const char*) { return true; }
inline bool CheckFuncCopyImplForMaskArray(CopyApiParams&, const uint64_t[], const char*) { return true; }
// The count form writes the whole first 32 B block even when calCount is smaller.
inline bool CheckFuncCreateVecIndexImpl(VecCreateVecIndexApiParams& p, const char* api) {
    const uint64_t per_block = p.dstDtypeBytes == 0 ? 0 : 32 / p.dstDtypeBytes;
    return af_fits(p.calCount < per_block ? per_block : p.calCount, p.dstDtypeBytes, p.dstSize, "dst", api);
}
inline bool CheckFuncCreateVecIndexImpl(VecCreateVecIndexApiParams&, const uint64_t, const char*) { return true; }
inline bool CheckFuncCreateVecIndexImpl(VecCreateVecIndexApiParams&, const uint64_t[], const char*) { return true; }
inline bool CheckFuncDataCopyImpl(DataCopyApiParams&, const char*) { return true; }
inline bool CheckFuncDataCopyPadImpl(DataCopyPadApiParams&, const char*) { return true; }
inline bool CheckFuncVecSelectImpl(VecSelectApiParams&, const char*) { return true; }
inline bool CheckFunTransposeImpl(VecTransposeApiParams&, const char*) { return true; }
inline bool CheckFuncVecSelectImpl(VecSelectApiParams&, const uint64_t, const char*) { return true; }
inline bool CheckFuncVecSelectImplForMaskArray(VecSelectApiParams&, const uint64_t[], const char*) { return true; }

}  // namespace check
}  // namespace AscendC
