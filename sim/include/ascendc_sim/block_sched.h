// ascendc_sim/block_sched.h - the blocks of a launch as coroutines, for SyncAll.
//
// Shared by both models of Ascend C (sim/include's launcher and sim/vendor's), so it
// is C++17 and depends on nothing else.  Every block runs on a coroutine of its own
// (POSIX ucontext, an 8 MiB MAP_NORESERVE stack with a guard page, unmapped when
// the launch ends).  A block that returns without reaching a barrier costs a switch
// in and out and nothing else: its stack goes back to a pool for the next block, so
// a launch without SyncAll maps one stack and runs its blocks one after the other,
// exactly as before.  A violation inside a block exits the process from the block's
// stack as it would from the main one; an exception escaping the kernel is rethrown
// by Scheduler::run.
//
// A block that reaches a barrier (`Scheduler::active()->barrier()`, from SyncAll)
// switches back to the scheduler, which saves the block's per-core state through the
// launcher's hooks and starts the next block.  When every block has either reached the
// barrier or returned, the waiting blocks resume in block order, each with its state
// restored first (and saved again at its next barrier).  GM is host memory shared by
// all blocks, so writes before a barrier are visible to every block after it.
//
// The device deadlocks when one block returns while others wait at a barrier (or the
// blocks reach a different number of barriers); the scheduler reports that through
// BlockHooks::deadlock as soon as it is certain: when a block returns while another
// waits, or reaches a barrier when another has returned.
#pragma once

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <vector>

namespace ascendc_sim {
namespace coop {

// What a launcher provides: the per-block state and the kernel call.
class BlockHooks {
public:
    virtual void start(uint32_t block) = 0;    // fresh per-core state for a block about to start
    virtual void body() = 0;                   // runs the kernel for the current block
    virtual void finish(uint32_t block) = 0;   // the block returned: collect its statistics
    virtual void save(uint32_t block) = 0;     // the block waits at a barrier: keep its state
    virtual void restore(uint32_t block) = 0;  // the block resumes: install its state again
    // Block `waiting` waits at its barrier number `barrier` (1-based) and block `returned`
    // has returned after `calls` barriers: the device would hang.  Must not return.
    [[noreturn]] virtual void deadlock(uint32_t waiting, uint32_t barrier, uint32_t returned, uint32_t calls) = 0;

protected:
    ~BlockHooks() = default;
};

class Scheduler {
public:
    static constexpr size_t kStackBytes = size_t(8) << 20;

    // `who` prefixes the message if a stack cannot be mapped ("ascendc-sim", "af-isa").
    Scheduler(uint32_t blocks, BlockHooks& hooks, const char* who)
        : hooks_(hooks), who_(who), blocks_(blocks) {}
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;
    ~Scheduler() {
        if (slot() == this) slot() = outer_;
        for (const auto& c : coroutines_) munmap(c->stack, kStackBytes);
    }

    // The scheduler of the launch in progress on this thread, or null.
    static Scheduler* active() { return slot(); }

    uint32_t current_block() const { return cur_; }
    uint32_t blocks() const { return static_cast<uint32_t>(blocks_.size()); }

    // Runs every block to completion (or until a hook reports a violation).  An
    // exception escaping the kernel is rethrown here, after its block stopped.
    void run() {
        outer_ = slot();
        slot() = this;
        for (uint32_t b = 0; b < blocks(); ++b) {
            hooks_.start(b);
            Block& k = blocks_[b];
            k.co = take_coroutine();
            getcontext(&k.co->ctx);
            k.co->ctx.uc_stack.ss_sp = k.co->stack;
            k.co->ctx.uc_stack.ss_size = kStackBytes;
            k.co->ctx.uc_link = &main_;
            makecontext(&k.co->ctx, &Scheduler::entry, 0);
            resume(b);
        }
        // Every block has reached the barrier or returned (otherwise a deadlock was
        // reported): release them all, then resume them in block order.
        while (waiting_ != 0) {
            for (Block& k : blocks_)
                if (k.state == State::Waiting) k.state = State::Released;
            waiting_ = 0;
            for (uint32_t b = 0; b < blocks(); ++b) {
                if (blocks_[b].state != State::Released) continue;
                hooks_.restore(b);
                resume(b);
            }
        }
        slot() = outer_;
    }

