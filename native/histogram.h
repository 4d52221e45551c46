// fio's log-linear latency histogram: 29 groups of 64 buckets. Values below 128 ns have a bucket
// each; above that the most significant bit picks the group and the next 6 bits the bucket, so
// a bucket spans less than 1/64 of its value and its midpoint is within 1/128 (0.78%) of any
// value in it. Values from 2^34 ns (~17.2 s) up share the last bucket.
#pragma once

#include <cstdint>
#include <cstring>

namespace vb {

constexpr int kHistBits = 6;
constexpr int kHistGroupSize = 1 << kHistBits;  // 64
constexpr int kHistGroups = 29;
constexpr int kHistBuckets = kHistGroups * kHistGroupSize;  // 1856

inline uint32_t HistIndex(uint64_t ns) {
  if (ns < 2 * kHistGroupSize) return static_cast<uint32_t>(ns);
  const int msb = 63 - __builtin_clzll(ns);
  const int shift = msb - kHistBits;
  const uint32_t idx = static_cast<uint32_t>(((shift + 1) << kHistBits) + ((ns >> shift) & (kHistGroupSize - 1)));
  return idx < kHistBuckets ? idx : kHistBuckets - 1;
}

// The value a bucket reports: its midpoint.
inline uint64_t HistValue(uint32_t idx) {
  if (idx < 2 * kHistGroupSize) return idx;
  const int shift = static_cast<int>(idx >> kHistBits) - 1;
  const uint64_t base = uint64_t{1} << (shift + kHistBits);
  const uint64_t k = idx & (kHistGroupSize - 1);
  return base + ((2 * k + 1) << shift) / 2;
}

struct Histogram {
  uint64_t counts[kHistBuckets];

  void Clear() { std::memset(counts, 0, sizeof(counts)); }
  void Add(uint64_t ns) { counts[HistIndex(ns)]++; }
};

// Value below which `pct` percent of `n` samples fall, by fio's rule: the midpoint of the first
// bucket where the running count reaches pct/100 * n.
inline uint64_t HistPercentile(const uint64_t* counts, uint64_t n, double pct) {
  if (n == 0) return 0;
  const double want = pct / 100.0 * static_cast<double>(n);
  uint64_t sum = 0;
  for (uint32_t i = 0; i < kHistBuckets; i++) {
    sum += counts[i];
    if (static_cast<double>(sum) >= want && sum > 0) return HistValue(i);
  }
  return HistValue(kHistBuckets - 1);
}

}  // namespace vb
