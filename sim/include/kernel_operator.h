// kernel_operator.h - entry header of the autofuse Ascend C CPU simulator.
//
// Same include name as the real Ascend C header, so generated kernels compile
// unchanged with `g++ -std=c++20 -I<repo>/sim/include`.  It provides the
// A2/A3 (arch 2201) vector-kernel subset of namespace AscendC described in
// /work/shared/reference/ascendc_api.md, with hardware-rule checking, plus the
// host launcher in namespace ascendc_sim.  See sim/README.md.
#pragma once

#include "ascendc_sim/float16.h"
#include "ascendc_sim/types.h"
#include "ascendc_sim/state.h"
#include "ascendc_sim/tensor.h"
#include "ascendc_sim/pipe.h"
#include "ascendc_sim/sync.h"
#include "ascendc_sim/data_copy.h"
#include "ascendc_sim/vec_common.h"
#include "ascendc_sim/vec_elementwise.h"
#include "ascendc_sim/vec_cast.h"
#include "ascendc_sim/vec_cmpsel.h"
#include "ascendc_sim/vec_reduce.h"
#include "ascendc_sim/vec_transpose.h"
#include "ascendc_sim/adv_math.h"
#include "ascendc_sim/launcher.h"
