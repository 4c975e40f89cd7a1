// Mask/repeat (high-dimensional) forms: bit masks and continuous masks leave
// unmasked lanes untouched; block/repeat strides; blkStride 0 broadcasting
// one DataBlock; Brcb; Duplicate mask form; mask register with isSetMask=false
// in normal and counter mode.
// RUN: %sim_cxx %s -o %t && %t | FileCheck %s

#include <cstdio>

#include "kernel_operator.h"

using namespace AscendC;

static void dump(const char* tag, const LocalTensor<float>& t, uint32_t from, uint32_t n) {
    std::printf("%s:", tag);
    for (uint32_t i = from; i < from + n; ++i) std::printf(" %g", static_cast<float>(t.GetValue(i)));
    std::printf("\n");
}

extern "C" __global__ __aicore__ void mask_kernel() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, bc;
    pipe.InitBuffer(ba, 2048);
    pipe.InitBuffer(bb, 2048);
    pipe.InitBuffer(bc, 2048);
    LocalTensor<float> a = ba.Get<float>(), b = bb.Get<float>(), c = bc.Get<float>();
    for (int i = 0; i < 512; ++i) {
        a.SetValue(i, static_cast<float>(i));
        b.SetValue(i, 1000.0f);
    }

    // Bit mask (float: only mask[0] is used): lanes 0, 1 and 63 of each of 2 repeats.
    Duplicate(c, -1.0f, 512);
    uint64_t bits[2] = {(1ull << 63) | 3ull, ~0ull};
    Add(c, a, b, bits, 2, BinaryRepeatParams(1, 1, 1, 8, 8, 8));
    dump("bitmask r0", c, 0, 4);
    // CHECK: bitmask r0: 1000 1001 -1 -1
    dump("bitmask r0 tail", c, 62, 4);
    // CHECK-NEXT: bitmask r0 tail: -1 1063 1064 1065
    dump("bitmask r1 tail", c, 126, 4);
    // CHECK-NEXT: bitmask r1 tail: -1 1127 -1 -1

    // Continuous mask of 10 lanes, 3 repeats, dst repeats 16 blocks apart.
    Duplicate(c, -1.0f, 512);
    Add(c, a, b, 10, 3, BinaryRepeatParams(1, 1, 1, 16, 8, 8));
    dump("cont r0", c, 8, 4);
    // CHECK-NEXT: cont r0: 1008 1009 -1 -1
    dump("cont r1", c, 128, 3);
    // CHECK-NEXT: cont r1: 1064 1065 1066
    dump("cont r1 untouched", c, 64, 2);
    // CHECK-NEXT: cont r1 untouched: -1 -1

    // src1 blkStride 0 / repStride 1: block r of b broadcast over repeat r (row broadcast).
    for (int i = 0; i < 16; ++i) b.SetValue(i, 100.0f * (i / 8 + 1));
    Mul(c, a, b, 64, 2, BinaryRepeatParams(1, 1, 0, 8, 8, 1));
    dump("bcast", c, 60, 8);
    // CHECK-NEXT: bcast: 6000 6100 6200 6300 12800 13000 13200 13400

    // Unary and scalar mask forms with strides: every second block.
    Duplicate(c, -1.0f, 512);
    Adds(c, a, 0.5f, 64, 1, UnaryRepeatParams(2, 1, 8, 8));
    dump("adds blk2", c, 0, 18);
    // CHECK-NEXT: adds blk2: 0.5 1.5 2.5 3.5 4.5 5.5 6.5 7.5 -1 -1 -1 -1 -1 -1 -1 -1 8.5 9.5

    // Duplicate mask form.
    Duplicate(c, 3.0f, 4, 2, 1, 8);
    dump("dup", c, 62, 8);
    // CHECK-NEXT: dup: -1 -1 3 3 3 3 36.5 37.5

    // Brcb: 8 source elements per repeat, each filling one 32 B block.
    Brcb(c, a, 2, BrcbRepeatParams(1, 8));
    dump("brcb", c, 0, 4);
    // CHECK-NEXT: brcb: 0 0 0 0
    dump("brcb blk1", c, 8, 2);
    // CHECK-NEXT: brcb blk1: 1 1
    dump("brcb r1", c, 120, 8);
    // CHECK-NEXT: brcb r1: 15 15 15 15 15 15 15 15

    // isSetMask=false: the mask register decides (normal mode, first 3 lanes).
    Duplicate(c, -1.0f, 512);
    SetVectorMask<float>(0, 0x7);
    Sub<float, false>(c, b, a, MASK_PLACEHOLDER, 1, BinaryRepeatParams());
    dump("reg normal", c, 0, 4);
    // CHECK-NEXT: reg normal: 100 99 98 -1
    // Counter mode: 70 elements, repeatTime ignored.
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(0, 70);
    Add<float, false>(c, a, a, MASK_PLACEHOLDER, 1, BinaryRepeatParams());
    SetMaskNorm();
    ResetMask();
    dump("reg counter", c, 68, 4);
    // CHECK-NEXT: reg counter: 136 138 -1 -1

    // Count forms of the remaining unary/scalar ops.
    for (int i = 0; i < 8; ++i) a.SetValue(i, static_cast<float>(i) - 3.0f);
    Relu(c, a, 8);
    dump("relu", c, 0, 8);
    // CHECK-NEXT: relu: 0 0 0 0 1 2 3 4
    LeakyRelu(c, a, 0.5f, 8);
    dump("leaky", c, 0, 4);
    // CHECK-NEXT: leaky: -1.5 -1 -0.5 0
    Abs(c, a, 8);
    Maxs(c, c, 2.0f, 8);
    Mins(c, c, 3.0f, 8);
    dump("clamp", c, 0, 8);
    // CHECK-NEXT: clamp: 3 2 2 2 2 2 3 3
    Muls(c, c, 4.0f, 8);
    Sqrt(c, c, 8);
    Reciprocal(c, c, 8);
    dump("recip", c, 0, 2);
    // CHECK-NEXT: recip: 0.288675 0.353553
    Exp(c, a, 8);
    Ln(c, c, 8);
    dump("ln(exp)", c, 0, 8);
    // CHECK-NEXT: ln(exp): -3 -2 -1 0 1 2 3 4

    LocalTensor<int16_t> i16 = ba.Get<int16_t>();
    LocalTensor<int16_t> j16 = bb.Get<int16_t>();
    for (int i = 0; i < 16; ++i) {
        i16.SetValue(i, static_cast<int16_t>(0x00ff));
        j16.SetValue(i, static_cast<int16_t>(0x0f0f));
    }
    LocalTensor<int16_t> k16 = bc.Get<int16_t>();
    And(k16, i16, j16, 16);
    std::printf("and=%04x", static_cast<uint16_t>(k16.GetValue(0)));
    Or(k16, i16, j16, 16);
    std::printf(" or=%04x", static_cast<uint16_t>(k16.GetValue(0)));
    Not(k16, k16, 16);
    std::printf(" not=%04x\n", static_cast<uint16_t>(k16.GetValue(0)));
    // CHECK-NEXT: and=000f or=0fff not=f000
    i16.SetValue(0, 32767);
    j16.SetValue(0, 1);
    Add(k16, i16, j16, 16);
    std::printf("int16 wrap=%d\n", k16.GetValue(0));
    // CHECK-NEXT: int16 wrap=-32768
}

int main() {
    // These kernels test single APIs and leave pipe synchronisation out.
    ascendc_sim::set_sync_check(false);
    ascendc_sim::launch("mask_kernel", mask_kernel, 1, ascendc_sim::profile("ascend910b"));
    return 0;
}
