// af::ArangeBox against a host loop: element (idx) of the box holds
// start + delta * (base + sum_k idx[k] * strides[k]). Boxes whose rows walk their offsets
// linearly take the doubling or whole-tile-copy forms, the others one Adds per row; all
// must give the same values. Among them: rows that repeat one range (outer strides 0),
// a column per row (innermost stride 0), a 4-D box whose unit axis sits between two
// outer axes whose strides do not nest (not linear: per row), and one whose do.
// RUN: %sim_cxx -I%S/../../stages/target-ascendc/include %s -o %t && %t | FileCheck %s

#include <cstdio>

#include "af_kernel_utils.h"

using namespace AscendC;

template <int R>
static int check(const char* name, const int64_t (&ext)[R], const int64_t (&strides)[R], int64_t base,
                 int64_t start, int64_t delta) {
    TPipe pipe;
    const int64_t align = 8;
    const int64_t pitch = af_align(ext[R - 1], align);
    int64_t rows = 1;
    for (int k = 0; k + 1 < R; ++k) rows *= ext[k];
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, rows * pitch * sizeof(int32_t));
    LocalTensor<int32_t> d = buf.Get<int32_t>();
    af::ArangeBox<int32_t, int64_t>(d, ext, strides, base, start, delta, align);
    int bad = 0;
    int64_t idx[R];
    for (int64_t r = 0; r < rows; ++r) {
        int64_t rest = r;
        for (int k = R - 2; k >= 0; --k) {
            idx[k] = rest % ext[k];
            rest /= ext[k];
        }
        int64_t offset = base;
        for (int k = 0; k + 1 < R; ++k) offset += idx[k] * strides[k];
        for (int64_t j = 0; j < ext[R - 1]; ++j) {
            const int64_t want = start + delta * (offset + j * strides[R - 1]);
            if (d.GetValue(r * pitch + j) != want) ++bad;
        }
    }
    printf("%s: %d wrong\n", name, bad);
    return bad;
}

int main() {
    int bad = 0;
    bad += check<2>("rows", {37, 20}, {20, 1}, 5, 3, 2);
    bad += check<2>("repeated", {33, 64}, {0, 1}, 0, -7, 1);
    bad += check<2>("column", {45, 16}, {1, 0}, 11, 0, 3);
    bad += check<4>("unit-between", {2, 1, 3, 8}, {5, 5, 1, 1}, 0, 0, 1);
    bad += check<4>("nested", {2, 1, 3, 8}, {24, 7, 8, 1}, 4, 1, 1);
    bad += check<3>("one-row", {1, 1, 9}, {4, 4, 1}, 2, 0, 5);
    printf("%s\n", bad == 0 ? "all agree" : "MISMATCH");
    return bad != 0;
}
// CHECK: rows: 0 wrong
// CHECK: repeated: 0 wrong
// CHECK: column: 0 wrong
// CHECK: unit-between: 0 wrong
// CHECK: nested: 0 wrong
// CHECK: one-row: 0 wrong
// CHECK: all agree
