// Where each I/O goes: sequential positions per direction, or random blocks drawn uniformly,
// under fio's random map (every block once per pass: a full-period permutation for one block
// size, a bitmap of free blocks for several), from a zipf, pareto or normal distribution
// scattered over the region, or from fio's zones (a share of the I/Os on a share of the region).
// With fio's percentage_random, a random job's I/O is drawn or goes on from the last one.
#pragma once

#include <cstdint>
#include <vector>

#include "block_sizes.h"
#include "fio_rand.h"
#include "free_map.h"
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

// fio's draws of where a random I/O goes, each from a generator of the job's (td->random_state,
// zone_state, seq_rand_state): the block, the zone, and per direction percentage_random's
// choice between a drawn offset and the next one (fio seeds those three alike).
struct OffsetDraws {
  FioRand block;
  FioRand zone;
  FioRand seq_rand[kDirs];

  void Seed(uint64_t block_seed, uint64_t zone_seed, uint64_t seq_rand_seed) {
    block.Seed(block_seed);
    zone.Seed(zone_seed);
    for (FioRand& r : seq_rand) r.Seed(seq_rand_seed);
  }
};

class OffsetGen {
 public:
  // Returns an error message when the plan's region cannot hold a block or the random map
  // cannot be allocated.
  const char* Init(const JobPlan& plan, const bool dir_used[kDirs], uint64_t seed) {
    return InitRegion(plan, dir_used, seed, plan.region_offset, plan.region_bytes, false);
  }
  // As Init, over one of a job's several files: the region is that file's, and with
  // `stop_at_end` a sequential position or the random map that reaches the region's end ends
  // the pass over the file (Next() returns false) rather than starting another, as fio marks
  // the file done and goes on with the others.
  const char* InitRegion(const JobPlan& plan, const bool dir_used[kDirs], uint64_t seed, uint64_t region_offset,
                         uint64_t region_bytes, bool stop_at_end);
  // The target's size in bytes (the file's, the device's) when known, else 0: a sequential run
  // of percentage_random that reaches it draws a random block, one that reaches the region's end
  // short of it ends the pass (fio's get_next_seq_offset).
  void SetTargetBytes(uint64_t bytes) { target_bytes_ = bytes; }

  // The next I/O of direction `d`: where it goes (absolute, in bytes) and how long it is, its
  // size drawn from `sizes`. Random offsets without a distribution are drawn as fio draws them
  // (fio_rand.h), the block first and then a size that fits from it. False when fio's random
  // map has no block for it: the pass is over, as fio's is (see NextInMap).
  [[gnu::always_inline]] inline bool Next(uint8_t d, BlockSizes& sizes, Rng& rng, uint64_t* off, uint32_t* len) {
    if (!random_[d]) {
      // As fio: the position first, then a size that fits before the region's end.
      uint64_t pos = seq_pos_[d];
      if (__builtin_expect(pos + sizes.min(d) > region_bytes_, 0)) {
        // As fio's get_next_seq_offset: a time-based job at the region's end goes round; short
        // of it (drawn sizes, none of which fits the tail) fio's pass ends, and so does this one.
        // A size-based job's pass ends at the region's end too: one of several files is then
        // done, as fio's (stop_at_end_ is never set for a time-based job).
        if (!time_based_ || pos < region_bytes_) return false;
        pos = 0;
        PassEnded();
      }
      const uint32_t bs = sizes.Draw(d, region_bytes_ - pos);
      seq_pos_[d] = pos + bs;
      *len = bs;
      *off = region_offset_ + pos;
      return true;
    }
    switch (mode_) {
      case Mode::kMap:
        return NextMapped(d, sizes, off, len);
      case Mode::kUniform:
        return NextUniform(d, sizes, off, len);
      case Mode::kDistribution:
        return NextDistributed(d, sizes, rng, off, len);
      default:
        return NextRare(d, sizes, rng, off, len);
    }
  }

  // fio's draws of where random I/Os go (the block, the zone, percentage_random's choice): a
  // job of several files hands each file the job's one set for its draw, as fio draws every
  // file's offsets from the job's generators.
  OffsetDraws& draws() { return draws_; }

  // Back to the start of the region (a new loop or pass); `reseed`: fio's draws start over too.
  void Rewind(bool reseed);

  // Calls `fn(arg)` each time a pass over the region ends on its own: a sequential position or
  // the random map wraps around (not at Rewind, whose caller knows). Null: nothing is called.
  void OnPassEnd(void (*fn)(void*), void* arg) {
    on_pass_end_ = fn;
    on_pass_end_arg_ = arg;
  }

 private:
  // kMap: one block size, a permutation of the region's blocks (every block once per pass, as
  // fio's map gives). kUniform: no map, fio's draw. kDistribution: zipf, pareto, normal.
  // kFioMap: fio's map itself, where its I/Os are cut short or its block units mix. kZoned:
  // fio's zones. kSeqRand: percentage_random over the mode in inner_.
  enum class Mode : uint8_t { kMap, kUniform, kDistribution, kFioMap, kZoned, kSeqRand };

