// The block sizes a job issues, per direction: one fixed size (bs), or fio's bssplit, a table
// of sizes and shares drawn from for every I/O.
#pragma once

#include <cstdint>
#include <vector>

#include "plan.h"
#include "rng.h"

namespace vb {

class BlockSizes {
 public:
  void Init(const JobPlan& plan, const bool dir_used[kDirs]) {
    for (int d = 0; d < kDirs; d++) {
      table_[d] = plan.bs[d];
      const auto& table = table_[d];
      if (table.size() == 1) {
        fixed_[d] = table[0].bs;
      } else if (!table.empty()) {
        // One entry per percent, so that a draw in [0, 100) picks a size with its share.
        for (const BsEntry& e : table)
          for (uint32_t k = 0; k < e.pct && pick_[d].size() < 100; k++) pick_[d].push_back(e.bs);
        while (pick_[d].size() < 100) pick_[d].push_back(table.back().bs);
      }
      if (!dir_used[d]) continue;
      for (const BsEntry& e : table) smallest_ = smallest_ == 0 || e.bs < smallest_ ? e.bs : smallest_;
    }
  }

  // Direction d's one size, or 0 when it draws from a table.
  uint32_t fixed(int d) const { return fixed_[d]; }
  uint32_t Pick(int d, Rng& rng) const { return fixed_[d] ? fixed_[d] : pick_[d][rng.Below(100)]; }
  // The largest size in d's table that is at most `left` bytes, or 0 when none is.
  uint32_t LargestWithin(int d, uint64_t left) const {
    uint32_t fit = 0;
    for (const BsEntry& e : table_[d])
      if (e.bs <= left && e.bs > fit) fit = e.bs;
    return fit;
  }
  // The smallest size of the directions in use.
  uint32_t smallest() const { return smallest_; }

 private:
  std::vector<BsEntry> table_[kDirs];
  std::vector<uint32_t> pick_[kDirs];
  uint32_t fixed_[kDirs] = {0, 0, 0};
  uint32_t smallest_ = 0;
};

}  // namespace vb
