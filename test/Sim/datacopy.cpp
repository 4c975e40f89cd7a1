// DataCopy: count form truncates count*sizeof(T) down to a 32 B multiple
// (silently), strided form moves blocks of 32 B units with end-to-start gaps;
// DataCopyPad: left/right padding, pad value, dummy filler, GM byte strides,
// UB block strides, UB->GM writes exactly blockLen bytes; GM byte counters.
// RUN: %sim_cxx %s -o %t && %t | FileCheck %s
// RUN: env ASCENDC_SIM_WARN=1 %t 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN

#include <cstdio>

#include "kernel_operator.h"

using namespace AscendC;

static void dump(const char* tag, const LocalTensor<float>& t, uint32_t n) {
    std::printf("%s:", tag);
    for (uint32_t i = 0; i < n; ++i) std::printf(" %g", static_cast<float>(t.GetValue(i)));
    std::printf("\n");
}

extern "C" __global__ __aicore__ void copy_kernel(GM_ADDR src, GM_ADDR dst) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    GlobalTensor<float> in, out;
    in.SetGlobalBuffer((__gm__ float*)src, 64);
    out.SetGlobalBuffer((__gm__ float*)dst, 64);
    LocalTensor<float> t = buf.Get<float>();

    // 1. count form: 10 floats = 40 B -> only 32 B (8 floats) move.
    Duplicate(t, -1.0f, 16);
    // WARN: ascendc-sim: warning: kernel 'copy_kernel' block 0: DataCopy: count*sizeof(T) = 40 bytes is not a multiple of 32; only 32 bytes are moved (use DataCopyPad) (at {{.*}}datacopy.cpp:[[@LINE+1]])
    DataCopy(t, in, 10);
    dump("trunc", t, 12);
    // CHECK: trunc: 0 1 2 3 4 5 6 7 -1 -1 -1 -1

    // 2. strided: 3 blocks of 1 DataBlock (8 floats), GM gap 1 block, UB gap 0.
    DataCopy(t, in, DataCopyParams(3, 1, 1, 0));
    dump("strided", t, 24);
    // CHECK-NEXT: strided: 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 32 33 34 35 36 37 38 39

    // 3. No padding, no pad value yet: the filler up to the 32 B boundary repeats the block's first element.
    Duplicate(t, -1.0f, 16);
    DataCopyPad(t, in[20], DataCopyExtParams(1, 3 * sizeof(float), 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    dump("dummy", t, 10);
    // CHECK-NEXT: dummy: 20 21 22 20 20 20 20 20 -1 -1

    // 4. DataCopyPad GM->UB: 2 blocks of 5 floats, GM gap 3 floats (12 B), 1 left
    //    + 1 right pad element of 9.5, dummy filler = pad value, UB gap 1 block.
    Duplicate(t, -1.0f, 64);
    DataCopyPad(t, in[1], DataCopyExtParams(2, 5 * sizeof(float), 3 * sizeof(float), 1, 0),
                DataCopyPadExtParams<float>(true, 1, 1, 9.5f));
    dump("pad", t, 32);
    // CHECK-NEXT: pad: 9.5 1 2 3 4 5 9.5 9.5 -1 -1 -1 -1 -1 -1 -1 -1 9.5 9 10 11 12 13 9.5 9.5 -1 -1 -1 -1 -1 -1 -1 -1

    // 4b. That copy left 9.5 in the pad register (the vendor's DataCopyPad writes it
    //     with set_mov_pad_val, as SetPadValue does): a later copy without isPad fills with it.
    DataCopyPad(t, in[20], DataCopyExtParams(1, 3 * sizeof(float), 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    dump("register", t, 8);
    // CHECK-NEXT: register: 20 21 22 9.5 9.5 9.5 9.5 9.5

    // 5. SetPadValue supplies the filler when isPad is false.
    SetPadValue(7.0f);
    DataCopyPad(t, in[20], DataCopyExtParams(1, 3 * sizeof(float), 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    dump("setpad", t, 8);
    // CHECK-NEXT: setpad: 20 21 22 7 7 7 7 7

    // 6. Older overload with DataCopyParams/DataCopyPadParams (blockLen in bytes).
    DataCopyPad(t, in[2], DataCopyParams(1, 2 * sizeof(float), 0, 0), DataCopyPadParams(true, 0, 2, 4));
    dump("oldpad", t, 8);
    // CHECK-NEXT: oldpad: 2 3 4 4 4 4 4 4

    // 7. UB->GM: 2 blocks of 3 floats; UB blocks are 32 B apart (+1 block gap),
    //    GM gap 2 floats; only 3 floats per block are written.
    for (int i = 0; i < 32; ++i) t.SetValue(i, 100.0f + i);
    DataCopyPad(out, t, DataCopyExtParams(2, 3 * sizeof(float), 1, 2 * sizeof(float), 0));
    // 8. UB->GM count form with truncation: 12 floats -> 8 written at out[16..23].
    DataCopy(out[16], t, 12);
}

int main() {
    // These kernels test single APIs and leave pipe synchronisation out.
    ascendc_sim::set_sync_check(false);
    ascendc_sim::GmBuffer<float> src(64), dst(64, -5.0f);
    for (int i = 0; i < 64; ++i) src[i] = static_cast<float>(i);
    auto st = ascendc_sim::launch("copy_kernel", copy_kernel, 1, ascendc_sim::profile("ascend910b"), src.addr(), dst.addr());
    std::printf("gm:");
    for (int i = 0; i < 26; ++i) std::printf(" %g", dst[i]);
    std::printf("\n");
    // CHECK-NEXT: gm: 100 101 102 -5 -5 116 117 118 -5 -5 -5 -5 -5 -5 -5 -5 100 101 102 103 104 105 106 107 -5 -5
    // Reads: 32 + 96 + 12 + 40 + 12 + 12 + 8 = 212; writes: 24 + 32 = 56.
    std::printf("read=%llu written=%llu\n", static_cast<unsigned long long>(st.gm_bytes_read),
                static_cast<unsigned long long>(st.gm_bytes_written));
    // CHECK-NEXT: read=212 written=56
    return 0;
}
