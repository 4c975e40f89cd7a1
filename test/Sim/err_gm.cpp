// GM bounds checks (SetGlobalBuffer size and registered allocations) across
// several blocks, plus GM traffic counters including scalar GetValue/SetValue.
// RUN: %sim_cxx %s -o %t
// RUN: %t none | FileCheck %s --check-prefix=OK
// RUN: not %t read_past 2>&1 | FileCheck %s --check-prefix=READ
// RUN: not %t write_past 2>&1 | FileCheck %s --check-prefix=WRITE
// RUN: not %t pad_read_past 2>&1 | FileCheck %s --check-prefix=PADREAD
// RUN: not %t unregistered 2>&1 | FileCheck %s --check-prefix=UNREG
// RUN: not %t getvalue_past 2>&1 | FileCheck %s --check-prefix=GETV
// RUN: not %t setvalue_past 2>&1 | FileCheck %s --check-prefix=SETV
// RUN: not %t no_buffer 2>&1 | FileCheck %s --check-prefix=NOBUF

#include <cstdio>
#include <string>

#include "kernel_operator.h"

using namespace AscendC;

static std::string g_case;
constexpr uint32_t PER_BLOCK = 64;

extern "C" __global__ __aicore__ void gm_kernel(GM_ADDR x, GM_ADDR z) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    LocalTensor<float> t = buf.Get<float>();
    GlobalTensor<float> xGm, zGm;
    const uint32_t base = PER_BLOCK * static_cast<uint32_t>(GetBlockIdx());
    xGm.SetGlobalBuffer((__gm__ float*)x + base, PER_BLOCK);
    zGm.SetGlobalBuffer((__gm__ float*)z + base, PER_BLOCK);
    if (g_case == "read_past") {
        // READ: ascendc-sim: error: kernel 'gm_kernel' block 0: DataCopy: GM read out of bounds: bytes [224, 288) relative to the SetGlobalBuffer base, but the buffer has 256 bytes (at {{.*}}err_gm.cpp:[[@LINE+1]])
        DataCopy(t, xGm[56], 16);
    } else if (g_case == "write_past" && GetBlockIdx() == 3) {
        // WRITE: ascendc-sim: error: kernel 'gm_kernel' block 3: DataCopyPad: GM write out of bounds: bytes [240, 260) relative to the SetGlobalBuffer base, but the buffer has 256 bytes (at {{.*}}err_gm.cpp:[[@LINE+1]])
        DataCopyPad(zGm[60], t, DataCopyExtParams(1, 20, 0, 0, 0));
    } else if (g_case == "pad_read_past" && GetBlockIdx() == 2) {
        // Second block of a strided read runs past the end: 2 x 100 B with a 60 B GM gap.
        // PADREAD: ascendc-sim: error: kernel 'gm_kernel' block 2: DataCopyPad: GM read out of bounds: bytes [160, 260) relative to the SetGlobalBuffer base, but the buffer has 256 bytes (at {{.*}}err_gm.cpp:[[@LINE+1]])
        DataCopyPad(t, xGm, DataCopyExtParams(2, 100, 60, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    } else if (g_case == "unregistered" && GetBlockIdx() == 3) {
        // The GlobalTensor claims more than the host allocated (4 * 64 floats).
        GlobalTensor<float> wide;
        wide.SetGlobalBuffer((__gm__ float*)x + base, 1000);
        // UNREG: ascendc-sim: error: kernel 'gm_kernel' block 3: DataCopy: GM read of 32 bytes at {{.*}} is outside every GM allocation registered with the launcher (at {{.*}}err_gm.cpp:[[@LINE+1]])
        DataCopy(t, wide[PER_BLOCK], 8);
    } else if (g_case == "getvalue_past") {
        // GETV: ascendc-sim: error: kernel 'gm_kernel' block 0: GlobalTensor::GetValue: GM read out of bounds: bytes [256, 260) relative to the SetGlobalBuffer base, but the buffer has 256 bytes (at {{.*}}err_gm.cpp:[[@LINE+1]])
        (void)xGm.GetValue(PER_BLOCK);
    } else if (g_case == "setvalue_past") {
        // SETV: ascendc-sim: error: kernel 'gm_kernel' block 0: GlobalTensor::SetValue: GM write out of bounds: bytes [260, 264) relative to the SetGlobalBuffer base, but the buffer has 256 bytes (at {{.*}}err_gm.cpp:[[@LINE+1]])
        zGm[1].SetValue(PER_BLOCK, 1.0f);
    } else if (g_case == "no_buffer") {
        GlobalTensor<float> none;
        // NOBUF: ascendc-sim: error: kernel 'gm_kernel' block 0: DataCopy: GM read through a GlobalTensor without a buffer (SetGlobalBuffer not called, or called with a null pointer) (at {{.*}}err_gm.cpp:[[@LINE+1]])
        DataCopy(t, none, 8);
    }
    DataCopy(t, xGm, PER_BLOCK);
    Muls(t, t, 2.0f, PER_BLOCK);
    DataCopy(zGm, t, PER_BLOCK);
    zGm.SetValue(0, xGm.GetValue(0) + 0.5f);  // 4 bytes read + 4 bytes written
}

int main(int argc, char** argv) {
    // These kernels test single APIs and leave pipe synchronisation out.
    ascendc_sim::set_sync_check(false);
    g_case = argc > 1 ? argv[1] : "none";
    ascendc_sim::GmBuffer<float> x(4 * PER_BLOCK), z(4 * PER_BLOCK);
    for (uint32_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    auto st = ascendc_sim::launch("gm_kernel", gm_kernel, 4, ascendc_sim::profile("ascend910b"), x.addr(), z.addr());
    std::printf("z: %g %g %g\n", z[0], z[1], z[255]);
    // OK: z: 0.5 2 510
    std::printf("read=%llu written=%llu\n", static_cast<unsigned long long>(st.gm_bytes_read),
                static_cast<unsigned long long>(st.gm_bytes_written));
    // OK-NEXT: read=1040 written=1040
    return 0;
}
