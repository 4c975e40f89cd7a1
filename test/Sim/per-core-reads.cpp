// Distinct GM bytes per block (LaunchStats::gm_bytes_read_per_core), on both models:
// every block reads the same 32-float table twice (the second read counts in
// gm_bytes_read, not per core) plus its own 16-float row, half of which overlaps the next
// block's row. Per core: 128 B of table + 64 B of row, whatever the overlap between
// blocks; in all: 3 blocks x 192 B.
// REQUIRES: vendor-headers
// RUN: %sim_cxx %s -o %t.sim && %t.sim | FileCheck %s
// RUN: %vendor_cxx %s -o %t.vendor && %t.vendor | FileCheck %s

#include <cstdio>

#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void reads_kernel(GM_ADDR table, GM_ADDR rows) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    GlobalTensor<float> t, r;
    t.SetGlobalBuffer((__gm__ float*)table, 32);
    r.SetGlobalBuffer((__gm__ float*)rows, 64);
    LocalTensor<float> u = buf.Get<float>();
    DataCopy(u, t, 32);
    PipeBarrier<PIPE_MTE2>();  // the same UB destination again
    DataCopy(u, t, 32);
    // Rows start 8 floats apart: neighbouring blocks share half a row.
    DataCopyPad(u[32], r[GetBlockIdx() * 8], DataCopyExtParams(1, 16 * sizeof(float), 0, 0, 0),
                DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    PipeBarrier<PIPE_ALL>();
}

int main() {
    ascendc_sim::GmBuffer<float> table(32), rows(64);
    ascendc_sim::LaunchStats st =
        ascendc_sim::launch("reads_kernel", reads_kernel, 3, ascendc_sim::profile("ascend910b"), table.addr(), rows.addr());
    std::printf("read %llu per core %llu\n", static_cast<unsigned long long>(st.gm_bytes_read),
                static_cast<unsigned long long>(st.gm_bytes_read_per_core));
    // CHECK: read 960 per core 576
    return 0;
}
