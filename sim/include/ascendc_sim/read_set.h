// ascendc_sim/read_set.h - distinct GM bytes one block reads.
//
// Every core must fetch each GM byte it uses at least once (a table every block reads
// is copied once per block, through L2 on the chip); bytes it fetches again are what a
// better schedule could save. The launchers of both models (sim/include and
// sim/vendor) record every GM read span of a block here and sum the distinct bytes of
// each block: the per-core minimum of that launch's block split. In a launch of several
// loop groups each group counts apart (`close_group`).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ascendc_sim {

class ReadSet {
public:
    void add(uintptr_t begin, uint64_t bytes) {
        if (bytes != 0) spans_.emplace_back(begin, begin + bytes);
    }

    // The distinct bytes recorded since the last call (the groups closed since then each
    // counted apart); forgets them.
    uint64_t take() {
        const uint64_t total = closed_ + distinct();
        closed_ = 0;
        return total;
    }

    // One loop group of a launch ends (af::EndLoopGroup): each group is a fused kernel of
    // its own, so the bytes it read count once for it, whatever later groups read again.
    void close_group() { closed_ += distinct(); }

private:
    uint64_t distinct() {
        std::sort(spans_.begin(), spans_.end());
        uint64_t total = 0;
        uintptr_t covered = 0;  // end of the union so far
        for (const auto& [begin, end] : spans_) {
            const uintptr_t from = std::max(begin, covered);
            if (end > from) total += end - from;
            covered = std::max(covered, end);
        }
        spans_.clear();
        return total;
    }

    std::vector<std::pair<uintptr_t, uintptr_t>> spans_;
    uint64_t closed_ = 0;
};

}  // namespace ascendc_sim
