// SetFlag/WaitFlag/PipeBarrier: valid use passes; the pairing mistakes that
// hang the device and invalid arguments are reported.
// RUN: %sim_cxx %s -o %t
// RUN: %t none | FileCheck %s --check-prefix=OK
// RUN: not %t wait_unset 2>&1 | FileCheck %s --check-prefix=WAIT
// RUN: not %t set_twice 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not %t barrier_s 2>&1 | FileCheck %s --check-prefix=BARRIER
// RUN: not %t event_id 2>&1 | FileCheck %s --check-prefix=EVID
// RUN: not %t cube_event 2>&1 | FileCheck %s --check-prefix=CUBE
// RUN: not %t sync_all 2>&1 | FileCheck %s --check-prefix=SYNCALL

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
    } else if (g_case == "sync_all") {
        // SYNCALL: ascendc-sim: error: kernel 'sync_kernel' block 0: SyncAll: inter-core synchronisation is not supported by the sequential simulator (at {{.*}}err_sync.cpp:[[@LINE+1]])
        SyncAll();
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
    ascendc_sim::launch("sync_kernel", sync_kernel, 2, ascendc_sim::profile("ascend910b"));
    // OK: block 0 of 2 ok
    // OK-NEXT: block 1 of 2 ok
    return 0;
}
