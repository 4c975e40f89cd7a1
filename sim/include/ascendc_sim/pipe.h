// ascendc_sim/pipe.h - TPipe, TQue/TQueBind and TBuf (fact sheet 2.4 - 2.6).
//
// TPipe is a bump allocator over the current block's UB in 32 B units, limited
// to the chip profile's usable UB, to 64 buffers in total and to 8 queue buffers
// per TPosition (each queue buffer consumes one of the 8 hardware event ids).
//
// A queue owns `num` equal blocks and tracks each block's state through the
// protocol AllocTensor -> EnQue -> DeQue -> FreeTensor; EnQue beyond the depth,
// DeQue on an empty queue, AllocTensor with no free block, freeing a tensor that
// did not come from the queue and double frees are violations (on hardware they
// hang or corrupt the automatic synchronisation).  The hardware pipelining that
// this protocol synchronises is not modelled: every API completes immediately,
// in program order.
#pragma once

#include <deque>

#include "tensor.h"

namespace AscendC {
class TPipe;
}

namespace ascendc_sim::detail {

inline uint64_t next_pipe_generation() {
    static uint64_t g = 0;
    return ++g;
}

// Untyped part of a TQue/TQueBind.
struct QueueCore {
    enum class BlockState : uint8_t { Free, Allocated, Enqueued, Dequeued };
    struct Block {
        uint32_t addr;
        BlockState state;
    };

    AscendC::TPipe* pipe = nullptr;  // the pipe that initialised us
    uint64_t generation = 0;         // the pipe's generation at InitBuffer (Reset invalidates)
    uint32_t len = 0;                // bytes per block (rounded up to 32)
    std::vector<Block> blocks;
    std::deque<size_t> fifo;  // enqueued block indices, oldest first
    size_t cursor = 0;        // next block AllocTensor tries first (round robin, like the hardware ring)
    AscendC::TPosition pos = AscendC::TPosition::VECIN;
    int32_t depth = 1;
    // The pipes the queue's automatic flags connect: who fills a buffer (MTE2
    // for VECIN, else V) and who consumes it (MTE3 for VECOUT, else V).
    PipeId producer = PipeId::V;
    PipeId consumer = PipeId::V;

    PipeTracker::SyncKey sync_key(uint32_t addr, bool freed) const {
        return {reinterpret_cast<uintptr_t>(this), (static_cast<uint64_t>(addr) << 1) | (freed ? 1u : 0u)};
    }

    void check_live(const char* api, const std::source_location& loc) const;

    size_t find_block(const char* api, const LocalMeta& m, const std::source_location& loc) const {
        check_local_usable(api, m, "tensor", loc);
        for (size_t i = 0; i < blocks.size(); ++i)
            if (blocks[i].addr == m.addr) return i;
        violation(api,
                  fmt("tensor (UB address %u) was not allocated from this queue (pass the tensor returned by "
                      "AllocTensor/DeQue of the same queue, not a view of it)",
                      m.addr),
                  loc);
    }

    uint32_t alloc(const std::source_location& loc) {
        check_live("AllocTensor", loc);
        for (size_t k = 0; k < blocks.size(); ++k) {
            size_t i = (cursor + k) % blocks.size();
            if (blocks[i].state == BlockState::Free) {
                blocks[i].state = BlockState::Allocated;
                cursor = (i + 1) % blocks.size();
                flush_call();
                if (tracking_pipes()) st().pipes->take(sync_key(blocks[i].addr, true), producer);
                return blocks[i].addr;
            }
        }
        violation("AllocTensor",
                  fmt("no free buffer: all %zu buffers of this queue are in use (missing FreeTensor?); the device "
                      "would wait forever",
                      blocks.size()),
                  loc);
    }

