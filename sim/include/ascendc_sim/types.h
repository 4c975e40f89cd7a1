// ascendc_sim/types.h - keywords, enums, constants and parameter structs of the
// Ascend C vector subset (fact sheet sections 1, 2.1, 3, 4, 5, 9.1).
//
// Everything here is plain data: qualifier macros that are empty on the CPU,
// the enumerations generated kernels name (TPosition, RoundMode, CMPMODE, ...),
// the compiler built-ins that device code uses unqualified at global scope
// (pipe_t, event_t, EVENT_ID*, KERNEL_TYPE_*), and the repeat/copy parameter
// structs with the field names and defaults of the real headers.
#pragma once

#include <cstdint>

// ---- Function / address-space qualifiers: no meaning on the CPU ------------
#define __aicore__
#define __global__
#define __gm__
#define __ubuf__
#define __inline__
#define __vector__
#define __cube__

#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif
#ifndef UB_ADDR
#define UB_ADDR __ubuf__ uint8_t*
#endif

// The simulator implements the A2/A3 API surface by default.  The chip
// *profile* (UB size, dtype gating) is chosen at run time by the launcher; this
// macro only exists so that code testing `__NPU_ARCH__` compiles.
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
#endif
#ifndef ASCEND_IS_AIV
#define ASCEND_IS_AIV (true)
#define ASCEND_IS_AIC (false)
#endif

// ---- Compiler built-ins used unqualified by device code ------------------
enum pipe_t : uint8_t {
    PIPE_S = 0,
    PIPE_V,
    PIPE_M,
    PIPE_MTE1,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_ALL,
    PIPE_FIX,
};

enum event_t : int32_t {
    EVENT_ID0 = 0,
    EVENT_ID1,
    EVENT_ID2,
    EVENT_ID3,
    EVENT_ID4,
    EVENT_ID5,
    EVENT_ID6,
    EVENT_ID7,
};

// Values accepted by KERNEL_TASK_TYPE_DEFAULT / KERNEL_TASK_TYPE (section 1.3).
enum KernelMetaType : uint8_t {
    KERNEL_TYPE_AIV_ONLY,
    KERNEL_TYPE_AIC_ONLY,
    KERNEL_TYPE_MIX_AIV_1_0,
    KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2,
    KERNEL_TYPE_AICORE,
    KERNEL_TYPE_VECTORCORE,
    KERNEL_TYPE_MIX_AICORE,
    KERNEL_TYPE_MIX_VECTOR_CORE,
    KERNEL_TYPE_MAX,
};

namespace AscendC {

enum class TPosition : uint8_t {
    GM,
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    CO1,
    CO2,
    VECIN,
    VECOUT,
    VECCALC,
    LCM = VECCALC,
    SPM,
    SHM = SPM,
    TSCM,
    C2PIPE2GM,
    C2PIPE2LOCAL,
    MAX,
};
using QuePosition = TPosition;

enum class RoundMode : uint8_t {
    CAST_NONE = 0,
    CAST_RINT,
    CAST_FLOOR,
    CAST_CEIL,
    CAST_ROUND,
    CAST_TRUNC,
    CAST_ODD,
    CAST_HYBRID,
};

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };

enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

enum class ReduceType : uint8_t { SUM = 0, MAX, MIN };

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };

enum class CacheMode : uint8_t { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL, CACHE_MODE_PERSISTENT };

// Order as in the real kernel_event.h (SRC_DST: dst waits for src).
enum class HardEvent : uint8_t {
    MTE2_MTE1,
    MTE1_MTE2,
    MTE1_M,
    M_MTE1,
    MTE2_V,
    V_MTE2,
    MTE3_V,
    V_MTE3,
    M_V,
    V_M,
    V_V,
    MTE3_MTE1,
    MTE1_MTE3,
    MTE1_V,
    MTE2_M,
    M_MTE2,
    V_MTE1,
    M_FIX,
    FIX_M,
    MTE3_MTE2,
    MTE2_MTE3,
    S_V,
    V_S,
    S_MTE2,
    MTE2_S,
    S_MTE3,
    MTE3_S,
    MTE2_FIX,
    FIX_MTE2,
    FIX_S,
    M_S,
    FIX_MTE3,
    MTE1_FIX,
    FIX_MTE1,
    FIX_FIX,
    MAX,
};

using TEventID = int8_t;

