// af_isa/hooks.h - the buffer and queue hooks the vendor's TPipe/TQue/TBuf call in
// CPU-debug mode (kernel_tpipe_impl.h, kernel_tquebind_impl.h, kernel_tbuf_impl.h),
// which tikicpulib implements.  Written for autofuse: what they check is what the
// fact sheet (7.3, 9.2) says CPU mode checks - buffers inside UB and within the usable
// size, no two buffers overlapping, and a buffer's life in the order AllocTensor ->
// EnQue -> DeQue -> FreeTensor (DeQue of a buffer nobody enqueued is the classic
// CPU-mode failure).
#pragma once

#include <cstdint>
#include <map>

#include "isa.h"

namespace af_isa {

enum class BufState : uint8_t { Free, Allocated, Enqueued, Dequeued };

struct Buffer {
    uint64_t len;
    bool tbuf;  // TBuf (Get) rather than a queue buffer (Alloc/EnQue/DeQue/Free)
    BufState state;
};

struct Buffers {
    std::map<uint64_t, Buffer> by_addr;  // absolute address -> buffer
    uint64_t ub_limit = 0;               // usable UB bytes (the launcher sets it)
    uint64_t peak = 0;                   // highest UB offset any buffer reached
    void reset() {
        by_addr.clear();
        peak = 0;
    }
};
inline Buffers& buffers() {
    static Buffers b;
    return b;
}

constexpr uint8_t kHardwareUb = 1;  // Hardware::UB in kernel_event.h

inline Buffer& buffer_at(uint64_t addr, const char* hook) {
    auto it = buffers().by_addr.find(addr);
    if (it == buffers().by_addr.end()) fail(hook, "no buffer of InitBuffer starts at this address");
    return it->second;
}

}  // namespace af_isa

// AscendCBufAbsAddr(hardware, base, len): the host array standing for one on-chip
// buffer; the UB one bounds every vector and copy operand.  TPipe's constructor calls
// it, and a new TPipe allocates UB afresh, so the buffers of an earlier one are gone.
template <class H, class A, class L>
inline int64_t AscendCBufAbsAddr(H hw, A base, L len) {
    if (static_cast<uint8_t>(hw) == af_isa::kHardwareUb) {
        af_isa::core().ub = reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(base));
        af_isa::core().ub_len = static_cast<uint64_t>(len);
        af_isa::buffers().by_addr.clear();
    }
    return 0;
}

// AscendCBufInit(position, isTBuf, num, addr, len): num buffers of len bytes from addr.
template <class P, class K, class N, class A, class L>
inline void AscendCBufInit(P, K kind, N num, A addr, L len) {
    af_isa::Core& c = af_isa::core();
    af_isa::Buffers& b = af_isa::buffers();
    const uint64_t a = static_cast<uint64_t>(addr), n = static_cast<uint64_t>(num), l = static_cast<uint64_t>(len);
    if (c.ub != nullptr) {
        const uint64_t base = reinterpret_cast<uintptr_t>(c.ub);
        if (a < base || a + n * l > base + c.ub_len) af_isa::fail("InitBuffer", "buffer outside the unified buffer");
        const uint64_t end = a + n * l - base;
        if (b.ub_limit != 0 && end > b.ub_limit) {
            char msg[160];
            std::snprintf(msg, sizeof msg, "buffers end at UB byte %llu, beyond the usable %llu bytes",
                          static_cast<unsigned long long>(end), static_cast<unsigned long long>(b.ub_limit));
            af_isa::fail("InitBuffer", msg);
        }
        b.peak = std::max(b.peak, end);
    }
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t start = a + i * l;
        for (const auto& [other, buf] : b.by_addr)
            if (start < other + buf.len && other < start + l) af_isa::fail("InitBuffer", "two buffers overlap");
        b.by_addr[start] = af_isa::Buffer{l, static_cast<int>(kind) != 0, af_isa::BufState::Free};
    }
}

// AscendCQueCreate(src, dst, depth): a queue; buffer order is tracked per buffer
// (the hooks below), so the queue itself holds no state here.  (The vendor also
// creates queues of depth 0 internally.)
template <class S, class D, class N>
inline int64_t AscendCQueCreate(S, D, N) {
    return 0;
}

template <class H, class P, class A, class L>
inline void AscendCBufAlloc(H, P, A addr, L) {
    af_isa::Buffer& b = af_isa::buffer_at(static_cast<uint64_t>(addr), "AllocTensor");
    if (b.state != af_isa::BufState::Free) af_isa::fail("AllocTensor", "the buffer is still in use");
    b.state = af_isa::BufState::Allocated;
}
template <class S, class D, class P, class A>
inline void AscendCBufEnque(S, D, P, A addr) {
    af_isa::Buffer& b = af_isa::buffer_at(static_cast<uint64_t>(addr), "EnQue");
    if (b.state != af_isa::BufState::Allocated) af_isa::fail("EnQue", "EnQue of a tensor that was not allocated");
    b.state = af_isa::BufState::Enqueued;
}
template <class S, class D, class P, class A>
inline void AscendCBufDeque(S, D, P, A addr) {
    af_isa::Buffer& b = af_isa::buffer_at(static_cast<uint64_t>(addr), "DeQue");
    if (b.state != af_isa::BufState::Enqueued) af_isa::fail("DeQue", "DeQue of a tensor that was not enqueued");
    b.state = af_isa::BufState::Dequeued;
}
template <class H, class P, class A, class L>
inline void AscendCBufFree(H, P, A addr, L) {
    af_isa::Buffer& b = af_isa::buffer_at(static_cast<uint64_t>(addr), "FreeTensor");
    if (b.state == af_isa::BufState::Free) af_isa::fail("FreeTensor", "FreeTensor of a tensor that is not allocated");
    b.state = af_isa::BufState::Free;
}

// AscendCBufGet(position, hardware, addr, len): TBuf::Get of len bytes.
template <class P, class H, class A, class L>
inline int64_t AscendCBufGet(P, H, A addr, L len) {
    const af_isa::Buffer& b = af_isa::buffer_at(static_cast<uint64_t>(addr), "TBuf::Get");
    if (static_cast<uint64_t>(len) > b.len) af_isa::fail("TBuf::Get", "more bytes than the buffer holds");
    return 0;
}

// TBufPool hooks: autofuse allocates no TBufPool, so no pool status exists to update
// (the vendor calls these only when a buffer belongs to a pool).
template <class... A>
inline void AscendCUpdateTbufPoolStatus(A...) {}
template <class... A>
inline void AscendCTBufPoolResetCheck(A...) {}
