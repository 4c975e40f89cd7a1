// The whole-tile forms of af_kernel_utils.h (af::ReduceRowsWhole, af::CopyRowToRows,
// af::SplatRows, through af::ReduceBox and af::BroadcastBox) against plain loops on
// the host: sums of small integers are exact in any order, so every result must match.
// RUN: %sim_cxx -I%S/../../stages/target-ascendc/include %s -o %t && %t | FileCheck %s

#include <cstdio>

#include "af_kernel_utils.h"

using namespace AscendC;

template <typename T>
static int check_reduce(int64_t rows, int64_t len, bool expect_whole) {
    TPipe pipe;
    const int64_t align = 32 / sizeof(T);
    const int64_t pitch = af_align(len, align);
    TBuf<TPosition::VECCALC> bs, bd, bw;
    pipe.InitBuffer(bs, rows * pitch * sizeof(T));
    pipe.InitBuffer(bd, rows * align * sizeof(T));
    pipe.InitBuffer(bw, rows * 256 + 1024);
    LocalTensor<T> s = bs.Get<T>(), d = bd.Get<T>(), w = bw.Get<T>();
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < pitch; ++j)
            // Padding lanes hold a large value a masked reduction must not see.
            s.SetValue(r * pitch + j, static_cast<T>(j < len ? static_cast<float>((r * 7 + j * 3) % 11) : 1000.0f));
    int bad = 0;
    const bool whole = af::ReduceRowsWhole<af::Red::Sum>(d, s, w, rows * 256 + 1024, rows, len, pitch, align);
    if (whole != expect_whole) ++bad;
    const int64_t sext[2] = {rows, len}, dext[2] = {rows, 1};
    af::ReduceBox<af::Red::Sum, T>(d, s, w, rows * 256 + 1024, d, sext, dext, align);
    for (int64_t r = 0; r < rows; ++r) {
        float want = 0;
        for (int64_t j = 0; j < len; ++j) want += static_cast<float>((r * 7 + j * 3) % 11);
        if (static_cast<float>(d.GetValue(r * align)) != want) ++bad;
    }
    af::ReduceBox<af::Red::Max, T>(d, s, w, rows * 256 + 1024, d, sext, dext, align);
    for (int64_t r = 0; r < rows; ++r) {
        float want = -1;
        for (int64_t j = 0; j < len; ++j) want = std::max(want, static_cast<float>((r * 7 + j * 3) % 11));
        if (static_cast<float>(d.GetValue(r * align)) != want) ++bad;
    }
    return bad;
}

template <typename T>
static int check_broadcast(int64_t rows, int64_t len) {
    TPipe pipe;
    const int64_t align = 32 / sizeof(T);
    const int64_t pitch = af_align(len, align);
    TBuf<TPosition::VECCALC> bs, bd, bb;
    pipe.InitBuffer(bs, rows * pitch * sizeof(T));
    pipe.InitBuffer(bd, rows * pitch * sizeof(T));
    pipe.InitBuffer(bb, rows * align * 32);
    LocalTensor<T> s = bs.Get<T>(), d = bd.Get<T>(), b = bb.Get<T>();
    for (int64_t i = 0; i < rows * pitch; ++i) s.SetValue(i, static_cast<T>(static_cast<float>(i % 13)));
    int bad = 0;
    // Row splat: [rows, 1] -> [rows, len].
    const int64_t dext[2] = {rows, len}, splat[2] = {rows, 1}, row[2] = {1, len};
    af::BroadcastBox(d, s, dext, splat, align, b, rows * align * 32);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < len; ++j)
            if (static_cast<float>(d.GetValue(r * pitch + j)) != static_cast<float>((r * align) % 13)) ++bad;
    // One row to every row: [1, len] -> [rows, len].
    af::BroadcastBox(d, s, dext, row, align, b, 0);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < len; ++j)
            if (static_cast<float>(d.GetValue(r * pitch + j)) != static_cast<float>(j % 13)) ++bad;
    return bad;
}

extern "C" __global__ __aicore__ void whole_tile_kernel() {
    std::printf("f32 short rows: %d\n", check_reduce<float>(40, 20, true));
    // CHECK: f32 short rows: 0
    std::printf("f32 one repeat: %d\n", check_reduce<float>(40, 64, true));
    // CHECK-NEXT: f32 one repeat: 0
    std::printf("f32 folded rows: %d\n", check_reduce<float>(40, 300, true));
    // CHECK-NEXT: f32 folded rows: 0
    std::printf("f32 many rows: %d\n", check_reduce<float>(260, 70, true));
    // CHECK-NEXT: f32 many rows: 0
    std::printf("f32 two rows: %d\n", check_reduce<float>(2, 100, false));
    // CHECK-NEXT: f32 two rows: 0
    std::printf("f16 folded rows: %d\n", check_reduce<half>(40, 200, true));
    // CHECK-NEXT: f16 folded rows: 0
    std::printf("f32 broadcasts: %d\n", check_broadcast<float>(40, 100));
    // CHECK-NEXT: f32 broadcasts: 0
    std::printf("f16 broadcasts: %d\n", check_broadcast<half>(260, 40));
    // CHECK-NEXT: f16 broadcasts: 0
    std::printf("i32 broadcasts: %d\n", check_broadcast<int32_t>(9, 300));
    // CHECK-NEXT: i32 broadcasts: 0
}

int main() {
    whole_tile_kernel();
    return 0;
}
