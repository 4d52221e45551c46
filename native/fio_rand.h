// fio's random draws, where the count of a job's I/Os depends on them: L'Ecuyer's combined
// Tausworthe generator (taus88, "Maximally equidistributed combined Tausworthe generators",
// Math. Comp. 65, 1996) seeded from fio's per-job seeds as fio 3.33 seeds it. A job whose
// random map cuts I/Os short (bssplit, or directions of different block sizes) issues as many
// I/Os as its sizes and offsets let it, and that count swings by half from one seed to the next
// (a 64 MiB bssplit randread: 1,077 to 1,651 I/Os); drawn as fio draws them, the same seed gives
// the same I/Os as under fio, so the two tools can be compared job for job.
#pragma once

#include <cstdint>

namespace vb {

class FioRand {
 public:
  // fio seeds its 32-bit generators with the seed's low 32 bits.
  void Seed(uint64_t seed) {
    const uint32_t s = static_cast<uint32_t>(seed);
    // fio's starting value is written (2^31)+(2^17)+(2^7) in C, where ^ is exclusive or: 53.
    s1_ = Lifted(Lcg(53, s), 1);
    s2_ = Lifted(Lcg(s1_, s), 7);
    s3_ = Lifted(Lcg(s2_, s), 15);
    for (int i = 0; i < 6; i++) Next();
  }

  uint32_t Next() {
    s1_ = Step(s1_, 13, 19, 0xfffffffeu, 12);
    s2_ = Step(s2_, 2, 25, 0xfffffff8u, 4);
    s3_ = Step(s3_, 3, 11, 0xfffffff0u, 17);
    return s1_ ^ s2_ ^ s3_;
  }

  // fio's rand_max + 1.0 for this generator.
  static constexpr double kRange = 4294967296.0;
  static constexpr uint64_t kMax = 0xffffffffu;

  // A uniform index in [0, n), as fio scales a draw: n · (r / 2^32), in double precision.
  uint64_t Below(uint64_t n) { return static_cast<uint64_t>(static_cast<double>(n) * (Next() / kRange)); }

  // fio's rand_between(1, 100): a percentage draw, 1 to 100.
  uint32_t Percent() { return 1 + static_cast<uint32_t>(100.0 * (Next() / kRange)); }

 private:
  static uint32_t Lcg(uint32_t x, uint32_t seed) { return (x * 69069u) ^ seed; }
  // taus88 needs its components above 1, 7 and 15 (L'Ecuyer's erratum); fio lifts a value under
  // the bound by the bound.
  static uint32_t Lifted(uint32_t x, uint32_t bound) { return x < bound ? x + bound : x; }
  static uint32_t Step(uint32_t s, unsigned a, unsigned b, uint32_t c, unsigned d) {
    return ((s & c) << d) ^ (((s << a) ^ s) >> b);
  }

  uint32_t s1_ = 0, s2_ = 0, s3_ = 0;
};

}  // namespace vb
