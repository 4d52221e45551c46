// fio's random map, for the jobs that need it as such (several block sizes): one bit per
// smallest block of the region, set once an I/O has covered the block in this pass (fio's axmap
// plays this part). An I/O lands on a random block, or the next free one after it, and claims
// the free run that starts there.
// Levels above the bitmap mark its full words, so the next free block is a few word scans away
// however full the map is; memory is one bit per block and a sixty-fourth more.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vb {

class FreeMap {
 public:
  // Returns false when the map cannot be allocated.
  bool Init(uint64_t blocks);
  // Every block free again: a new pass.
  void Reset();
  uint64_t size() const { return blocks_; }
  bool Full() const { return free_ == 0; }
  bool IsFree(uint64_t block) const { return !((levels_[0][block / 64] >> (block % 64)) & 1); }
  // The first free block at or after `from` (< size()), wrapping past the end. Not when Full().
  uint64_t NextFree(uint64_t from) const;
  // Marks up to `want` blocks taken from `first` (a free block) on, up to the next taken block
  // or the end of the map; returns how many it marked (at least one).
  uint64_t Claim(uint64_t first, uint64_t want);

 private:
  static constexpr uint64_t kNone = ~uint64_t{0};
  // The first free block at or after `from`, or kNone.
  uint64_t FindFrom(uint64_t from) const;
  // Sets `bit` of `level`, and upward while that fills a word.
  void SetFull(size_t level, uint64_t bit);

  // levels_[0] is the block bitmap; bit i of levels_[k + 1] is set when word i of levels_[k] is
  // full. Bits past a level's end are set from the start, so they read as taken.
  std::vector<std::vector<uint64_t>> levels_;
  std::vector<uint64_t> level_bits_;
  uint64_t blocks_ = 0;
  uint64_t free_ = 0;
};

}  // namespace vb
