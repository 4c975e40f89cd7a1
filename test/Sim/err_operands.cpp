// Negative tests: UB operand checks of vector APIs.  Each case must stop the
// run with one error line naming the kernel, block, API, reason and the
// caller's file:line, and exit with status 3.
// RUN: %sim_cxx %s -o %t
// RUN: %t none | FileCheck %s --check-prefix=OK
// RUN: not %t misalign 2>&1 | FileCheck %s --check-prefix=MISALIGN
// RUN: bash -c '%t misalign; echo "exit=$?"' 2>/dev/null | FileCheck %s --check-prefix=EXIT
// RUN: not %t footprint 2>&1 | FileCheck %s --check-prefix=FOOTPRINT
// RUN: not %t view 2>&1 | FileCheck %s --check-prefix=VIEW
// RUN: not %t overlap 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: not %t empty 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not %t getvalue 2>&1 | FileCheck %s --check-prefix=GETVALUE
// RUN: not %t dstblk0 2>&1 | FileCheck %s --check-prefix=DSTBLK0
// RUN: not %t brcb_overlap 2>&1 | FileCheck %s --check-prefix=BRCB
// RUN: not %t index_block 2>&1 | FileCheck %s --check-prefix=INDEX_BLOCK
// RUN: not %t index_dtype 2>&1 | FileCheck %s --check-prefix=INDEX_DTYPE

#include <cstdio>
#include <string>

#include "kernel_operator.h"

using namespace AscendC;

static std::string g_case;

extern "C" __global__ __aicore__ void operand_kernel() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, bc;
    pipe.InitBuffer(ba, 1024);  // UB bytes [0, 1024)
    pipe.InitBuffer(bb, 1024);
    pipe.InitBuffer(bc, 1024);
    LocalTensor<float> a = ba.Get<float>(), b = bb.Get<float>(), c = bc.Get<float>();
    Duplicate(a, 1.0f, 256);
    Duplicate(b, 2.0f, 256);
    if (g_case == "misalign") {
        // MISALIGN: ascendc-sim: error: kernel 'operand_kernel' block 0: Add: src0 start address (UB byte offset 12) is not 32-byte aligned (at {{.*}}err_operands.cpp:[[@LINE+1]])
        Add(c, a[3], b, 8);
    } else if (g_case == "footprint") {
        // FOOTPRINT: ascendc-sim: error: kernel 'operand_kernel' block 0: Mul: dst footprint of 1200 bytes exceeds the tensor (256 elements = 1024 bytes) (at {{.*}}err_operands.cpp:[[@LINE+1]])
        Mul(c, a, b, 300);
    } else if (g_case == "view") {
        // VIEW: ascendc-sim: error: kernel 'operand_kernel' block 0: Exp: src is a view at element offset 300 of a LocalTensor with only 256 elements (at {{.*}}err_operands.cpp:[[@LINE+1]])
        Exp(c, a[300], 8);
    } else if (g_case == "overlap") {
        // OVERLAP: ascendc-sim: error: kernel 'operand_kernel' block 0: Sub: dst UB bytes [32, 288) partially overlap src0 UB bytes [0, 256) (only full in-place use is allowed) (at {{.*}}err_operands.cpp:[[@LINE+1]])
        Sub(a[8], a, b, 64);
    } else if (g_case == "empty") {
        LocalTensor<float> never;
        // EMPTY: ascendc-sim: error: kernel 'operand_kernel' block 0: Adds: dst is an empty LocalTensor (not obtained from AllocTensor/DeQue/TBuf::Get) (at {{.*}}err_operands.cpp:[[@LINE+1]])
        Adds(never, a, 1.0f, 8);
    } else if (g_case == "getvalue") {
        // GETVALUE: ascendc-sim: error: kernel 'operand_kernel' block 0: GetValue: index 256 out of range for a LocalTensor of 256 elements (at {{.*}}err_operands.cpp:[[@LINE+1]])
        (void)a.GetValue(256);
    } else if (g_case == "dstblk0") {
        // DSTBLK0: ascendc-sim: error: kernel 'operand_kernel' block 0: Add: dstBlkStride must not be 0 (at {{.*}}err_operands.cpp:[[@LINE+1]])
        Add(c, a, b, 64, 1, BinaryRepeatParams(0, 1, 1, 8, 8, 8));
    } else if (g_case == "brcb_overlap") {
        // BRCB: ascendc-sim: error: kernel 'operand_kernel' block 0: Brcb: dst UB bytes [0, 256) overlap src UB bytes [0, 32); this API needs disjoint operands (at {{.*}}err_operands.cpp:[[@LINE+1]])
        Brcb(a, a, 1, BrcbRepeatParams(1, 8));
    } else if (g_case == "index_block") {
        // CreateVecIndex writes a whole first block: 3 floats need 32 bytes.
        LocalTensor<float> four = bc.Get<float>(4);
        // INDEX_BLOCK: ascendc-sim: error: kernel 'operand_kernel' block 0: CreateVecIndex: dst footprint of 32 bytes exceeds the tensor (4 elements = 16 bytes) (at {{.*}}err_operands.cpp:[[@LINE+1]])
        CreateVecIndex(four, 0.0f, 3);
    } else if (g_case == "index_dtype") {
        LocalTensor<uint8_t> bytes = ba.Get<uint8_t>();
        // INDEX_DTYPE: ascendc-sim: error: kernel 'operand_kernel' block 0: CreateVecIndex: {{.*}}uint8{{.*}} (at {{.*}}err_operands.cpp:[[@LINE+1]])
        CreateVecIndex(bytes, static_cast<uint8_t>(0), 32);
    }
    Add(c, a, b, 256);
    std::printf("c[0]=%g\n", static_cast<float>(c.GetValue(0)));
}

int main(int argc, char** argv) {
    // These kernels test single APIs and leave pipe synchronisation out.
    ascendc_sim::set_sync_check(false);
    g_case = argc > 1 ? argv[1] : "none";
    ascendc_sim::launch("operand_kernel", operand_kernel, 1, ascendc_sim::profile("ascend910b"));
    // OK: c[0]=3
    std::printf("done\n");
    // OK-NEXT: done
    // EXIT-NOT: done
    // EXIT: exit=3
    return 0;
}
