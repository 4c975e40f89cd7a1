// The checks of autofuse's ISA model and tikicpulib hooks under the vendor's Ascend C
// (sim/vendor): each case breaks one rule and must stop with the model's one-line
// message (or the vendor's own [ERROR] line when its code checks first) and exit
// status 3.
// REQUIRES: vendor-headers
// RUN: %vendor_cxx %s -o %t
// RUN: %t ok | FileCheck %s --check-prefix=OK
// RUN: not %t gm 2>&1 | FileCheck %s --check-prefix=GM
// RUN: not %t wait 2>&1 | FileCheck %s --check-prefix=WAIT
// RUN: not %t ub 2>&1 | FileCheck %s --check-prefix=UB
// RUN: not %t free 2>&1 | FileCheck %s --check-prefix=FREE
// RUN: %t gm; test $? -eq 3

#include <cstdio>
#include <string>

#include "kernel_operator.h"

using namespace AscendC;

static std::string g_case;

extern "C" __global__ __aicore__ void checks_kernel(GM_ADDR x) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(q, 1, 1024);
    pipe.InitBuffer(buf, g_case == "ub" ? 190 * 1024 : 1024);
    GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 64);
    LocalTensor<float> t = buf.Get<float>();
    if (g_case == "gm") {
        // GM: af-isa: error: copy_gm_to_ubuf_align_b32: GM access outside every GM allocation
        DataCopyPad(t, xGm, DataCopyExtParams(2, 100, 60, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    } else if (g_case == "wait") {
        // WAIT: af-isa: error: wait_flag: waits for an event no set_flag raised (the device would hang)
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID3);
    } else if (g_case == "free") {
        LocalTensor<float> a = q.AllocTensor<float>();
        q.FreeTensor(a);
        // The vendor's own TQue catches this one before the hook does.
        // FREE: [ERROR]{{.*}}[FreeBuffer]{{.*}} which can not be FREE
        // FREE: af-isa: error: a check of the vendor's Ascend C code failed
        q.FreeTensor(a);
    } else {
        DataCopyPad(t, xGm, DataCopyExtParams(1, 64 * sizeof(float), 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
        PipeBarrier<PIPE_ALL>();
        std::printf("ok: %g\n", static_cast<float>(t.GetValue(63)));
        // OK: ok: 63
    }
}

int main(int argc, char** argv) {
    g_case = argc > 1 ? argv[1] : "ok";
    // The usable UB of the 910B (the driver passes the chip's).
    // UB: af-isa: error: InitBuffer: buffers end at UB byte {{[0-9]+}}, beyond the usable 188160 bytes
    af_vendor::set_ub_limit(188160);
    ascendc_sim::GmBuffer<float> x(64);
    for (int i = 0; i < 64; ++i) x.data()[i] = static_cast<float>(i);
    ascendc_sim::launch("checks_kernel", checks_kernel, 1, ascendc_sim::profile("ascend910b"), x.addr());
    return 0;
}
