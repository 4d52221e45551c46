#include "offsets.h"

#include <algorithm>
#include <cmath>

namespace vb {

void Permutation::Init(uint64_t n, uint64_t key) {
  n_ = n ? n : 1;
  unsigned bits = 0;
  while (bits < 64 && (uint64_t{1} << bits) < n_) bits++;
  mask_ = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  shift_ = std::max(1u, bits / 2);
  Rekey(key);
}

void Permutation::Rekey(uint64_t key) {
  key_ = key;
  counter_ = 0;
  add_ = Mix64(key) & mask_;
  // Odd multipliers are invertible modulo 2^bits.
  mul1_ = (Mix64(key ^ 0x5851f42d4c957f2dull) | 1) & mask_;
  mul2_ = (Mix64(key ^ 0x14057b7ef767814full) | 1) & mask_;
  if (mul1_ == 0) mul1_ = 1;
  if (mul2_ == 0) mul2_ = 1;
}

void ZipfGen::Init(uint64_t n, double theta) {
  n_ = n ? n : 1;
  theta_ = theta;
  alpha_ = 1.0 / (1.0 - theta);
  // zeta(n, theta) summed exactly up to a million ranks, then by the integral of x^-theta, whose
  // error over the tail is far below the distribution's own granularity.
  const uint64_t exact = std::min<uint64_t>(n_, 1000000);
  double z = 0;
  for (uint64_t i = 1; i <= exact; i++) z += std::pow(static_cast<double>(i), -theta);
  if (n_ > exact) {
    const double a = static_cast<double>(exact) + 0.5, b = static_cast<double>(n_) + 0.5;
    z += (std::pow(b, 1.0 - theta) - std::pow(a, 1.0 - theta)) / (1.0 - theta);
  }
  zetan_ = z;
  const double zeta2 = 1.0 + std::pow(0.5, theta);
  half_pow_theta_ = std::pow(0.5, theta);
  eta_ = (1.0 - std::pow(2.0 / static_cast<double>(n_), 1.0 - theta)) / (1.0 - zeta2 / zetan_);
}

uint64_t ZipfGen::Draw(Rng& rng) const {
  const double u = rng.Unit();
  const double uz = u * zetan_;
  if (uz < 1.0) return 0;
  if (uz < 1.0 + half_pow_theta_) return n_ > 1 ? 1 : 0;
  const double r = static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1.0, alpha_);
  const uint64_t rank = static_cast<uint64_t>(r);
  return rank < n_ ? rank : n_ - 1;
}

namespace {

uint32_t SmallestOf(const std::vector<BsEntry>& table) {
  uint32_t m = 0;
  for (const BsEntry& e : table) m = m == 0 || e.bs < m ? e.bs : m;
  return m;
}

}  // namespace

const char* OffsetGen::InitRegion(const JobPlan& plan, const bool dir_used[kDirs], uint64_t seed, uint64_t region_offset,
                                  uint64_t region_bytes, bool stop_at_end) {
  region_offset_ = region_offset;
  region_bytes_ = region_bytes;
  stop_at_end_ = stop_at_end;
  const uint32_t max_bs = plan.MaxBs();
  if (region_bytes_ < max_bs) return "the region is smaller than the block size";
  uint32_t min_bs = UINT32_MAX;
  for (int d = 0; d < kDirs; d++) {
    random_[d] = plan.random[d];
    const uint32_t dir_min = std::max<uint32_t>(SmallestOf(plan.bs[d]), 1);
    min_bs = std::min(min_bs, dir_min);
    align_[d] = plan.block_align[d] ? plan.block_align[d] : dir_min;
    // fio's last_block: blocks of the alignment that leave room for the smallest size.
    const uint64_t room = region_bytes_ - (dir_min > align_[d] ? std::min<uint64_t>(dir_min - align_[d], region_bytes_) : 0);
    last_block_[d] = std::max<uint64_t>(room / align_[d], 1);
  }
  block_seed_ = plan.fio_seed_block;
  zone_seed_ = plan.fio_seed_zone;
  seq_rand_seed_ = plan.fio_seed_seq_rand;
  draws_.Seed(block_seed_, zone_seed_, seq_rand_seed_);
  wrap_full_map_ = plan.time_based;
  time_based_ = plan.time_based;
  dist_ = plan.distribution;
  dist_param_ = plan.distribution_param;
  InitZones(plan);
  uint32_t unit = 0;
  mode_ = PickMode(plan, dir_used, &unit);
  const uint64_t key = Mix64(seed ^ 0xd1b54a32d192ed03ull);
  switch (mode_) {
    case Mode::kDistribution: {
      dist_block_ = min_bs;
      const uint64_t n = (region_bytes_ - max_bs) / dist_block_ + 1;
      dist_blocks_ = n;
      if (dist_ == Distribution::kZipf) zipf_.Init(n, dist_param_);
      if (dist_ == Distribution::kPareto) pareto_exp_ = std::log(dist_param_) / std::log(1.0 - dist_param_);
      if (dist_ == Distribution::kNormal) {
        // σ% of the region, rounded up, at most half of it (as fio's gauss_init).
        normal_spread_ = std::min<uint64_t>(static_cast<uint64_t>(std::ceil(static_cast<double>(n) * dist_param_ / 100.0)), n / 2);
      }
      break;
    }
    case Mode::kMap:
      map_block_ = unit;
      perm_.Init(region_bytes_ / map_block_, key);
      break;
    case Mode::kFioMap:
      map_block_ = unit;
      if (!free_map_.Init(region_bytes_ / map_block_)) return "no memory for the random map";
      break;
    case Mode::kUniform:
    case Mode::kZoned:
    case Mode::kSeqRand:
      break;
  }
  // percentage_random wraps whichever mode draws the random offsets.
  bool seq_rand = false;
  for (int d = 0; d < kDirs; d++) {
    perc_random_[d] = plan.perc_random[d];
    seq_rand = seq_rand || (dir_used[d] && random_[d] && perc_random_[d] < 100);
  }
  if (seq_rand) {
    inner_ = mode_;
    mode_ = Mode::kSeqRand;
  }
  return nullptr;
}

