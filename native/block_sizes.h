// The block sizes a job issues, per direction: one fixed size (bs), fio's bssplit, a table of
// sizes and shares drawn from for every I/O, or fio's bsrange, any whole multiple of the smallest
// size up to the largest. Drawn as fio draws: a split's table sorted by share, one number from
// the direction's own generator walked through the shares added up, a size that would not fit
// before the region's end passed over; a range's size the smallest plus the largest scaled by
// the number, rounded down to a multiple of the smallest; and the draw made again until one fits.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "fio_rand.h"
#include "plan.h"

namespace vb {

class BlockSizes {
 public:
  void Init(const JobPlan& plan, const bool dir_used[kDirs]) {
    for (int d = 0; d < kDirs; d++) {
      table_[d] = plan.bs[d];
      // fio sorts a split by share (a stable sort: equal shares keep their order).
      std::stable_sort(table_[d].begin(), table_[d].end(), [](const BsEntry& a, const BsEntry& b) { return a.pct < b.pct; });
      min_[d] = max_[d] = 0;
      for (const BsEntry& e : table_[d]) {
        min_[d] = min_[d] == 0 || e.bs < min_[d] ? e.bs : min_[d];
        max_[d] = e.bs > max_[d] ? e.bs : max_[d];
      }
      fixed_[d] = min_[d] == max_[d] ? min_[d] : 0;
      range_[d] = plan.bs_range[d] && !fixed_[d];
      if (!dir_used[d]) continue;
      smallest_ = smallest_ == 0 || min_[d] < smallest_ ? min_[d] : smallest_;
    }
    for (int d = 0; d < kDirs; d++) seeds_[d] = plan.fio_seed_bs[d];
    Reseed();
  }
  // Back to the draws' first numbers (a new loop under randrepeat, as fio seeds again).
  void Reseed() {
    for (int d = 0; d < kDirs; d++) rand_[d].Seed(seeds_[d]);
  }

  // Direction d's one size, or 0 when it draws from a table.
  uint32_t fixed(int d) const { return fixed_[d]; }
  // The smallest size of direction d's table.
  uint32_t min(int d) const { return min_[d]; }
  uint32_t max(int d) const { return max_[d]; }
  // The largest size of any direction.
  uint32_t max_all() const { return std::max({max_[0], max_[1], max_[2]}); }
  // The next I/O's size in direction d, at most `room` bytes (the rest of the region from the
  // I/O's offset, where the offset is drawn first); 0 when not even the smallest fits.
  // A fixed size, the loop's common case, is one load; a drawn size is a call.
  uint32_t Draw(int d, uint64_t room = UINT64_MAX) { return fixed_[d] ? fixed_[d] : DrawSplit(d, room); }
  // The smallest size of the directions in use.
  uint32_t smallest() const { return smallest_; }

 private:
  [[gnu::noinline]] uint32_t DrawSplit(int d, uint64_t room) {
    if (min_[d] > room) return 0;
    if (range_[d]) return DrawRange(d, room);
    for (;;) {
      const uint64_t r = rand_[d].Next();
      uint64_t shares = 0;
      uint32_t len = 0;
      for (const BsEntry& e : table_[d]) {
        if (e.pct == 0) continue;
        len = e.bs;
        shares += e.pct;
        if (r / shares <= FioRand::kMax / 100 && len <= room) break;
      }
      // A whole number of the smallest size, as fio rounds (and no more than the largest).
      len -= len % min_[d];
      if (len == 0) return 0;
      if (len <= room) return len;
    }
  }

  // fio's range draw (io_u.c get_next_buflen): min + max · r/2^32, in double precision, then a
  // whole number of min (a mask where min is a power of two: the same), at most max.
  uint32_t DrawRange(int d, uint64_t room) {
    for (;;) {
      const uint64_t r = rand_[d].Next();
      uint64_t len = min_[d] + static_cast<uint64_t>(static_cast<double>(max_[d]) * (static_cast<double>(r) / FioRand::kRange));
      len -= len % min_[d];
      if (len > max_[d]) len = max_[d];
      if (len <= room) return static_cast<uint32_t>(len);
    }
  }

  std::vector<BsEntry> table_[kDirs];
  bool range_[kDirs] = {false, false, false};
  uint32_t min_[kDirs] = {0, 0, 0};
  uint32_t max_[kDirs] = {0, 0, 0};
  uint32_t fixed_[kDirs] = {0, 0, 0};
  uint32_t smallest_ = 0;
  uint64_t seeds_[kDirs] = {0, 0, 0};
  FioRand rand_[kDirs];
};

}  // namespace vb