    void enque(const LocalMeta& m, const std::source_location& loc) {
        check_live("EnQue", loc);
        size_t i = find_block("EnQue", m, loc);
        switch (blocks[i].state) {
        case BlockState::Free: violation("EnQue", "tensor was already freed (FreeTensor before EnQue)", loc);
        case BlockState::Enqueued: violation("EnQue", "tensor is already in the queue (EnQue twice)", loc);
        default: break;
        }
        int32_t cap = depth < 1 ? 1 : depth;
        if (static_cast<int32_t>(fifo.size()) >= cap)
            violation("EnQue",
                      fmt("queue is full: depth %d and %zu tensors already enqueued without DeQue", depth, fifo.size()),
                      loc);
        blocks[i].state = BlockState::Enqueued;
        fifo.push_back(i);
        flush_call();
        if (tracking_pipes()) st().pipes->stash(sync_key(blocks[i].addr, false), producer);
    }

    uint32_t deque(const std::source_location& loc) {
        check_live("DeQue", loc);
        if (fifo.empty()) violation("DeQue", "queue is empty (DeQue without a matching EnQue)", loc);
        size_t i = fifo.front();
        fifo.pop_front();
        blocks[i].state = BlockState::Dequeued;
        flush_call();
        if (tracking_pipes()) st().pipes->take(sync_key(blocks[i].addr, false), consumer);
        return blocks[i].addr;
    }

    void free(const LocalMeta& m, const std::source_location& loc) {
        check_live("FreeTensor", loc);
        size_t i = find_block("FreeTensor", m, loc);
        if (blocks[i].state == BlockState::Free)
            violation("FreeTensor", fmt("double free: buffer %zu of this queue is already free", i), loc);
        if (blocks[i].state == BlockState::Enqueued)
            violation("FreeTensor", "tensor is still enqueued (DeQue it before FreeTensor)", loc);
        blocks[i].state = BlockState::Free;
        flush_call();
        if (tracking_pipes()) st().pipes->stash(sync_key(blocks[i].addr, true), consumer);
    }

    size_t count(BlockState s) const {
        size_t n = 0;
        for (const Block& b : blocks) n += b.state == s;
        return n;
    }
};

// Untyped part of a TBuf.
struct BufCore {
    AscendC::TPipe* pipe = nullptr;
    uint64_t generation = 0;
    uint32_t addr = 0;
    uint32_t len = 0;  // bytes (rounded up to 32)
    AscendC::TPosition pos = AscendC::TPosition::VECCALC;

    void check_live(const char* api, const std::source_location& loc) const;
};

}  // namespace ascendc_sim::detail

namespace AscendC {

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
public:
    static constexpr bool kSimIsTBuf = false;

    TQueBind() {
        core_.pos = ascendc_sim::detail::is_ub_position(src) ? src : dst;
        core_.depth = depth;
        core_.producer = src == TPosition::VECIN ? ascendc_sim::PipeId::MTE2 : ascendc_sim::PipeId::V;
        core_.consumer = dst == TPosition::VECOUT ? ascendc_sim::PipeId::MTE3 : ascendc_sim::PipeId::V;
    }

    template <typename T>
    LocalTensor<T> AllocTensor(std::source_location loc = std::source_location::current()) {
        uint32_t addr = core_.alloc(loc);
        return make<T>(addr);
    }

    template <typename T>
    bool EnQue(const LocalTensor<T>& tensor, std::source_location loc = std::source_location::current()) {
        core_.enque(tensor.meta_, loc);
        return true;
    }

    template <typename T>
    LocalTensor<T> DeQue(std::source_location loc = std::source_location::current()) {
        uint32_t addr = core_.deque(loc);
        return make<T>(addr);
    }

    template <typename T>
    void FreeTensor(const LocalTensor<T>& tensor, std::source_location loc = std::source_location::current()) {
        core_.free(tensor.meta_, loc);
    }

    bool VacantInQue() const { return static_cast<int32_t>(core_.fifo.size()) < (depth < 1 ? 1 : depth); }
    bool HasTensorInQue() const { return !core_.fifo.empty(); }
    int32_t GetTensorCountInQue() const { return static_cast<int32_t>(core_.fifo.size()); }
    bool HasIdleBuffer() const { return core_.count(ascendc_sim::detail::QueueCore::BlockState::Free) > 0; }
    void FreeAllEvent() {}

