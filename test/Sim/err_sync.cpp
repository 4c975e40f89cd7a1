// SetFlag/WaitFlag/PipeBarrier and SyncAll: valid use passes; the pairing
// mistakes and barrier mismatches that hang the device and invalid arguments are
// reported.
// RUN: %sim_cxx %s -o %t
// RUN: %t none | FileCheck %s --check-prefix=OK
// RUN: %t sync_ok | FileCheck %s --check-prefix=OK
// RUN: not %t wait_unset 2>&1 | FileCheck %s --check-prefix=WAIT
// RUN: not %t set_twice 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not %t barrier_s 2>&1 | FileCheck %s --check-prefix=BARRIER
// RUN: not %t event_id 2>&1 | FileCheck %s --check-prefix=EVID
// RUN: not %t cube_event 2>&1 | FileCheck %s --check-prefix=CUBE
// RUN: not %t sync_cores 2>&1 | FileCheck %s --check-prefix=SYNCCORES
// RUN: not %t sync_skip 2>&1 | FileCheck %s --check-prefix=SYNCSKIP
// RUN: not %t sync_count 2>&1 | FileCheck %s --check-prefix=SYNCCOUNT
// RUN: not %t sync_late 2>&1 | FileCheck %s --check-prefix=SYNCLATE
// RUN: not %t sync_mix 2>&1 | FileCheck %s --check-prefix=SYNCMIX
// RUN: not %t sync_soft 2>&1 | FileCheck %s --check-prefix=SYNCSOFT
// RUN: %t sync_skip; test $? -eq 3

#include <cstdio>
#include <string>

#include "kernel_operator.h"

using namespace AscendC;

static std::string g_case;

extern "C" __global__ __aicore__ void sync_kernel() {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    TPipe pipe;
    if (g_case == "wait_unset") {
        // WAIT: ascendc-sim: error: kernel 'sync_kernel' block 1: WaitFlag: HardEvent::V_MTE3 id 0 was not set before (WaitFlag without SetFlag waits forever) (at {{.*}}err_sync.cpp:[[@LINE+1]])
        if (GetBlockIdx() == 1) WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    } else if (g_case == "set_twice") {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID1);
        // TWICE: ascendc-sim: error: kernel 'sync_kernel' block 0: SetFlag: HardEvent::MTE2_V id 1 is already set (SetFlag twice without WaitFlag hangs the device) (at {{.*}}err_sync.cpp:[[@LINE+1]])
        SetFlag<HardEvent::MTE2_V>(EVENT_ID1);
    } else if (g_case == "barrier_s") {
        // BARRIER: ascendc-sim: error: kernel 'sync_kernel' block 0: PipeBarrier: PipeBarrier<PIPE_S> is not allowed (at {{.*}}err_sync.cpp:[[@LINE+1]])
        PipeBarrier<PIPE_S>();
    } else if (g_case == "event_id") {
        // EVID: ascendc-sim: error: kernel 'sync_kernel' block 0: SetFlag: event id 8 out of range [0, 8) (at {{.*}}err_sync.cpp:[[@LINE+1]])
        SetFlag<HardEvent::S_V>(8);
    } else if (g_case == "cube_event") {
        // CUBE: ascendc-sim: error: kernel 'sync_kernel' block 0: SetFlag: HardEvent::a cube/fixpipe event is not a valid event on a vector core (at {{.*}}err_sync.cpp:[[@LINE+1]])
        SetFlag<HardEvent::M_V>(0);
    } else if (g_case == "sync_ok") {
        SyncAll();
        SyncAll<true>();
    } else if (g_case == "sync_cores") {
        // 49 blocks, the 910B has 48 vector cores.
        // SYNCCORES: ascendc-sim: error: kernel 'sync_kernel' block 0: SyncAll: block_dim 49 exceeds the 48 vector cores of ascend910b: SyncAll needs every block of the launch resident at once (the device would hang) (at {{.*}}err_sync.cpp:[[@LINE+1]])
        SyncAll();
    } else if (g_case == "sync_skip") {
        // Block 1 returns without the barrier block 0 waits at.
        // SYNCSKIP: ascendc-sim: error: kernel 'sync_kernel' block 0: SyncAll: block 1 returned from the kernel after 0 SyncAll calls while this block waits at SyncAll #1: every block of the launch must call SyncAll equally often (the device would hang) (at {{.*}}err_sync.cpp:[[@LINE+1]])
        if (GetBlockIdx() == 0) SyncAll();
    } else if (g_case == "sync_count") {
        SyncAll();
        // Block 0 calls SyncAll twice, block 1 once.
        // SYNCCOUNT: ascendc-sim: error: kernel 'sync_kernel' block 0: SyncAll: block 1 returned from the kernel after 1 SyncAll call while this block waits at SyncAll #2: every block of the launch must call SyncAll equally often (the device would hang) (at {{.*}}err_sync.cpp:[[@LINE+1]])
        if (GetBlockIdx() == 0) SyncAll();
    } else if (g_case == "sync_late") {
        // Block 0 returns first; block 1 then waits for it forever.
        // SYNCLATE: ascendc-sim: error: kernel 'sync_kernel' block 1: SyncAll: block 0 returned from the kernel after 0 SyncAll calls while this block waits at SyncAll #1: every block of the launch must call SyncAll equally often (the device would hang) (at {{.*}}err_sync.cpp:[[@LINE+1]])
        if (GetBlockIdx() == 1) SyncAll();
    } else if (g_case == "sync_mix") {
        // SYNCMIX: ascendc-sim: error: kernel 'sync_kernel' block 0: SyncAll: SyncAll<false> also waits for the cube cores, which the simulator does not run (vector-only kernels use SyncAll<true>, the default) (at {{.*}}err_sync.cpp:[[@LINE+1]])
        SyncAll<false>();
    } else if (g_case == "sync_soft") {
        GlobalTensor<int32_t> ws;
        TBuf<TPosition::VECCALC> wbuf;
        pipe.InitBuffer(wbuf, 1024);
        // SYNCSOFT: ascendc-sim: error: kernel 'sync_kernel' block 0: SyncAll: the software form SyncAll(gmWorkspace, ubWorkspace, usedCores) is not supported by the simulator; use SyncAll() (the hardware barrier) (at {{.*}}err_sync.cpp:[[@LINE+1]])
        SyncAll(ws, wbuf.Get<int32_t>());
    }
    // Valid hand-written synchronisation.
    event_t ev = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_V));
    SetFlag<HardEvent::MTE2_V>(ev);
    WaitFlag<HardEvent::MTE2_V>(ev);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID3);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID3);
    PipeBarrier<PIPE_V>();
    PipeBarrier<PIPE_ALL>();
    std::printf("block %lld of %lld ok\n", static_cast<long long>(GetBlockIdx()), static_cast<long long>(GetBlockNum()));
}

int main(int argc, char** argv) {
    g_case = argc > 1 ? argv[1] : "none";
    ascendc_sim::launch("sync_kernel", sync_kernel, g_case == "sync_cores" ? 49 : 2, ascendc_sim::profile("ascend910b"));
    // OK: block 0 of 2 ok
    // OK-NEXT: block 1 of 2 ok
    return 0;
}
