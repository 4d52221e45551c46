// Latency accumulators built for the hot path: integer sums give the mean and variance exactly
// at the end, at the cost of an add and a 128-bit multiply-add per sample.
#pragma once

#include <cstdint>

namespace vb {

struct LatStats {
  uint64_t n = 0;
  uint64_t min = UINT64_MAX;
  uint64_t max = 0;
  uint64_t sum = 0;
  unsigned __int128 sum_sq = 0;

  inline void Add(uint64_t v) {
    n++;
    min = v < min ? v : min;
    max = v > max ? v : max;
    sum += v;
    sum_sq += static_cast<unsigned __int128>(v) * v;
  }
  void Reset() { *this = LatStats(); }
  double Mean() const { return n ? static_cast<double>(sum) / static_cast<double>(n) : 0.0; }
  // Sum of squared deviations from the mean (what Welford's method calls M2).
  double M2() const {
    if (n < 2) return 0.0;
    const unsigned __int128 sq_of_sum = static_cast<unsigned __int128>(sum) * sum;
    const unsigned __int128 q = sq_of_sum / n;
    const unsigned __int128 r = sq_of_sum % n;
    if (sum_sq < q) return 0.0;
    return static_cast<double>(sum_sq - q) - static_cast<double>(r) / static_cast<double>(n);
  }
};

// Statistics over per-window samples (KiB/s or IOPS), Welford's method: few samples, floats.
struct SampleStats {
  uint64_t n = 0;
  double min = 0, max = 0, mean = 0, m2 = 0;

  void Add(double v) {
    n++;
    if (n == 1) {
      min = max = v;
    } else {
      min = v < min ? v : min;
      max = v > max ? v : max;
    }
    const double delta = v - mean;
    mean += delta / static_cast<double>(n);
    m2 += delta * (v - mean);
  }
  void Reset() { *this = SampleStats(); }
};

}  // namespace vb