// fio's zone_state_index: for each of the percentages 1 to 100, the zone it falls in.
void OffsetGen::InitZones(const JobPlan& plan) {
  for (int d = 0; d < kDirs; d++) {
    zone_index_[d].clear();
    if (plan.distribution != Distribution::kZoned || plan.zones[d].empty()) continue;
    zone_index_[d].assign(100, ZoneIndex{0, 0});
    uint32_t access = 0, size = 0;
    for (const ZoneSplit& z : plan.zones[d]) {
      for (uint32_t j = access; j < access + z.access && j < 100; j++)
        zone_index_[d][j] = ZoneIndex{static_cast<uint8_t>(size), static_cast<uint8_t>(size + z.size)};
      access += z.access;
      size += z.size;
    }
  }
}

// The map's unit is the smallest size of any direction, used or not, as fio's (rw_min_bs). A
// permutation serves where every direction in use has that one size; fio's own map is kept
// where sizes are drawn or differ from it.
OffsetGen::Mode OffsetGen::PickMode(const JobPlan& plan, const bool dir_used[kDirs], uint32_t* unit) const {
  // Zones draw without a map, as fio's (init.c turns norandommap on for any distribution).
  if (plan.distribution == Distribution::kZoned) return Mode::kZoned;
  if (plan.distribution != Distribution::kUniform) return Mode::kDistribution;
  if (!plan.random_map) return Mode::kUniform;
  // percentage_random's sequential I/Os neither mark nor consult fio's map, while its random
  // ones do: fio's own map keeps the blocks and the draws fio's.
  bool seq_rand = false;
  for (int d = 0; d < kDirs; d++) seq_rand = seq_rand || (dir_used[d] && plan.perc_random[d] < 100);
  uint32_t rw_min = 0;
  for (int d = 0; d < kDirs; d++) {
    const uint32_t dir_min = SmallestOf(plan.bs[d]);
    if (dir_min && (rw_min == 0 || dir_min < rw_min)) rw_min = dir_min;
  }
  bool one_size = true, any = false;
  for (int d = 0; d < kDirs; d++) {
    if (!dir_used[d] || plan.bs[d].empty()) continue;
    // An alignment other than the smallest size turns the map off, as in fio (the plan has
    // cleared random_map then already).
    if (align_[d] != SmallestOf(plan.bs[d])) return Mode::kUniform;
    any = true;
    for (const BsEntry& e : plan.bs[d]) one_size = one_size && e.bs == rw_min;
  }
  if (!any || rw_min == 0) return Mode::kUniform;
  *unit = rw_min;
  return one_size && !seq_rand && !plan.fio_map ? Mode::kMap : Mode::kFioMap;
}

bool OffsetGen::NextRare(uint8_t d, BlockSizes& sizes, Rng& rng, uint64_t* off, uint32_t* len) {
  switch (mode_) {
    case Mode::kZoned:
      return NextZoned(d, sizes, off, len);
    case Mode::kSeqRand:
      return NextSeqRand(d, sizes, rng, off, len);
    default:
      return NextInMap(d, sizes, off, len);
  }
}

bool OffsetGen::NextInner(uint8_t d, BlockSizes& sizes, Rng& rng, uint64_t* off, uint32_t* len) {
  switch (inner_) {
    case Mode::kMap:
      return NextMapped(d, sizes, off, len);
    case Mode::kUniform:
      return NextUniform(d, sizes, off, len);
    case Mode::kDistribution:
      return NextDistributed(d, sizes, rng, off, len);
    case Mode::kZoned:
      return NextZoned(d, sizes, off, len);
    default:
      return NextInMap(d, sizes, off, len);
  }
}

