// The ordering check of the pipes (pipes.h) and the instruction accounting:
// a TBuf kernel that synchronises its pipes by hand runs and reports per-pipe
// counts and the chip model's time; the same kernel with one WaitFlag, one
// PipeBarrier or one reuse flag left out is a data race and a violation.
// RUN: %sim_cxx %s -o %t
// RUN: %t ok | FileCheck %s --check-prefix=OK
// RUN: not %t missing_wait 2>&1 | FileCheck %s --check-prefix=WAIT
// RUN: not %t missing_barrier 2>&1 | FileCheck %s --check-prefix=BARRIER
// RUN: not %t reuse 2>&1 | FileCheck %s --check-prefix=REUSE
// RUN: env ASCENDC_SIM_SYNC_CHECK=0 %t missing_wait | FileCheck %s --check-prefix=OFF
// RUN: env ASCENDC_SIM_TRACE=%t.json %t ok > /dev/null
// RUN: FileCheck %s --check-prefix=TRACE < %t.json
#include <cstdio>
#include <cstring>
#include <string>

#include "kernel_operator.h"

using namespace AscendC;

static std::string g_mode;

extern "C" __global__ __aicore__ void order_kernel(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> in_buf, out_buf;
    pipe.InitBuffer(in_buf, 1024);
    pipe.InitBuffer(out_buf, 1024);
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer((__gm__ float*)x, 256);
    gy.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> a = in_buf.Get<float>();
    LocalTensor<float> b = out_buf.Get<float>();
    DataCopy(a, gx, 256);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    if (g_mode != "missing_wait") WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(b, a, 2.0f, 256);
    if (g_mode == "missing_barrier") {
        Adds(b, b, 1.0f, 256);  // reads what Muls writes: needs PipeBarrier<PIPE_V>
    }
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(gy, b, 256);
    if (g_mode == "reuse") {
        Duplicate(b, 0.0f, 256);  // overwrites what MTE3 may still read: needs MTE3_V
    }
    if (g_mode == "missing_wait") WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
}

int main(int argc, char** argv) {
    g_mode = argc > 1 ? argv[1] : "ok";
    ascendc_sim::GmBuffer<float> x(256), y(256);
    for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(i);
    ascendc_sim::LaunchStats st =
        ascendc_sim::launch("order_kernel", order_kernel, 1, ascendc_sim::profile("ascend910b"), x.addr(), y.addr());
    std::printf("y[3] = %g\n", y[3]);
    static const char* const names[] = {"S", "V", "MTE2", "MTE3"};
    for (size_t p = 0; p < ascendc_sim::kPipeCount; ++p)
        std::printf("%s calls %llu instructions %llu bytes %llu busy %.1f\n", names[p],
                    static_cast<unsigned long long>(st.pipes[p].calls),
                    static_cast<unsigned long long>(st.pipes[p].instructions),
                    static_cast<unsigned long long>(st.pipes[p].bytes), st.pipes[p].busy_cycles);
    std::printf("cycles %.1f\n", st.cycles);
    return 0;
}

// OK: y[3] = 6
// OK-NEXT: S calls 0 instructions 0 bytes 0 busy 0.0
// 256 floats: one count-form call of 1024 / 256 = 4 repeats, 37 + 4 cycles.
// OK-NEXT: V calls 1 instructions 4 bytes 2048 busy 41.0
// One DMA each of 1024 bytes: 880 + 1024 / 18 cycles.
// OK-NEXT: MTE2 calls 1 instructions 1 bytes 1024 busy 936.9
// OK-NEXT: MTE3 calls 1 instructions 1 bytes 1024 busy 936.9
// The flags chain the three: 936.9 + 41 + 936.9.
// OK-NEXT: cycles 1914.8

// WAIT: ascendc-sim: error: kernel 'order_kernel' block 0: Muls: PIPE_V reads UB byte 0 (operand at 0, 1024 bytes) written by PIPE_MTE2 instruction #1 (DataCopy at {{.*}}pipe-order.cpp:[[@LINE-43]]) with nothing ordering the two (SetFlag/WaitFlag<HardEvent::MTE2_V>
// BARRIER: error: kernel 'order_kernel' block 0: Adds: PIPE_V reads UB byte 1024 {{.*}} written by PIPE_V instruction #1 (Muls {{.*}}) without a PipeBarrier<PIPE_V> between them
// REUSE: error: kernel 'order_kernel' block 0: Duplicate: PIPE_V writes UB byte 1024 {{.*}} still read by PIPE_MTE3 instruction #1 (DataCopy {{.*}}) with nothing ordering the two (SetFlag/WaitFlag<HardEvent::MTE3_V>
// OFF: y[3] = 6

// TRACE: "otherData":{"kernel":"order_kernel","blocks":1,"cycles":1914.8
// TRACE-DAG: {"ph":"M","name":"thread_name","pid":0,"tid":2,"args":{"name":"MTE2"}}
// TRACE-DAG: {"ph":"X","name":"DataCopy","cat":"MTE2","pid":0,"tid":2,"ts":0.0000,
// TRACE-DAG: {"ph":"X","name":"Muls","cat":"V","pid":0,"tid":1,"ts":0.5064,
