#include "free_map.h"

#include <algorithm>
#include <new>

namespace vb {

namespace {

inline unsigned LowestSet(uint64_t x) { return static_cast<unsigned>(__builtin_ctzll(x)); }

}  // namespace

bool FreeMap::Init(uint64_t blocks) {
  blocks_ = blocks;
  levels_.clear();
  level_bits_.clear();
  try {
    uint64_t bits = blocks;
    do {
      const uint64_t words = (bits + 63) / 64;
      levels_.emplace_back(words);
      level_bits_.push_back(bits);
      bits = words;
    } while (bits > 1);
  } catch (const std::bad_alloc&) {
    levels_.clear();
    level_bits_.clear();
    return false;
  }
  Reset();
  return true;
}

void FreeMap::Reset() {
  for (size_t k = 0; k < levels_.size(); k++) {
    std::fill(levels_[k].begin(), levels_[k].end(), 0);
    const unsigned used = static_cast<unsigned>(level_bits_[k] % 64);
    if (used) levels_[k].back() = ~uint64_t{0} << used;
  }
  free_ = blocks_;
}

uint64_t FreeMap::FindFrom(uint64_t from) const {
  // Up: the first level whose word holds a free bit at or after the position, ...
  size_t level = 0;
  uint64_t at = from;
  for (;;) {
    if (at >= level_bits_[level]) return kNone;
    const uint64_t word = at / 64;
    const uint64_t open = ~levels_[level][word] & (~uint64_t{0} << (at % 64));
    if (open) {
      at = word * 64 + LowestSet(open);
      break;
    }
    if (level + 1 == levels_.size()) return kNone;
    at = word + 1;
    level++;
  }
  // ... then down through the words it marks as not full, to a free block.
  while (level > 0) {
    level--;
    at = at * 64 + LowestSet(~levels_[level][at]);
  }
  return at;
}

uint64_t FreeMap::NextFree(uint64_t from) const {
  const uint64_t at = FindFrom(from);
  return at != kNone ? at : FindFrom(0);
}

uint64_t FreeMap::Claim(uint64_t first, uint64_t want) {
  uint64_t done = 0;
  uint64_t at = first;
  while (done < want && at < blocks_) {
    const uint64_t index = at / 64;
    const unsigned bit = static_cast<unsigned>(at % 64);
    uint64_t& word = levels_[0][index];
    // Free blocks from `at` to the next taken one in this word (or the word's end).
    const uint64_t above = word >> bit;
    const uint64_t run = above ? LowestSet(above) : 64 - bit;
    if (run == 0) break;
    const uint64_t take = std::min(run, want - done);
    word |= (take == 64 ? ~uint64_t{0} : (uint64_t{1} << take) - 1) << bit;
    if (word == ~uint64_t{0} && levels_.size() > 1) SetFull(1, index);
    done += take;
    at += take;
    // A run that stops inside the word stops at a taken block (or the map's end).
    if (bit + take < 64) break;
  }
  free_ -= done;
  return done;
}

void FreeMap::SetFull(size_t level, uint64_t bit) {
  for (; level < levels_.size(); level++) {
    uint64_t& word = levels_[level][bit / 64];
    word |= uint64_t{1} << (bit % 64);
    if (word != ~uint64_t{0}) return;
    bit /= 64;
  }
}

}  // namespace vb