  // The common modes, inline in the loop (and in NextInner, out of it).
  [[gnu::always_inline]] inline bool NextMapped(uint8_t d, BlockSizes& sizes, uint64_t* off, uint32_t* len) {
    *len = sizes.Draw(d);
    uint64_t block = 0;
    if (!perm_.Next(&block)) {
      if (stop_at_end_) return false;
      PassEnded();
      perm_.NewPass();
      perm_.Next(&block);
    }
    *off = region_offset_ + block * map_block_;
    return true;
  }
  [[gnu::always_inline]] inline bool NextUniform(uint8_t d, BlockSizes& sizes, uint64_t* off, uint32_t* len) {
    // The last block leaves room for the smallest size, so a size always fits.
    const uint64_t at = draws_.block.Below(last_block_[d]) * align_[d];
    *len = sizes.Draw(d, region_bytes_ - at);
    *off = region_offset_ + at;
    return true;
  }
  [[gnu::always_inline]] inline bool NextDistributed(uint8_t d, BlockSizes& sizes, Rng& rng, uint64_t* off, uint32_t* len) {
    const uint32_t bs = sizes.Draw(d);
    *len = bs;
    *off = region_offset_ + Scatter(DrawRank(rng), bs, d);
    return true;
  }
  // The other modes (mode_), out of line: they cost the common ones nothing.
  bool NextRare(uint8_t d, BlockSizes& sizes, Rng& rng, uint64_t* off, uint32_t* len);
  // percentage_random's drawn offset: inner_'s mode.
  bool NextInner(uint8_t d, BlockSizes& sizes, Rng& rng, uint64_t* off, uint32_t* len);
  // fio's zoned draw (io_u.c __get_next_rand_offset_zoned): a percentage from the zone generator
  // picks the zone, the block generator a block inside it; no random map, as in fio.
  bool NextZoned(uint8_t d, BlockSizes& sizes, uint64_t* off, uint32_t* len);
  // percentage_random (io_u.c should_do_random): a percentage from the direction's generator
  // decides between a drawn offset (inner_'s) and the end of the direction's last I/O.
  bool NextSeqRand(uint8_t d, BlockSizes& sizes, Rng& rng, uint64_t* off, uint32_t* len);

  // Which mode the plan asks for; `unit` is the block of the random map.
  Mode PickMode(const JobPlan& plan, const bool dir_used[kDirs], uint32_t* unit) const;
  void InitZones(const JobPlan& plan);
  // fio's random map: a drawn block, or when it is taken the next free one after it (wrapping);
  // a size that fits from there; the I/O cut short at the first block already done. The map's
  // bits are blocks of the smallest size of any direction, and each direction draws and marks
  // them in blocks of its own smallest size, as fio does: where the two differ, a block past
  // the region can come up, which ends the pass (fio ends it there too).
  bool NextInMap(uint8_t d, BlockSizes& sizes, uint64_t* off, uint32_t* len);
  static constexpr uint64_t kFibonacciHash = 0x61c8864680b583ebull;
  uint64_t DrawRank(Rng& rng) const;
  uint64_t NormalRank(Rng& rng) const;
  static constexpr int kNormalDraws = 12;
  // Spreads ranks over the region as fio does: the rank times 2^64/φ (Fibonacci hashing),
  // modulo the block count. For a power-of-two count every rank gets a block of its own; for
  // others some ranks share one, and fio's hot set shrinks with it (normal:20 over 100 MiB of
  // 4k blocks touches 26% fewer blocks than a one-to-one spread), so volbench's does too.
  // Rare (once a pass), so it costs the other I/Os nothing.
  void PassEnded() {
    if (on_pass_end_) on_pass_end_(on_pass_end_arg_);
  }
  inline uint64_t Scatter(uint64_t rank, uint32_t bs, uint8_t d) const {
    const uint64_t off = rank * kFibonacciHash % dist_blocks_ * dist_block_;
    const uint64_t last = region_bytes_ - bs;
    return off <= last ? off : last / align_[d] * align_[d];
  }

  Mode mode_ = Mode::kUniform;
  Mode inner_ = Mode::kUniform;
  bool time_based_ = false;
  uint64_t target_bytes_ = 0;
  // kZoned: per direction and percentage 1..100, the zone's start and end in percent of the
  // region (fio's zone_state_index); empty for a direction without zones.
  struct ZoneIndex {
    uint8_t start;
    uint8_t end;
  };
  std::vector<ZoneIndex> zone_index_[kDirs];
  // kSeqRand: the percentages, and where each direction's last I/O ended, from the region's
  // start (fio's per-file last_pos).
  uint32_t perc_random_[kDirs] = {100, 100, 100};
  uint64_t last_end_[kDirs] = {0, 0, 0};
  bool random_[kDirs] = {false, false, false};
  uint64_t align_[kDirs] = {1, 1, 1};
  uint64_t region_offset_ = 0, region_bytes_ = 0;
  uint64_t seq_pos_[kDirs] = {0, 0, 0};
  uint64_t map_block_ = 0, dist_block_ = 0, dist_blocks_ = 1;
  // fio's draw of a block: from [0, last_block_[d]), in blocks of align_[d] (fio's last_block).
  uint64_t last_block_[kDirs] = {1, 1, 1};
  OffsetDraws draws_;
  uint64_t block_seed_ = 0, zone_seed_ = 0, seq_rand_seed_ = 0;
  // A full map starts a new pass in place (time-based jobs, as fio's), else ends the pass.
  bool wrap_full_map_ = false;
  // The region's end ends the pass (one of several files, size-based).
  bool stop_at_end_ = false;
  Permutation perm_;
  FreeMap free_map_;
  Distribution dist_ = Distribution::kUniform;
  double dist_param_ = 0;
  double pareto_exp_ = 0;
  // normal:σ's uniform spread, in blocks.
  uint64_t normal_spread_ = 0;
  ZipfGen zipf_;
  void (*on_pass_end_)(void*) = nullptr;
  void* on_pass_end_arg_ = nullptr;
};

}  // namespace vb
