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
#include <string>
#include <vector>

#include "kernel_operator.h"

namespace ascendc_sim {

struct ChipProfile {
    std::string name;
};

// The chip name only selects the dav_c220 configuration this header is compiled for;
// the usable UB comes from the driver's request (af_vendor::set_ub_limit).
inline ChipProfile profile(const std::string& name) { return ChipProfile{name}; }

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

// Runs the blocks one after the other.  Each logical block is one vector core in
// AIV-only mode: GetBlockIdx() = block_idx * g_taskRation + sub_block_idx
// (dav_c220/kernel_operator_common_impl.h), so block_idx = the block, one vector
// core per task.  The core state (mask, flags, accumulator, buffers) starts afresh
// for every block, as on a fresh core.
// The vendor's CPU-debug checks log to stdout (KERNEL_LOG is printf) and then raise
// SIGABRT: stdout is line-buffered so that the message survives, and the abort becomes
// exit status 3, the status of every other model violation.
extern "C" inline void af_vendor_on_abort(int) {
    std::fflush(stdout);
    std::fputs("af-isa: error: a check of the vendor's Ascend C code failed (its [ERROR] line is on stdout)\n", stderr);
    std::_Exit(3);
}

template <class... P, class... A>
LaunchStats launch(const char*, void (*kernel)(P...), uint32_t block_dim, const ChipProfile&, A... args) {
    LaunchStats st;
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::signal(SIGABRT, af_vendor_on_abort);
    af_isa::core().gm_read = 0;
    af_isa::core().gm_written = 0;
    af_isa::core().block_reads.take();
    uint64_t peak = 0;
    for (uint32_t b = 0; b < block_dim; ++b) {
        block_idx = b;
        block_num = block_dim;
        sub_block_idx = 0;
        g_taskRation = 1;
        g_coreType = AscendC::AIV;
        af_isa::Core& c = af_isa::core();
        c.counter = false;
        c.mask_hi = c.mask_lo = ~0ull;
        c.acc = 0;
        c.pad_set = false;
        std::memset(c.flags, 0, sizeof c.flags);
        af_isa::buffers().reset();
        kernel(args...);
        st.gm_bytes_read_per_core += af_isa::core().block_reads.take();
        peak = std::max<uint64_t>(peak, af_isa::buffers().peak);
    }
    st.gm_bytes_read = af_isa::core().gm_read;
    st.gm_bytes_written = af_isa::core().gm_written;
    st.blocks = block_dim;
    st.ub_peak_bytes = static_cast<uint32_t>(peak);
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
