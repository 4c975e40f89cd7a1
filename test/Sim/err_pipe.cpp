// Negative tests: TPipe resource limits (UB capacity per chip profile, queue
// buffers per TPosition, buffers per TPipe, one TPipe per kernel, TBuf bounds).
// RUN: %sim_cxx %s -o %t
// RUN: %t none | FileCheck %s --check-prefix=OK
// RUN: %t ub_fits_950 | FileCheck %s --check-prefix=OK950
// RUN: not %t ub_overflow 2>&1 | FileCheck %s --check-prefix=UB
// RUN: not %t ub_overflow_tbuf 2>&1 | FileCheck %s --check-prefix=UBTBUF
// RUN: not %t too_many_vecin 2>&1 | FileCheck %s --check-prefix=VECIN
// RUN: not %t too_many_buffers 2>&1 | FileCheck %s --check-prefix=BUF64
// RUN: not %t two_pipes 2>&1 | FileCheck %s --check-prefix=TWOPIPES
// RUN: not %t init_twice 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not %t tbuf_get 2>&1 | FileCheck %s --check-prefix=TBUFGET
// RUN: not %t after_reset 2>&1 | FileCheck %s --check-prefix=RESET

#include <cstdio>
#include <string>

#include "kernel_operator.h"

using namespace AscendC;

static std::string g_case;

extern "C" __global__ __aicore__ void pipe_kernel() {
    TPipe pipe;
    if (g_case == "ub_overflow" || g_case == "ub_fits_950") {
        TQue<QuePosition::VECIN, 2> q;
        TQue<QuePosition::VECOUT, 2> o;
        pipe.InitBuffer(q, 2, 64 * 1024);  // 128 KiB
        // UB: ascendc-sim: error: kernel 'pipe_kernel' block 0: InitBuffer: UB overflow: 65536 bytes requested with 131072 already allocated gives 196608 bytes, more than the 188160 usable UB bytes of ascend910b (at {{.*}}err_pipe.cpp:[[@LINE+1]])
        pipe.InitBuffer(o, 1, 64 * 1024);
        std::printf("fits: %u bytes\n", 3 * 64 * 1024);
        // OK950: fits: 196608 bytes
    } else if (g_case == "ub_overflow_tbuf") {
        TBuf<TPosition::VECCALC> t;
        // UBTBUF: ascendc-sim: error: kernel 'pipe_kernel' block 0: InitBuffer: UB overflow: 188192 bytes requested with 0 already allocated gives 188192 bytes, more than the 188160 usable UB bytes of ascend910b (at {{.*}}err_pipe.cpp:[[@LINE+1]])
        pipe.InitBuffer(t, 188161);
    } else if (g_case == "too_many_vecin") {
        // 4 double-buffered + 1 single-buffered VECIN queues = 9 event ids > 8.
        TQue<QuePosition::VECIN, 1> q[5];
        for (int i = 0; i < 4; ++i) pipe.InitBuffer(q[i], 2, 256);
        // VECIN: ascendc-sim: error: kernel 'pipe_kernel' block 0: InitBuffer: too many queue buffers in TPosition VECIN: 9 > 8 (max buffer number in same queue position is 8; each needs a hardware event id) (at {{.*}}err_pipe.cpp:[[@LINE+1]])
        pipe.InitBuffer(q[4], 1, 256);
    } else if (g_case == "too_many_buffers") {
        static TBuf<TPosition::VECCALC> t[65];
        for (int i = 0; i < 64; ++i) pipe.InitBuffer(t[i], 32);
        // BUF64: ascendc-sim: error: kernel 'pipe_kernel' block 0: InitBuffer: too many buffers in one TPipe: 65 > 64 (at {{.*}}err_pipe.cpp:[[@LINE+1]])
        pipe.InitBuffer(t[64], 32);
    } else if (g_case == "two_pipes") {
        // TWOPIPES: ascendc-sim: error: kernel 'pipe_kernel' block 0: TPipe: a second TPipe was created while another one is alive (one TPipe per kernel) (at {{.*}}err_pipe.cpp:[[@LINE+1]])
        TPipe second;
    } else if (g_case == "init_twice") {
        TQue<QuePosition::VECOUT, 1> o;
        pipe.InitBuffer(o, 1, 256);
        // TWICE: ascendc-sim: error: kernel 'pipe_kernel' block 0: InitBuffer: InitBuffer called twice for the same queue (TPipe::Reset first to re-plan) (at {{.*}}err_pipe.cpp:[[@LINE+1]])
        pipe.InitBuffer(o, 1, 256);
    } else if (g_case == "tbuf_get") {
        TBuf<TPosition::VECCALC> t;
        pipe.InitBuffer(t, 100);  // rounded up to 128 bytes
        LocalTensor<float> ok = t.Get<float>(32);
        (void)ok;
        // TBUFGET: ascendc-sim: error: kernel 'pipe_kernel' block 0: TBuf::Get: 33 elements of float (132 bytes) exceed the buffer of 128 bytes (at {{.*}}err_pipe.cpp:[[@LINE+1]])
        (void)t.Get<float>(33);
    } else if (g_case == "after_reset") {
        TQue<QuePosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 256);
        pipe.Reset();
        // RESET: ascendc-sim: error: kernel 'pipe_kernel' block 0: AllocTensor: queue's TPipe was reset or destroyed since InitBuffer (at {{.*}}err_pipe.cpp:[[@LINE+1]])
        (void)q.AllocTensor<float>();
    } else {
        // The largest legal plan on 2201: exactly 188160 bytes.
        TBuf<TPosition::VECCALC> t;
        pipe.InitBuffer(t, 188160);
        std::printf("usable=%u total=%u\n", GetRuntimeUBSize(), GetUBSizeInBytes());
        // OK: usable=188160 total=196608
    }
}

int main(int argc, char** argv) {
    g_case = argc > 1 ? argv[1] : "none";
    const char* chip = g_case == "ub_fits_950" ? "ascend950" : "ascend910b";
    auto st = ascendc_sim::launch("pipe_kernel", pipe_kernel, 1, ascendc_sim::profile(chip));
    std::printf("ub_peak=%u\n", st.ub_peak_bytes);
    // OK-NEXT: ub_peak=188160
    // OK950-NEXT: ub_peak=196608
    return 0;
}
