// Fast random numbers for offsets, block sizes and directions: wyrand, one 64x64->128 multiply
// per number, statistically sound for benchmarking (not for cryptography).
#pragma once

#include <cstdint>

namespace vb {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : state_(seed) {}
  void Seed(uint64_t seed) { state_ = seed; }

  inline uint64_t Next() {
    state_ += 0xa0761d6478bd642full;
    const unsigned __int128 t = static_cast<unsigned __int128>(state_) * (state_ ^ 0xe7037ed1a0b428dbull);
    return static_cast<uint64_t>(t >> 64) ^ static_cast<uint64_t>(t);
  }
  // Uniform in [0, n) by multiply-high (bias below 2^-64 * n, irrelevant here).
  inline uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }
  // Uniform in [0, 1).
  inline double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

// Mixes a seed into well-spread key material (splitmix64's finaliser).
inline uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace vb
