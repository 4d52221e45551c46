// Where each I/O goes: sequential positions per direction, or random blocks drawn uniformly,
// from a full-period permutation (fio's random map: every block once per pass), or from a zipf,
// pareto or normal distribution scattered over the region.
#pragma once

#include <cstdint>

#include "plan.h"
#include "rng.h"

namespace vb {

// A bijection on [0, n) built from a bijection on [0, 2^bits) by cycle walking. Iterating a
// counter through it gives a random-looking order that visits every index exactly once, with
// O(1) memory and a handful of instructions per step.
class Permutation {
 public:
  void Init(uint64_t n, uint64_t key);
  uint64_t size() const { return n_; }

  // Next index of the current pass; false when every index has been returned.
  inline bool Next(uint64_t* out) {
    while (counter_ <= mask_) {
      const uint64_t x = Scramble(counter_++);
      if (x < n_) {
        *out = x;
        return true;
      }
    }
    return false;
  }
  // Starts another pass in a different order.
  void NewPass() { Rekey(Mix64(key_ + 0x632be59bd9b4e019ull)); }
  // The image of `i` (< n) under the permutation: spreads ranks over the region.
  inline uint64_t Map(uint64_t i) const {
    uint64_t x = Scramble(i);
    while (x >= n_) x = Scramble(x);
    return x;
  }

 private:
  void Rekey(uint64_t key);
  inline uint64_t Scramble(uint64_t x) const {
    x = (x + add_) & mask_;
    x = (x * mul1_) & mask_;
    x ^= x >> shift_;
    x = (x * mul2_) & mask_;
    x ^= x >> shift_;
    return x;
  }

  uint64_t n_ = 1, mask_ = 0, counter_ = 0, key_ = 0;
  uint64_t add_ = 0, mul1_ = 1, mul2_ = 1;
  unsigned shift_ = 1;
};

// Gray et al.'s zipf generator ("Quickly generating billion-record synthetic databases", 1994):
// constant time per draw after computing zeta(n, theta) once.
class ZipfGen {
 public:
  void Init(uint64_t n, double theta);
  uint64_t Draw(Rng& rng) const;  // rank in [0, n)

 private:
  uint64_t n_ = 1;
  double theta_ = 0, alpha_ = 0, zetan_ = 0, eta_ = 0, half_pow_theta_ = 0;
};

class OffsetGen {
 public:
  // Returns an error message when the plan's region cannot hold a block.
  const char* Init(const JobPlan& plan, uint64_t seed);

  // Offset (absolute, in bytes) for the next I/O of `bs` bytes in direction `d`.
  inline uint64_t Next(uint8_t d, uint32_t bs, Rng& rng) {
    if (!random_[d]) {
      uint64_t pos = seq_pos_[d];
      if (pos + bs > region_bytes_) {
        pos = 0;
        PassEnded();
      }
      seq_pos_[d] = pos + bs;
      return region_offset_ + pos;
    }
    switch (mode_) {
      case Mode::kMap: {
        uint64_t block = 0;
        if (!perm_.Next(&block)) {
          PassEnded();
          perm_.NewPass();
          perm_.Next(&block);
        }
        return region_offset_ + block * map_block_;
      }
      case Mode::kUniform:
        return region_offset_ + rng.Below((region_bytes_ - bs) / align_[d] + 1) * align_[d];
      default:
        return region_offset_ + Scatter(DrawRank(rng), bs, d);
    }
  }

  // Back to the start of the region (a new loop).
  void Rewind();

  // Calls `fn(arg)` each time a pass over the region ends on its own: a sequential position or
  // the random map wraps around (not at Rewind, whose caller knows). Null: nothing is called.
  void OnPassEnd(void (*fn)(void*), void* arg) {
    on_pass_end_ = fn;
    on_pass_end_arg_ = arg;
  }

 private:
  enum class Mode : uint8_t { kMap, kUniform, kDistribution };

  uint64_t DrawRank(Rng& rng) const;
  // Rare (once a pass), so it costs the other I/Os nothing.
  void PassEnded() {
    if (on_pass_end_) on_pass_end_(on_pass_end_arg_);
  }
  inline uint64_t Scatter(uint64_t rank, uint32_t bs, uint8_t d) const {
    const uint64_t off = perm_.Map(rank) * dist_block_;
    const uint64_t last = region_bytes_ - bs;
    return off <= last ? off : last / align_[d] * align_[d];
  }

  Mode mode_ = Mode::kUniform;
  bool random_[kDirs] = {false, false, false};
  uint64_t align_[kDirs] = {1, 1, 1};
  uint64_t region_offset_ = 0, region_bytes_ = 0;
  uint64_t seq_pos_[kDirs] = {0, 0, 0};
  uint64_t map_block_ = 0, dist_block_ = 0;
  Permutation perm_;
  Distribution dist_ = Distribution::kUniform;
  double dist_param_ = 0;
  double pareto_exp_ = 0;
  ZipfGen zipf_;
  void (*on_pass_end_)(void*) = nullptr;
  void* on_pass_end_arg_ = nullptr;
};

}  // namespace vb
