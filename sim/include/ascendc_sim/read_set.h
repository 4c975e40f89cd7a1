// ascendc_sim/read_set.h - distinct GM bytes one block reads.
//
// Every core must fetch each GM byte it uses at least once (a table every block reads
// is copied once per block, through L2 on the chip); bytes it fetches again are what a
// better schedule could save. The launchers of both models (sim/include and
// sim/vendor) record every GM read span of a block here and sum the distinct bytes of
// each block: the per-core minimum of that launch's block split.
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

    // The distinct bytes recorded since the last call; forgets them.
    uint64_t take() {
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

private:
    std::vector<std::pair<uintptr_t, uintptr_t>> spans_;
};

}  // namespace ascendc_sim