    // ---- simulator internals ----
    ascendc_sim::detail::QueueCore core_;

private:
    template <typename T>
    LocalTensor<T> make(uint32_t addr) const {
        LocalTensor<T> t;
        t.meta_.addr = addr;
        t.meta_.limit = addr + core_.len;
        t.meta_.size = core_.len / static_cast<uint32_t>(sizeof(T));
        t.meta_.pos = core_.pos;
        t.meta_.valid = true;
        return t;
    }
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {};

template <TPosition pos = TPosition::VECCALC>
class TBuf {
public:
    static constexpr bool kSimIsTBuf = true;

    TBuf() { core_.pos = pos; }

    // Whole buffer.  Repeated Get returns the same start address.
    template <typename T>
    LocalTensor<T> Get(std::source_location loc = std::source_location::current()) {
        core_.check_live("TBuf::Get", loc);
        return make<T>(0, core_.len / static_cast<uint32_t>(sizeof(T)));
    }

    // First `len` elements.
    template <typename T>
    LocalTensor<T> Get(uint32_t len, std::source_location loc = std::source_location::current()) {
        core_.check_live("TBuf::Get", loc);
        if (static_cast<uint64_t>(len) * sizeof(T) > core_.len)
            ascendc_sim::detail::violation(
                "TBuf::Get",
                ascendc_sim::detail::fmt("%u elements of %s (%llu bytes) exceed the buffer of %u bytes", len,
                                         ascendc_sim::detail::type_name<T>(),
                                         static_cast<unsigned long long>(len * sizeof(T)), core_.len),
                loc);
        return make<T>(0, len);
    }

    // `size` elements starting `bufOffset` bytes (32 B aligned) into the buffer.
    template <typename T>
    LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset,
                                 std::source_location loc = std::source_location::current()) {
        core_.check_live("TBuf::GetWithOffset", loc);
        if (bufOffset % 32 != 0)
            ascendc_sim::detail::violation("TBuf::GetWithOffset",
                                           ascendc_sim::detail::fmt("bufOffset %u is not 32-byte aligned", bufOffset),
                                           loc);
        if (static_cast<uint64_t>(bufOffset) + static_cast<uint64_t>(size) * sizeof(T) > core_.len)
            ascendc_sim::detail::violation(
                "TBuf::GetWithOffset",
                ascendc_sim::detail::fmt("bytes [%u, %llu) exceed the buffer of %u bytes", bufOffset,
                                         static_cast<unsigned long long>(bufOffset + size * sizeof(T)), core_.len),
                loc);
        return make<T>(bufOffset, size);
    }

    // ---- simulator internals ----
    ascendc_sim::detail::BufCore core_;

private:
    template <typename T>
    LocalTensor<T> make(uint32_t offset, uint32_t size) const {
        LocalTensor<T> t;
        t.meta_.addr = core_.addr + offset;
        t.meta_.limit = core_.addr + core_.len;
        t.meta_.size = size;
        t.meta_.pos = core_.pos;
        t.meta_.valid = true;
        return t;
    }
};

class TPipe {
public:
    TPipe(std::source_location loc = std::source_location::current()) {
        auto& s = ascendc_sim::detail::st();
        if (s.active_pipe != nullptr)
            ascendc_sim::detail::violation(
                "TPipe", "a second TPipe was created while another one is alive (one TPipe per kernel)", loc);
        s.active_pipe = this;
        generation_ = ascendc_sim::detail::next_pipe_generation();
    }
    // The vendor's ~TPipe calls Destroy unless it ran, and Destroy ends with
    // pipe_barrier(PIPE_ALL) (kernel_tpipe_impl.h): whatever follows a TPipe's lifetime
    // (the next loop group of a launch, a second TPipe) is ordered after all its pipes.
    ~TPipe() {
        if (!destroyed_) order_all_pipes();
        auto& s = ascendc_sim::detail::st();
        if (s.active_pipe == this) s.active_pipe = nullptr;
    }
    TPipe(const TPipe&) = delete;
    TPipe& operator=(const TPipe&) = delete;