    // Called on the current block's coroutine: wait until every block has reached
    // this barrier.
    void barrier() {
        Block& k = blocks_[cur_];
        ++k.calls;
        k.state = State::Waiting;
        ++waiting_;
        swapcontext(&k.co->ctx, &main_);
    }

private:
    // Fresh: not started; Waiting: at a barrier of the current round; Released: past
    // the barrier of the previous round, not resumed yet; Done: returned.
    enum class State : uint8_t { Fresh, Running, Waiting, Released, Done };
    // A coroutine: context and stack, reused by the next block once its block returned.
    struct Coroutine {
        ucontext_t ctx;
        void* stack = nullptr;
    };
    struct Block {
        Coroutine* co = nullptr;
        State state = State::Fresh;
        uint32_t calls = 0;  // barriers reached
    };

    static Scheduler*& slot() {
        static thread_local Scheduler* s = nullptr;
        return s;
    }

    static void entry() {
        Scheduler* s = slot();
        try {
            s->hooks_.body();
        } catch (...) {
            s->exc_ = std::current_exception();
        }
        s->blocks_[s->cur_].state = State::Done;
        setcontext(&s->main_);
    }

    void resume(uint32_t b) {
        cur_ = b;
        Block& k = blocks_[b];
        k.state = State::Running;
        swapcontext(&main_, &k.co->ctx);
        if (exc_) {
            std::exception_ptr e = exc_;
            exc_ = nullptr;
            slot() = outer_;
            std::rethrow_exception(e);
        }
        if (k.state == State::Done) {
            free_.push_back(k.co);
            k.co = nullptr;
            ++done_;
            hooks_.finish(b);
            if (waiting_ != 0)
                for (uint32_t w = 0; w < blocks(); ++w)
                    if (blocks_[w].state == State::Waiting) hooks_.deadlock(w, blocks_[w].calls, b, k.calls);
        } else {
            hooks_.save(b);
            // Blocks that returned did so in this round (one from an earlier round
            // would have been reported at the barrier that ended that round).
            if (done_ != 0)
                for (uint32_t f = 0; f < blocks(); ++f)
                    if (blocks_[f].state == State::Done) hooks_.deadlock(b, k.calls, f, blocks_[f].calls);
        }
    }

    // A coroutine from the pool, or a new one on a fresh mapping whose lowest page is
    // a guard.
    Coroutine* take_coroutine() {
        if (!free_.empty()) {
            Coroutine* c = free_.back();
            free_.pop_back();
            return c;
        }
        void* p = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                       -1, 0);
        if (p == MAP_FAILED) {
            std::fflush(stdout);
            std::fprintf(stderr, "%s: error: cannot map a %zu-byte stack for the coroutine of a block\n", who_,
                         kStackBytes);
            std::exit(3);
        }
        const long page = sysconf(_SC_PAGESIZE);
        mprotect(p, static_cast<size_t>(page > 0 ? page : 4096), PROT_NONE);
        coroutines_.emplace_back(new Coroutine);
        coroutines_.back()->stack = p;
        return coroutines_.back().get();
    }

    BlockHooks& hooks_;
    const char* who_;
    std::vector<Block> blocks_;
    std::vector<std::unique_ptr<Coroutine>> coroutines_;  // every one, unmapped by the destructor
    std::vector<Coroutine*> free_;                        // those of blocks that returned
    ucontext_t main_{};
    uint32_t cur_ = 0;
    uint32_t waiting_ = 0;  // blocks waiting at a barrier
    uint32_t done_ = 0;     // blocks that returned
    std::exception_ptr exc_;
    Scheduler* outer_ = nullptr;
};

}  // namespace coop
}  // namespace ascendc_sim