// Hardware geometry constants that kernels commonly use by name.
inline constexpr int32_t ONE_BLK_SIZE = 32;           // one DataBlock
inline constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;  // one repeat = 8 DataBlocks
inline constexpr int32_t MAX_REPEAT_TIMES = 255;
inline constexpr int32_t DEFAULT_BLK_NUM = 8;
inline constexpr int32_t DEFAULT_BLK_STRIDE = 1;
inline constexpr int32_t DEFAULT_REPEAT_STRIDE = 8;
inline constexpr uint64_t MASK_PLACEHOLDER = 0;
inline constexpr int32_t BLOCK_CUBE = 16;

// ---- DataCopy parameter structs (section 3) -------------------------------

// Strided DataCopy: units are 32 B DataBlocks on both sides.  For the
// DataCopyPad overloads that take this struct, blockLen is in bytes and the
// GM-side stride in bytes (section 3.3).
struct DataCopyParams {
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;
    union {
        uint16_t srcStride = 0;
        uint16_t srcGap;
    };
    union {
        uint16_t dstStride = 0;
        uint16_t dstGap;
    };
    DataCopyParams() = default;
    DataCopyParams(uint16_t count, uint16_t len, uint16_t srcStrideIn, uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
};

// DataCopyPad: blockLen in bytes; GM-side stride in bytes, UB-side stride in
// 32 B blocks.
struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
    DataCopyExtParams() = default;
    DataCopyExtParams(uint16_t count, uint32_t len, uint32_t srcStrideIn, uint32_t dstStrideIn, uint32_t rsvIn = 0)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
};

template <typename T>
struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;   // elements
    uint8_t rightPadding = 0;  // elements
    T paddingValue = 0;
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool isPadIn, uint8_t left, uint8_t right, T value)
        : isPad(isPadIn), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

// Older padding struct; paddingValue is converted to the element type by value.
struct DataCopyPadParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
    DataCopyPadParams() = default;
    DataCopyPadParams(bool isPadIn, uint8_t left, uint8_t right, uint64_t value)
        : isPad(isPadIn), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

// ---- Vector repeat parameter structs (section 4.1) ------------------------

struct BinaryRepeatParams {
    uint8_t dstBlkStride = 1;
    uint8_t src0BlkStride = 1;
    uint8_t src1BlkStride = 1;
    uint8_t dstRepStride = 8;
    uint8_t src0RepStride = 8;
    uint8_t src1RepStride = 8;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    BinaryRepeatParams() = default;
    BinaryRepeatParams(uint8_t dstBlk, uint8_t src0Blk, uint8_t src1Blk, uint8_t dstRep, uint8_t src0Rep,
                       uint8_t src1Rep)
        : dstBlkStride(dstBlk), src0BlkStride(src0Blk), src1BlkStride(src1Blk), dstRepStride(dstRep),
          src0RepStride(src0Rep), src1RepStride(src1Rep) {}
};

struct UnaryRepeatParams {
    uint16_t dstBlkStride = 1;
    uint16_t srcBlkStride = 1;
    uint8_t dstRepStride = 8;
    uint8_t srcRepStride = 8;
    bool halfBlock = false;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    UnaryRepeatParams() = default;
    UnaryRepeatParams(uint16_t dstBlk, uint16_t srcBlk, uint8_t dstRep, uint8_t srcRep, bool halfBlockIn = false)
        : dstBlkStride(dstBlk), srcBlkStride(srcBlk), dstRepStride(dstRep), srcRepStride(srcRep),
          halfBlock(halfBlockIn) {}
};

// Copy (UB -> UB, mask/repeat form): block strides and repeat sizes in 32 B blocks.
struct CopyRepeatParams {
    uint16_t dstStride = 1;
    uint16_t srcStride = 1;
    uint16_t dstRepeatSize = 8;
    uint16_t srcRepeatSize = 8;
    CopyRepeatParams() = default;
    CopyRepeatParams(uint16_t dstStrideIn, uint16_t srcStrideIn, uint16_t dstRepeatSizeIn, uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn),
          srcRepeatSize(srcRepeatSizeIn) {}
};

struct BrcbRepeatParams {
    uint16_t dstBlkStride = 1;
    uint16_t dstRepStride = 8;
    BrcbRepeatParams() = default;
    BrcbRepeatParams(uint16_t dstBlk, uint16_t dstRep) : dstBlkStride(dstBlk), dstRepStride(dstRep) {}
};

}  // namespace AscendC