    // `num` blocks of `len` bytes for a queue (num = 2: double buffering).
    template <class Q>
    bool InitBuffer(Q& que, uint8_t num, uint32_t len, std::source_location loc = std::source_location::current()) {
        if constexpr (Q::kSimIsTBuf) {
            if (num != 1)
                ascendc_sim::detail::violation("InitBuffer", "a TBuf has exactly one buffer (num must be 1)", loc);
            return InitBuffer(que, len, loc);
        } else {
            ascendc_sim::detail::QueueCore& q = que.core_;
            check_usable(loc);
            if (q.pipe == this && q.generation == generation_)
                ascendc_sim::detail::violation(
                    "InitBuffer", "InitBuffer called twice for the same queue (TPipe::Reset first to re-plan)", loc);
            if (num == 0 || len == 0)
                ascendc_sim::detail::violation(
                    "InitBuffer", ascendc_sim::detail::fmt("num (%u) and len (%u) must be positive", num, len), loc);
            const auto& p = ascendc_sim::detail::prof();
            if (buffers_ + num > p.max_pipe_buffers)
                ascendc_sim::detail::violation(
                    "InitBuffer",
                    ascendc_sim::detail::fmt("too many buffers in one TPipe: %u > %u", buffers_ + num,
                                             p.max_pipe_buffers),
                    loc);
            uint32_t& per_pos = pos_buffers_[static_cast<size_t>(q.pos)];
            if (per_pos + num > p.max_queue_buffers_per_position)
                ascendc_sim::detail::violation(
                    "InitBuffer",
                    ascendc_sim::detail::fmt("too many queue buffers in TPosition %s: %u > %u (max buffer number in "
                                             "same queue position is %u; each needs a hardware event id)",
                                             ascendc_sim::detail::pos_name(q.pos), per_pos + num,
                                             p.max_queue_buffers_per_position, p.max_queue_buffers_per_position),
                    loc);
            uint32_t blen = ascendc_sim::detail::round_up(len, 32);
            uint32_t base = allocate(static_cast<uint64_t>(blen) * num, loc);
            buffers_ += num;
            per_pos += num;
            q.pipe = this;
            q.generation = generation_;
            q.len = blen;
            q.blocks.clear();
            q.fifo.clear();
            q.cursor = 0;
            for (uint32_t i = 0; i < num; ++i)
                q.blocks.push_back({base + i * blen, ascendc_sim::detail::QueueCore::BlockState::Free});
            note_peak();
            return true;
        }
    }

    // One block of `len` bytes for a TBuf.
    template <TPosition bufPos>
    bool InitBuffer(TBuf<bufPos>& buf, uint32_t len, std::source_location loc = std::source_location::current()) {
        ascendc_sim::detail::BufCore& b = buf.core_;
        check_usable(loc);
        if (b.pipe == this && b.generation == generation_)
            ascendc_sim::detail::violation(
                "InitBuffer", "InitBuffer called twice for the same TBuf (TPipe::Reset first to re-plan)", loc);
        if (len == 0) ascendc_sim::detail::violation("InitBuffer", "len must be positive", loc);
        const auto& p = ascendc_sim::detail::prof();
        if (buffers_ + 1 > p.max_pipe_buffers)
            ascendc_sim::detail::violation(
                "InitBuffer",
                ascendc_sim::detail::fmt("too many buffers in one TPipe: %u > %u", buffers_ + 1, p.max_pipe_buffers),
                loc);
        uint32_t blen = ascendc_sim::detail::round_up(len, 32);
        b.addr = allocate(blen, loc);
        b.len = blen;
        b.pipe = this;
        b.generation = generation_;
        buffers_ += 1;
        note_peak();
        return true;
    }

    // Release every buffer; queues/TBufs must be InitBuffer'd again.
    void Reset() {
        used_ = 0;
        buffers_ = 0;
        pos_buffers_.fill(0);
        event_alloc_.fill(0);
        generation_ = ascendc_sim::detail::next_pipe_generation();
    }

    void Destroy() {
        Reset();
        if (!destroyed_) order_all_pipes();
        destroyed_ = true;
        auto& s = ascendc_sim::detail::st();
        if (s.active_pipe == this) s.active_pipe = nullptr;
    }