bool OffsetGen::NextZoned(uint8_t d, BlockSizes& sizes, uint64_t* off, uint32_t* len) {
  uint64_t blocks = last_block_[d], first = 0;
  if (!zone_index_[d].empty()) {
    const ZoneIndex z = zone_index_[d][draws_.zone.Percent() - 1];
    first = z.start ? z.start * blocks / 100 : 0;
    blocks = blocks * (z.end - z.start) / 100;
  }
  const uint64_t at = (draws_.block.Below(blocks) + first) * align_[d];
  if (at >= region_bytes_) return false;
  *len = sizes.Draw(d, region_bytes_ - at);
  *off = region_offset_ + at;
  return *len != 0;
}

bool OffsetGen::NextSeqRand(uint8_t d, BlockSizes& sizes, Rng& rng, uint64_t* off, uint32_t* len) {
  bool random = perc_random_[d] == 100 || draws_.seq_rand[d].Percent() <= perc_random_[d];
  if (!random) {
    uint64_t pos = last_end_[d];
    // A time-based job goes round the region; fio's other jobs go on to the file's end, where a
    // random block is drawn instead, and end the pass at the region's end short of it.
    if (pos >= region_bytes_ && time_based_) {
      pos = 0;
      PassEnded();
    }
    if (region_offset_ + pos >= target_bytes_ && target_bytes_) {
      random = true;
    } else {
      if (pos >= region_bytes_) return false;
      const uint32_t bs = sizes.Draw(d, region_bytes_ - pos);
      if (bs == 0) return false;
      *len = bs;
      *off = region_offset_ + pos;
    }
  }
  if (random && !NextInner(d, sizes, rng, off, len)) return false;
  last_end_[d] = *off - region_offset_ + *len;
  return true;
}

bool OffsetGen::NextInMap(uint8_t d, BlockSizes& sizes, uint64_t* off, uint32_t* len) {
  uint64_t b = draws_.block.Below(last_block_[d]);
  if (!free_map_.IsFree(b)) {
    if (free_map_.Full()) {
      if (!wrap_full_map_) return false;
      // fio empties the map of a time-based job and draws again (fio_file_reset, which also
      // takes each direction's last position back to the region's start).
      free_map_.Reset();
      for (auto& p : last_end_) p = 0;
      PassEnded();
      b = draws_.block.Below(last_block_[d]);
    } else {
      b = free_map_.NextFree(b + 1 < free_map_.size() ? b + 1 : 0);
    }
  }
  const uint64_t at = b * align_[d];
  if (at >= region_bytes_) return false;
  const uint32_t want = sizes.Draw(d, region_bytes_ - at);
  if (want == 0) return false;
  const uint32_t unit = sizes.min(d);
  const uint64_t got = free_map_.Claim(at / unit, (want + unit - 1) / unit);
  *len = got * unit < want ? static_cast<uint32_t>(got * unit) : want;
  *off = region_offset_ + at;
  return true;
}

uint64_t OffsetGen::DrawRank(Rng& rng) const {
  const uint64_t n = dist_blocks_;
  switch (dist_) {
    case Distribution::kZipf:
      return zipf_.Draw(rng);
    case Distribution::kPareto: {
      // P(rank < h·n) = 1 − h: fio's pareto:h puts (1−h) of the accesses on h of the blocks.
      const double r = std::pow(rng.Unit(), pareto_exp_) * static_cast<double>(n);
      const uint64_t rank = static_cast<uint64_t>(r);
      return rank < n ? rank : n - 1;
    }
    case Distribution::kNormal:
      return NormalRank(rng);
    default:
      return rng.Below(n);
  }
}

// fio's normal:σ is not a Gaussian of deviation σ: it is the mean of twelve uniform draws over
// [0, n] (rounded up), a bell a twelfth of the region wide whatever σ says, plus a uniform spread
// over σ% of the region, halved until the rank stays inside it. The shape is what users compare
// (how many blocks a run touches, how much the hottest take), so it is fio's that is drawn.
uint64_t OffsetGen::NormalRank(Rng& rng) const {
  const uint64_t n = dist_blocks_;
  uint64_t sum = 0;
  for (int i = 0; i < kNormalDraws; i++) sum += rng.Below(n + 1);
  int64_t rank = static_cast<int64_t>((sum + kNormalDraws - 1) / kNormalDraws);
  if (normal_spread_) {
    int64_t dev = static_cast<int64_t>(rng.Below(normal_spread_)) - static_cast<int64_t>(normal_spread_ / 2);
    while (dev != 0 && (rank + dev < 0 || rank + dev >= static_cast<int64_t>(n))) dev /= 2;
    rank += dev;
  }
  // Only twelve draws of n each reach n itself.
  return static_cast<uint64_t>(rank) < n ? static_cast<uint64_t>(rank) : n - 1;
}

void OffsetGen::Rewind(bool reseed) {
  for (auto& p : seq_pos_) p = 0;
  for (auto& p : last_end_) p = 0;
  const Mode map = mode_ == Mode::kSeqRand ? inner_ : mode_;
  if (map == Mode::kMap) perm_.NewPass();
  if (map == Mode::kFioMap) free_map_.Reset();
  if (reseed) draws_.Seed(block_seed_, zone_seed_, seq_rand_seed_);
}

}  // namespace vb
