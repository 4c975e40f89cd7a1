// Negative tests: parameter ranges of repeat forms, Compare counts, copy
// parameters, padding limits, reduction work buffers, launch block count and
// unknown chip profiles.
// RUN: %sim_cxx %s -o %t
// RUN: not %t repeat 2>&1 | FileCheck %s --check-prefix=REPEAT
// RUN: not %t cmp_count 2>&1 | FileCheck %s --check-prefix=CMPCOUNT
// RUN: not %t block_count 2>&1 | FileCheck %s --check-prefix=BLKCOUNT
// RUN: not %t pad_too_big 2>&1 | FileCheck %s --check-prefix=PAD
// RUN: not %t pad_blocklen 2>&1 | FileCheck %s --check-prefix=PADLEN
// RUN: not %t work_small 2>&1 | FileCheck %s --check-prefix=WORK
// RUN: not %t neg_count 2>&1 | FileCheck %s --check-prefix=NEGCOUNT
// RUN: not %t erf_tmp 2>&1 | FileCheck %s --check-prefix=ERFTMP
// RUN: not %t block_dim 2>&1 | FileCheck %s --check-prefix=BLOCKDIM
// RUN: not %t profile 2>&1 | FileCheck %s --check-prefix=PROFILE

#include <cstdio>
#include <string>

#include "kernel_operator.h"

using namespace AscendC;

static std::string g_case;

extern "C" __global__ __aicore__ void param_kernel(GM_ADDR x) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, bc;
    pipe.InitBuffer(ba, 4096);
    pipe.InitBuffer(bb, 4096);
    pipe.InitBuffer(bc, 4096);
    LocalTensor<float> a = ba.Get<float>(), b = bb.Get<float>(), c = bc.Get<float>();
    GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 1024);
    if (g_case == "repeat") {
        // REPEAT: ascendc-sim: error: kernel 'param_kernel' block 0: Add: repeatTime 300 out of range [0, 255] (at {{.*}}err_params.cpp:[[@LINE+1]])
        Add(c, a, b, 64, 300, BinaryRepeatParams(1, 1, 1, 0, 0, 0));
    } else if (g_case == "cmp_count") {
        LocalTensor<uint8_t> m = bc.Get<uint8_t>();
        // CMPCOUNT: ascendc-sim: error: kernel 'param_kernel' block 0: Compare: count*sizeof(float) = 400 bytes is not a multiple of 256 (count must be a multiple of 64; the hardware skips a partial trailing repeat) (at {{.*}}err_params.cpp:[[@LINE+1]])
        Compare(m, a, b, CMPMODE::LT, 100);
    } else if (g_case == "block_count") {
        // BLKCOUNT: ascendc-sim: error: kernel 'param_kernel' block 0: DataCopy: blockCount 5000 out of range [0, 4095] (at {{.*}}err_params.cpp:[[@LINE+1]])
        DataCopy(a, xGm, DataCopyParams(5000, 1, 0, 0));
    } else if (g_case == "pad_too_big") {
        // PAD: ascendc-sim: error: kernel 'param_kernel' block 0: DataCopyPad: leftPadding (0) and rightPadding (9) must each be at most 32 bytes (8 elements of float) (at {{.*}}err_params.cpp:[[@LINE+1]])
        DataCopyPad(a, xGm, DataCopyExtParams(1, 28, 0, 0, 0), DataCopyPadExtParams<float>(true, 0, 9, 0.0f));
    } else if (g_case == "pad_blocklen") {
        // PADLEN: ascendc-sim: error: kernel 'param_kernel' block 0: DataCopyPad: blockLen 30 bytes is not a multiple of sizeof(float) = 4 (at {{.*}}err_params.cpp:[[@LINE+1]])
        DataCopyPad(xGm, a, DataCopyExtParams(1, 30, 0, 0, 0));
    } else if (g_case == "work_small") {
        // 1000 floats: 15 full repeats -> work needs roundUp(15, 8) = 16 elements.
        LocalTensor<float> w = bc.GetWithOffset<float>(8, 0);
        // WORK: ascendc-sim: error: kernel 'param_kernel' block 0: ReduceSum: sharedTmpBuffer has 8 elements but at least 16 are required (at {{.*}}err_params.cpp:[[@LINE+1]])
        ReduceSum(b, a, w, 1000);
    } else if (g_case == "neg_count") {
        int32_t n = -8;
        // NEGCOUNT: ascendc-sim: error: kernel 'param_kernel' block 0: Muls: count -8 is negative (at {{.*}}err_params.cpp:[[@LINE+1]])
        Muls(c, a, 2.0f, n);
    } else if (g_case == "erf_tmp") {
        // The vendor's float Erf splits the count into chunks of bytes/4/3 elements
        // rounded down to 32: 256 bytes give none.
        LocalTensor<uint8_t> t = bc.GetWithOffset<uint8_t>(256, 0);
        // ERFTMP: ascendc-sim: error: kernel 'param_kernel' block 0: Erf: sharedTmpBuffer of 256 bytes is too small: the Erf implementation needs at least 384 bytes for float (one 32-element chunk of its temporaries) (at {{.*}}err_params.cpp:[[@LINE+1]])
        Erf(b, a, t, 64);
    }
}

int main(int argc, char** argv) {
    g_case = argc > 1 ? argv[1] : "none";
    ascendc_sim::GmBuffer<float> x(1024);
    uint32_t blocks = 1;
    if (g_case == "block_dim") blocks = 70000;
    // BLOCKDIM: ascendc-sim: error: kernel 'param_kernel' block 0: launch: block_dim 70000 out of range [1, 65535] (at {{.*}}launcher.h:{{[0-9]+}})
    // PROFILE: ascendc-sim: error: unknown chip profile 'ascend310p' (known: ascend910b ascend910b1 ascend910b2 ascend910b3 ascend910b4 ascend910_93 ascend950)
    const char* chip = g_case == "profile" ? "ascend310p" : "ascend910b";
    ascendc_sim::launch("param_kernel", param_kernel, blocks, ascendc_sim::profile(chip), x.addr());
    return 0;
}