    template <HardEvent evt>
    TEventID FetchEventID() {
        return FetchEventID(evt);
    }
    TEventID FetchEventID(HardEvent evt) {
        uint32_t used = event_alloc_[static_cast<size_t>(evt)] | ascendc_sim::detail::st().flags[static_cast<size_t>(evt)];
        for (uint32_t i = 0; i < ascendc_sim::detail::prof().event_ids; ++i)
            if (!(used & (1u << i))) return static_cast<TEventID>(i);
        return 0;
    }
    template <HardEvent evt>
    TEventID AllocEventID(std::source_location loc = std::source_location::current()) {
        uint32_t& m = event_alloc_[static_cast<size_t>(evt)];
        for (uint32_t i = 0; i < ascendc_sim::detail::prof().event_ids; ++i)
            if (!(m & (1u << i))) {
                m |= 1u << i;
                return static_cast<TEventID>(i);
            }
        ascendc_sim::detail::violation("AllocEventID", "all event ids of this HardEvent are allocated", loc);
    }
    template <HardEvent evt>
    void ReleaseEventID(TEventID id) {
        if (id >= 0 && id < 32) event_alloc_[static_cast<size_t>(evt)] &= ~(1u << id);
    }

    // ---- simulator internals ----
    uint64_t generation_ = 0;
    bool destroyed_ = false;
    uint32_t used_ = 0;     // bytes allocated from UB address 0
    uint32_t buffers_ = 0;  // TQue blocks + TBufs
    std::array<uint32_t, static_cast<size_t>(TPosition::MAX) + 1> pos_buffers_{};
    std::array<uint32_t, static_cast<size_t>(HardEvent::MAX)> event_alloc_{};

private:
    static void order_all_pipes() {
        namespace d = ascendc_sim::detail;
        d::flush_call();
        if (d::tracking_pipes()) d::st().pipes->barrier_all();
    }
    void check_usable(const std::source_location& loc) const {
        if (destroyed_) ascendc_sim::detail::violation("InitBuffer", "TPipe was destroyed", loc);
    }
    uint32_t allocate(uint64_t bytes, const std::source_location& loc) {
        const auto& p = ascendc_sim::detail::prof();
        if (used_ + bytes > p.ub_bytes_usable)
            ascendc_sim::detail::violation(
                "InitBuffer",
                ascendc_sim::detail::fmt("UB overflow: %llu bytes requested with %u already allocated gives %llu "
                                         "bytes, more than the %u usable UB bytes of %s",
                                         static_cast<unsigned long long>(bytes), used_,
                                         static_cast<unsigned long long>(used_ + bytes), p.ub_bytes_usable, p.name),
                loc);
        uint32_t base = used_;
        used_ += static_cast<uint32_t>(bytes);
        return base;
    }
    void note_peak() const {
        auto& s = ascendc_sim::detail::st();
        s.ub_peak = std::max(s.ub_peak, used_);
        s.pipe_buffers_peak = std::max(s.pipe_buffers_peak, buffers_);
    }
};

inline TPipe* GetTPipePtr() { return static_cast<TPipe*>(ascendc_sim::detail::st().active_pipe); }

}  // namespace AscendC

namespace ascendc_sim::detail {

inline void QueueCore::check_live(const char* api, const std::source_location& loc) const {
    if (pipe == nullptr) violation(api, "queue was never initialised with TPipe::InitBuffer", loc);
    if (st().active_pipe != pipe || pipe->generation_ != generation)
        violation(api, "queue's TPipe was reset or destroyed since InitBuffer", loc);
}

inline void BufCore::check_live(const char* api, const std::source_location& loc) const {
    if (pipe == nullptr) violation(api, "TBuf was never initialised with TPipe::InitBuffer", loc);
    if (st().active_pipe != pipe || pipe->generation_ != generation)
        violation(api, "TBuf's TPipe was reset or destroyed since InitBuffer", loc);
}

}  // namespace ascendc_sim::detail
