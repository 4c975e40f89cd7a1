// stub_def.h - what the bisheng compiler's builtin headers and tikicpulib's stub_def.h
// provide to the vendor Ascend C headers in CPU-debug mode (ASCENDC_CPU_DEBUG=1),
// written for autofuse from the fact sheet (ascendc_api.md section 7) and from the
// names the vendor headers use.  Nothing here is vendor code.
//
// CPU mode makes the address-space qualifiers empty (section 7.2), so one host pointer
// type stands for GM and UB alike; the ISA model (stub_fun.h) tells UB from GM by
// address range.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#define __aicore__
#define __global__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __sync_alias__
#define __check_sync_alias__
#define __in_pipe__(...)
#define __out_pipe__(...)
#define __inout_pipe__(...)
// The simulated cores run one at a time in one process (tikicpulib forks one process
// per core); state that must not leak from one block to the next is reset by the
// launcher, so block-local storage is plain storage.  While a block waits at SyncAll
// the launcher saves the block-local globals the vector path uses (af_vendor_launch.h).
#define __BLOCK_LOCAL__
#define __WORKGROUP_LOCAL__

// half and bfloat16_t are classes in CPU mode (fact sheet 7.2: float16::Fp16T,
// bfloat16::Bf16T).  autofuse's own exact binary16/bfloat16 model is reused so that
// both paths round identically when they convert scalars (af_isa/fp16.h).
#include "af_isa/fp16.h"

// Pipes and events of the ISA (fact sheet 5 and 9.1).
enum pipe_t : uint8_t {
    PIPE_S = 0,
    PIPE_V,
    PIPE_M,
    PIPE_MTE1,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_ALL,
    PIPE_MTE4,
    PIPE_MTE5,
    PIPE_V2,
    PIPE_FIX,
    PIPE_NUM_ISA,
};

enum event_t : uint8_t {
    EVENT_ID0 = 0,
    EVENT_ID1,
    EVENT_ID2,
    EVENT_ID3,
    EVENT_ID4,
    EVENT_ID5,
    EVENT_ID6,
    EVENT_ID7,
};

// Core identity registers, set by the launcher before each block (one translation
// unit holds the kernels and their driver, so these are inline definitions).
inline int64_t block_idx = 0;
inline int64_t block_num = 1;
inline int64_t sub_block_idx = 0;
inline int32_t g_coreType = 2;  // AscendC::AIV: a vector core of dav_c220
inline uint64_t g_tilingKey = 0;

namespace AscendC {
// Values of g_coreType as the log helpers compare them.
constexpr int32_t AIC_TYPE = 1;
constexpr int32_t AIV_TYPE = 2;
}  // namespace AscendC

inline int64_t g_taskRation = 2;         // vector cores per AI core on dav_c220
inline uint64_t g_fixpipeNdNzParam = 0;  // a cube-only register, never read by vector kernels

// Operand enums of the ISA as the vendor headers cast to them.  Their numeric values
// only travel from one vendor call into one intrinsic of this model.
enum mem_t : uint8_t { MEM_L0A = 0, MEM_L0B, MEM_L0C, MEM_UB, MEM_L1, MEM_BIAS };
enum mem_dsb_t : uint8_t { DSB_ALL = 0, DSB_DDR, DSB_UB, DSB_SEQ };
enum class pad_t : uint8_t { PAD_NONE = 0, PAD_MODE1, PAD_MODE2, PAD_MODE3, PAD_MODE4, PAD_MODE5, PAD_MODE6, PAD_MODE7, PAD_MODE8 };
enum class QuantMode_t : uint8_t { NoQuant = 0, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8 };
enum class Order_t : uint8_t { VALUE_INDEX = 0, INDEX_VALUE, ONLY_VALUE, ONLY_INDEX };
enum atomic_type_t : uint8_t { ATOMIC_NONE_T = 0, ATOMIC_F32_T, ATOMIC_F16_T, ATOMIC_S16_T, ATOMIC_S32_T, ATOMIC_S8_T, ATOMIC_BF16_T };
enum atomic_op_t : uint8_t { ATOMIC_SUM_T = 0, ATOMIC_MAX_T, ATOMIC_MIN_T };
enum class cache_line_t : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class dcci_dst_t : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
enum addr_cal_mode_t : uint8_t { inc = 0, dec = 1 };
// Address registers of vnchwconv / vld_va_reg and their halves.
enum ub_addr8_t : uint8_t { VA0 = 0, VA1, VA2, VA3, VA4, VA5, VA6, VA7 };
enum vpart_t : uint8_t { L128 = 0, H128 = 1 };
