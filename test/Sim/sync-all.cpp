// SyncAll() on both models of Ascend C (sim/include, and the vendor's headers over
// sim/vendor): the blocks of a launch run as coroutines and meet at every SyncAll.
// Eight blocks each write their part of A, SyncAll, read the next block's part of A
// and write B, SyncAll, read the part of B three blocks on and write C.  Without the
// barriers a block would read parts nobody had written yet (the host fills them
// with -1).  x, computed into UB before the first SyncAll, is used after both: each
// block's UB survives the barriers although the other blocks ran in between (on the
// vendor path they all use the same UB host array).  An event flag set before a
// barrier is waited for after it: flags are per core too.  The statistics stay per
// block (each block reads 512 distinct bytes).
//
// Expected values, part p of A: 100p + i; x of block b: 100b + i;
//   B[b][i] = A[(b+1)%8][i] + x_b[i] = 100((b+1)%8) + 100b + 2i
//   C[b][i] = B[(b+3)%8][i] - x_b[i] = 100((b+4)%8) + 100((b+3)%8) - 100b + i
// The violations: a block that returns while the others wait (SKIP), and more blocks
// than the chip's 48 vector cores (CORES).
// REQUIRES: vendor-headers
// RUN: %sim_cxx %s -o %t.sim && %t.sim | FileCheck %s
// RUN: %vendor_cxx %s -o %t.vendor && %t.vendor | FileCheck %s
// RUN: not %t.sim skip 2>&1 | FileCheck %s --check-prefix=SIM-SKIP
// RUN: not %t.vendor skip 2>&1 | FileCheck %s --check-prefix=VENDOR-SKIP
// RUN: not %t.sim cores 2>&1 | FileCheck %s --check-prefix=SIM-CORES
// RUN: not %t.vendor cores 2>&1 | FileCheck %s --check-prefix=VENDOR-CORES
// RUN: %t.vendor skip; test $? -eq 3

#include <cstdint>
#include <cstdio>
#include <string>

#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t kPart = 64;
static std::string g_case;

extern "C" __global__ __aicore__ void sync_all_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR c, uint32_t n) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by;
    pipe.InitBuffer(bx, kPart * sizeof(float));
    pipe.InitBuffer(by, kPart * sizeof(float));
    const uint32_t blk = static_cast<uint32_t>(GetBlockIdx());
    GlobalTensor<float> ga, gb, gc;
    ga.SetGlobalBuffer((__gm__ float*)a, n * kPart);
    gb.SetGlobalBuffer((__gm__ float*)b, n * kPart);
    gc.SetGlobalBuffer((__gm__ float*)c, n * kPart);
    LocalTensor<float> x = bx.Get<float>(), y = by.Get<float>();

    // Phase 1: x = 100 blk + i, kept in UB; part blk of A = x.
    CreateVecIndex(x, static_cast<float>(100 * blk), kPart);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopyPad(ga[blk * kPart], x, DataCopyExtParams(1, kPart * sizeof(float), 0, 0, 0));
    SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID1);
    if (g_case == "skip" && blk == 2) return;
    // SIM-SKIP: ascendc-sim: error: kernel 'sync_all_kernel' block 0: SyncAll: block 2 returned from the kernel after 0 SyncAll calls while this block waits at SyncAll #1: every block of the launch must call SyncAll equally often (the device would hang) (at {{.*}}sync-all.cpp:[[@LINE+4]])
    // VENDOR-SKIP: af-isa: error: wait_flag_dev: block 2 returned from the kernel after 0 SyncAll calls while block 0 waits at SyncAll #1: every block of the launch must call SyncAll equally often (the device would hang)
    // SIM-CORES: ascendc-sim: error: kernel 'sync_all_kernel' block 0: SyncAll: block_dim 49 exceeds the 48 vector cores of ascend910b: SyncAll needs every block of the launch resident at once (the device would hang) (at {{.*}}sync-all.cpp:[[@LINE+2]])
    // VENDOR-CORES: af-isa: error: wait_flag_dev: block_dim 49 exceeds the 48 vector cores of ascend910b: SyncAll needs every block of the launch resident at once (the device would hang)
    SyncAll();
    WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID1);

    // Phase 2: part blk of B = part blk+1 of A + x.
    DataCopy(y, ga[((blk + 1) % n) * kPart], kPart);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Add(y, y, x, kPart);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopyPad(gb[blk * kPart], y, DataCopyExtParams(1, kPart * sizeof(float), 0, 0, 0));
    SyncAll();

    // Phase 3: part blk of C = part blk+3 of B - x.
    DataCopy(y, gb[((blk + 3) % n) * kPart], kPart);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Sub(y, y, x, kPart);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopyPad(gc[blk * kPart], y, DataCopyExtParams(1, kPart * sizeof(float), 0, 0, 0));
}

int main(int argc, char** argv) {
    g_case = argc > 1 ? argv[1] : "ok";
    const uint32_t n = g_case == "cores" ? 49 : 8;
    ascendc_sim::GmBuffer<float> a(n * kPart), b(n * kPart), c(n * kPart);
    for (uint32_t i = 0; i < n * kPart; ++i) a.data()[i] = b.data()[i] = c.data()[i] = -1.0f;
    const ascendc_sim::LaunchStats st = ascendc_sim::launch("sync_all_kernel", sync_all_kernel, n,
                                                            ascendc_sim::profile("ascend910b"), a.addr(), b.addr(),
                                                            c.addr(), n);
    for (uint32_t blk = 0; blk < n; ++blk) {
        const float* pb = b.data() + blk * kPart;
        const float* pc = c.data() + blk * kPart;
        double sb = 0, sc = 0;
        for (uint32_t i = 0; i < kPart; ++i) {
            sb += pb[i];
            sc += pc[i];
        }
        std::printf("block %u: B %g %g sum %g | C %g %g sum %g\n", blk, pb[0], pb[kPart - 1], sb, pc[0],
                    pc[kPart - 1], sc);
    }
    // CHECK:      block 0: B 100 226 sum 10432 | C 700 763 sum 46816
    // CHECK-NEXT: block 1: B 300 426 sum 23232 | C 800 863 sum 53216
    // CHECK-NEXT: block 2: B 500 626 sum 36032 | C 900 963 sum 59616
    // CHECK-NEXT: block 3: B 700 826 sum 48832 | C 1000 1063 sum 66016
    // CHECK-NEXT: block 4: B 900 1026 sum 61632 | C 300 363 sum 21216
    // CHECK-NEXT: block 5: B 1100 1226 sum 74432 | C -400 -337 sum -23584
    // CHECK-NEXT: block 6: B 1300 1426 sum 87232 | C -300 -237 sum -17184
    // CHECK-NEXT: block 7: B 700 826 sum 48832 | C -200 -137 sum -10784
    std::printf("blocks %u gm_read %llu per core %llu gm_written %llu\n", st.blocks,
                static_cast<unsigned long long>(st.gm_bytes_read),
                static_cast<unsigned long long>(st.gm_bytes_read_per_core),
                static_cast<unsigned long long>(st.gm_bytes_written));
    // CHECK-NEXT: blocks 8 gm_read 4096 per core 4096 gm_written 6144
    return 0;
}
