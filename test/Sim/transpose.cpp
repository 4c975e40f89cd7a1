// Transpose (ascendc_api.md §4.7): the enhanced NCHW2NHWC / NHWC2NCHW forms on float
// and half (n = 1, c = rows, h*w = columns: a 2-D transpose), the basic 16x16 half
// form, and the violations of its preconditions.
// RUN: %sim_cxx %s -o %t
// RUN: %t ok | FileCheck %s
// RUN: not %t hw_align 2>&1 | FileCheck %s --check-prefix=HWALIGN
// RUN: not %t tmp_small 2>&1 | FileCheck %s --check-prefix=TMP
// RUN: not %t c_big 2>&1 | FileCheck %s --check-prefix=CBIG
// RUN: not %t reuse 2>&1 | FileCheck %s --check-prefix=REUSE
// RUN: not %t dtype 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not %t type 2>&1 | FileCheck %s --check-prefix=TYPE

#include <cstdio>
#include <string>

#include "kernel_operator.h"

using namespace AscendC;

static std::string g_case;

extern "C" __global__ __aicore__ void transpose_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, bt;
    pipe.InitBuffer(ba, 8192);
    pipe.InitBuffer(bb, 8192);
    pipe.InitBuffer(bt, 32768);
    LocalTensor<float> a = ba.Get<float>(), b = bb.Get<float>();
    LocalTensor<uint8_t> tmp = bt.Get<uint8_t>();
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, 24 * 16);
    yg.SetGlobalBuffer((__gm__ float*)y, 24 * 16);
    if (g_case == "ok") {
        // [c = 24 rows, hw = 16 columns] -> [16, 24] -> back.
        DataCopy(a, xg, 24 * 16);
        Transpose(b, a, tmp, TransposeParamsExt(1, 24, 1, 16, TransposeType::TRANSPOSE_NCHW2NHWC));
        DataCopy(yg, b, 24 * 16);
        LocalTensor<float> back = a;
        Transpose(back, b, tmp, TransposeParamsExt(1, 24, 1, 16, TransposeType::TRANSPOSE_NHWC2NCHW));
        // half: [c = 3, hw = 16] -> [16, 3], and a basic 16x16 tile.
        LocalTensor<half> h = ba.Get<half>(), g = bb.Get<half>();
        for (int i = 0; i < 48; ++i) h.SetValue(i, half(static_cast<float>(i)));
        Transpose(g, h, tmp, TransposeParamsExt(1, 3, 1, 16, TransposeType::TRANSPOSE_NCHW2NHWC));
        printf("half %g %g %g %g\n", static_cast<float>(g.GetValue(1)), static_cast<float>(g.GetValue(2)),
               static_cast<float>(g.GetValue(3)), static_cast<float>(g.GetValue(47)));
        for (int i = 0; i < 256; ++i) h.SetValue(i, half(static_cast<float>(i)));
        Transpose(g, h);
        printf("tile %g %g\n", static_cast<float>(g.GetValue(1)), static_cast<float>(g.GetValue(16)));
        GlobalTensor<float> zg;
        zg.SetGlobalBuffer((__gm__ float*)z, 24 * 16);
        LocalTensor<float> fa = ba.Get<float>();
        DataCopy(fa, xg, 24 * 16);
        Transpose(b, fa, tmp, TransposeParamsExt(1, 24, 1, 16, TransposeType::TRANSPOSE_NCHW2NHWC));
        Transpose(fa, b, tmp, TransposeParamsExt(1, 24, 1, 16, TransposeType::TRANSPOSE_NHWC2NCHW));
        DataCopy(zg, fa, 24 * 16);
    } else if (g_case == "hw_align") {
        // HWALIGN: ascendc-sim: error: kernel 'transpose_kernel' block 0: Transpose: hSize*wSize*sizeof(T) = 20 bytes is not a multiple of 32 (at {{.*}}transpose.cpp:[[@LINE+1]])
        Transpose(b, a, tmp, TransposeParamsExt(1, 8, 1, 5, TransposeType::TRANSPOSE_NCHW2NHWC));
    } else if (g_case == "tmp_small") {
        LocalTensor<uint8_t> small = bt.Get<uint8_t>(512);
        // TMP: ascendc-sim: error: kernel 'transpose_kernel' block 0: Transpose: sharedTmpBuffer has 512 bytes but at least 13312 are required (at {{.*}}transpose.cpp:[[@LINE+1]])
        Transpose(b, a, small, TransposeParamsExt(1, 24, 1, 16, TransposeType::TRANSPOSE_NCHW2NHWC));
    } else if (g_case == "c_big") {
        // CBIG: ascendc-sim: error: kernel 'transpose_kernel' block 0: Transpose: cSize 4096 exceeds 4095 (at {{.*}}transpose.cpp:[[@LINE+1]])
        Transpose(b, a, tmp, TransposeParamsExt(1, 4096, 1, 8, TransposeType::TRANSPOSE_NCHW2NHWC));
    } else if (g_case == "reuse") {
        // REUSE: ascendc-sim: error: kernel 'transpose_kernel' block 0: Transpose: dst UB bytes [{{[0-9]+}}, {{[0-9]+}}) overlap src UB bytes [{{[0-9]+}}, {{[0-9]+}}); this API needs disjoint operands (at {{.*}}transpose.cpp:[[@LINE+1]])
        Transpose(a, a, tmp, TransposeParamsExt(1, 8, 1, 8, TransposeType::TRANSPOSE_NCHW2NHWC));
    } else if (g_case == "dtype") {
        LocalTensor<float> f = ba.Get<float>(), e = bb.Get<float>();
        // DTYPE: ascendc-sim: error: kernel 'transpose_kernel' block 0: Transpose: data type float is not supported on {{.*}}
        Transpose(e, f);
    } else if (g_case == "type") {
        // TYPE: ascendc-sim: error: kernel 'transpose_kernel' block 0: Transpose: transposeType 1 is not emulated (only TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW) (at {{.*}}transpose.cpp:[[@LINE+1]])
        Transpose(b, a, tmp, TransposeParamsExt(1, 8, 1, 8, TransposeType::TRANSPOSE_ND2ND_B16));
    }
}

int main(int argc, char** argv) {
    // These kernels test single APIs and leave pipe synchronisation out.
    ascendc_sim::set_sync_check(false);
    g_case = argc > 1 ? argv[1] : "ok";
    ascendc_sim::GmBuffer<float> x(24 * 16), y(24 * 16), z(24 * 16);
    for (int i = 0; i < 24 * 16; ++i) x[i] = static_cast<float>(i);
    ascendc_sim::launch("transpose_kernel", transpose_kernel, 1, ascendc_sim::profile("ascend910b"), x.addr(),
                        y.addr(), z.addr());
    bool ok = true;
    for (int r = 0; r < 24; ++r)
        for (int c = 0; c < 16; ++c) ok = ok && y[c * 24 + r] == x[r * 16 + c] && z[r * 16 + c] == x[r * 16 + c];
    // CHECK: half 16 32 1 47
    // CHECK: tile 16 1
    // CHECK: float transposed: ok
    printf("float transposed: %s\n", ok ? "ok" : "WRONG");
    return 0;
}
