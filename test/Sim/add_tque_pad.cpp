// Canonical TPipe/TQue vector kernel (fact sheet 2.7): z = x + y over a length
// that is not a multiple of 8, split over several blocks, tails moved with
// DataCopyPad; compared with a plain C++ loop; GM byte counters checked.
// RUN: %sim_cxx %s -o %t && %t | FileCheck %s

#include <cstdio>
#include <vector>

#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TILE = 64;  // elements per tile (256 B)

class KernelAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total) {
        // Per-block chunk rounded up to 8 floats (32 B); the last block gets the rest.
        uint32_t per = ((total + GetBlockNum() - 1) / GetBlockNum() + 7) / 8 * 8;
        uint32_t start = per * GetBlockIdx();
        len_ = start < total ? (total - start < per ? total - start : per) : 0;
        xGm_.SetGlobalBuffer((__gm__ float*)x + start, len_);
        yGm_.SetGlobalBuffer((__gm__ float*)y + start, len_);
        zGm_.SetGlobalBuffer((__gm__ float*)z + start, len_);
        pipe_.InitBuffer(inX_, BUFFER_NUM, TILE * sizeof(float));
        pipe_.InitBuffer(inY_, BUFFER_NUM, TILE * sizeof(float));
        pipe_.InitBuffer(outZ_, BUFFER_NUM, TILE * sizeof(float));
    }
    __aicore__ inline void Process() {
        for (uint32_t off = 0; off < len_; off += TILE) {
            uint32_t n = len_ - off < TILE ? len_ - off : TILE;
            CopyIn(off, n);
            Compute(n);
            CopyOut(off, n);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t off, uint32_t n) {
        LocalTensor<float> x = inX_.AllocTensor<float>();
        LocalTensor<float> y = inY_.AllocTensor<float>();
        if (n == TILE) {
            DataCopy(x, xGm_[off], n);
            DataCopy(y, yGm_[off], n);
        } else {
            DataCopyExtParams p{1, n * static_cast<uint32_t>(sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> pad{true, 0, 0, 0.0f};
            DataCopyPad(x, xGm_[off], p, pad);
            DataCopyPad(y, yGm_[off], p, pad);
        }
        inX_.EnQue(x);
        inY_.EnQue(y);
    }
    __aicore__ inline void Compute(uint32_t n) {
        LocalTensor<float> x = inX_.DeQue<float>();
        LocalTensor<float> y = inY_.DeQue<float>();
        LocalTensor<float> z = outZ_.AllocTensor<float>();
        Add(z, x, y, n);
        outZ_.EnQue<float>(z);
        inX_.FreeTensor(x);
        inY_.FreeTensor(y);
    }
    __aicore__ inline void CopyOut(uint32_t off, uint32_t n) {
        LocalTensor<float> z = outZ_.DeQue<float>();
        if (n == TILE) {
            DataCopy(zGm_[off], z, n);
        } else {
            DataCopyPad(zGm_[off], z, DataCopyExtParams{1, n * static_cast<uint32_t>(sizeof(float)), 0, 0, 0});
        }
        outZ_.FreeTensor(z);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inX_, inY_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outZ_;
    GlobalTensor<float> xGm_, yGm_, zGm_;
    uint32_t len_ = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    KernelAdd op;
    op.Init(x, y, z, total);
    op.Process();
}

int main() {
    const uint32_t N = 1003;  // not a multiple of 8
    ascendc_sim::GmBuffer<float> x(N), y(N), z(N, -1.0f);
    for (uint32_t i = 0; i < N; ++i) {
        x[i] = 0.25f * static_cast<float>(i) - 7.0f;
        y[i] = 1.0f / static_cast<float>(i + 3);
    }
    ascendc_sim::LaunchStats st = ascendc_sim::launch("add_custom", add_custom, 5, ascendc_sim::profile("ascend910b"),
                                                      x.addr(), y.addr(), z.addr(), N);
    int mismatches = 0;
    for (uint32_t i = 0; i < N; ++i)
        if (z[i] != x[i] + y[i]) ++mismatches;
    std::printf("mismatches=%d\n", mismatches);
    // CHECK: mismatches=0
    std::printf("gm_read=%llu gm_written=%llu blocks=%u waves=%u exceeds=%d\n",
                static_cast<unsigned long long>(st.gm_bytes_read), static_cast<unsigned long long>(st.gm_bytes_written),
                st.blocks, st.waves, st.exceeds_vector_cores);
    // Every input byte read once (2 * 1003 * 4), every output byte written once.
    // CHECK-NEXT: gm_read=8024 gm_written=4012 blocks=5 waves=1 exceeds=0
    std::printf("ub_peak=%u buffers=%u\n", st.ub_peak_bytes, st.pipe_buffers_peak);
    // CHECK-NEXT: ub_peak=1536 buffers=6

    // More blocks than vector cores is legal and runs in waves.
    ascendc_sim::LaunchStats st2 = ascendc_sim::launch("add_custom", add_custom, 100,
                                                       ascendc_sim::profile("ascend910b"), x.addr(), y.addr(), z.addr(), N);
    mismatches = 0;
    for (uint32_t i = 0; i < N; ++i)
        if (z[i] != x[i] + y[i]) ++mismatches;
    std::printf("blocks=%u waves=%u exceeds=%d mismatches=%d read=%llu\n", st2.blocks, st2.waves,
                st2.exceeds_vector_cores, mismatches, static_cast<unsigned long long>(st2.gm_bytes_read));
    // CHECK-NEXT: blocks=100 waves=3 exceeds=1 mismatches=0 read=8024
    return 0;
}
