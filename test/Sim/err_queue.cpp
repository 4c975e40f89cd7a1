// Negative tests: TQue protocol AllocTensor -> EnQue -> DeQue -> FreeTensor.
// RUN: %sim_cxx %s -o %t
// RUN: %t none | FileCheck %s --check-prefix=OK
// RUN: not %t deque_empty 2>&1 | FileCheck %s --check-prefix=DEQUE
// RUN: not %t double_free 2>&1 | FileCheck %s --check-prefix=DFREE
// RUN: not %t enque_full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not %t alloc_exhausted 2>&1 | FileCheck %s --check-prefix=ALLOC
// RUN: not %t foreign_free 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: not %t free_enqueued 2>&1 | FileCheck %s --check-prefix=FREEENQ
// RUN: not %t uninit 2>&1 | FileCheck %s --check-prefix=UNINIT

#include <cstdio>
#include <string>

#include "kernel_operator.h"

using namespace AscendC;

static std::string g_case;

extern "C" __global__ __aicore__ void queue_kernel() {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> in;
    TQue<QuePosition::VECOUT, 1> out;
    pipe.InitBuffer(in, 2, 256);
    pipe.InitBuffer(out, 1, 256);
    if (g_case == "deque_empty") {
        LocalTensor<float> t = in.AllocTensor<float>();
        in.EnQue(t);
        LocalTensor<float> u = in.DeQue<float>();
        (void)u;
        // DEQUE: ascendc-sim: error: kernel 'queue_kernel' block 0: DeQue: queue is empty (DeQue without a matching EnQue) (at {{.*}}err_queue.cpp:[[@LINE+1]])
        (void)in.DeQue<float>();
    } else if (g_case == "double_free") {
        LocalTensor<float> t = out.AllocTensor<float>();
        out.FreeTensor(t);
        // DFREE: ascendc-sim: error: kernel 'queue_kernel' block 0: FreeTensor: double free: buffer 0 of this queue is already free (at {{.*}}err_queue.cpp:[[@LINE+1]])
        out.FreeTensor(t);
    } else if (g_case == "enque_full") {
        LocalTensor<float> t0 = in.AllocTensor<float>();
        LocalTensor<float> t1 = in.AllocTensor<float>();
        in.EnQue(t0);
        // FULL: ascendc-sim: error: kernel 'queue_kernel' block 0: EnQue: queue is full: depth 1 and 1 tensors already enqueued without DeQue (at {{.*}}err_queue.cpp:[[@LINE+1]])
        in.EnQue(t1);
    } else if (g_case == "alloc_exhausted") {
        (void)in.AllocTensor<float>();
        (void)in.AllocTensor<float>();
        // ALLOC: ascendc-sim: error: kernel 'queue_kernel' block 0: AllocTensor: no free buffer: all 2 buffers of this queue are in use (missing FreeTensor?); the device would wait forever (at {{.*}}err_queue.cpp:[[@LINE+1]])
        (void)in.AllocTensor<float>();
    } else if (g_case == "foreign_free") {
        LocalTensor<float> t = in.AllocTensor<float>();
        // FOREIGN: ascendc-sim: error: kernel 'queue_kernel' block 0: FreeTensor: tensor (UB address 0) was not allocated from this queue (pass the tensor returned by AllocTensor/DeQue of the same queue, not a view of it) (at {{.*}}err_queue.cpp:[[@LINE+1]])
        out.FreeTensor(t);
    } else if (g_case == "free_enqueued") {
        LocalTensor<float> t = out.AllocTensor<float>();
        out.EnQue(t);
        // FREEENQ: ascendc-sim: error: kernel 'queue_kernel' block 0: FreeTensor: tensor is still enqueued (DeQue it before FreeTensor) (at {{.*}}err_queue.cpp:[[@LINE+1]])
        out.FreeTensor(t);
    } else if (g_case == "uninit") {
        TQue<QuePosition::VECIN, 1> never;
        // UNINIT: ascendc-sim: error: kernel 'queue_kernel' block 0: AllocTensor: queue was never initialised with TPipe::InitBuffer (at {{.*}}err_queue.cpp:[[@LINE+1]])
        (void)never.AllocTensor<half>();
    } else {
        // Double buffering: two tensors in flight, FIFO order, blocks reused.
        for (int i = 0; i < 5; ++i) {
            LocalTensor<float> a = in.AllocTensor<float>();
            Duplicate(a, static_cast<float>(i), 64);
            in.EnQue(a);
            LocalTensor<float> b = in.DeQue<float>();
            LocalTensor<float> c = out.AllocTensor<float>();
            Muls(c, b, 2.0f, 64);
            out.EnQue(c);
            in.FreeTensor(b);
            LocalTensor<float> d = out.DeQue<float>();
            std::printf("%g@%u ", static_cast<float>(d.GetValue(0)), d.meta_.addr);
            out.FreeTensor(d);
        }
        std::printf("idle=%d\n", in.HasIdleBuffer());
        // OK: 0@512 2@512 4@512 6@512 8@512 idle=1
    }
}

int main(int argc, char** argv) {
    // These kernels test single APIs and leave pipe synchronisation out.
    ascendc_sim::set_sync_check(false);
    g_case = argc > 1 ? argv[1] : "none";
    ascendc_sim::launch("queue_kernel", queue_kernel, 1, ascendc_sim::profile("ascend910b"));
    return 0;
}
