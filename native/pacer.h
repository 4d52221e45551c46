// Pacing of a job's I/O: a rate limit (rate, rate_iops) holds an I/O back until it is due, and
// think time pauses the job after every thinktime_blocks I/Os. The loop asks it about every
// I/O, so all of it is inline. A rate spaces I/Os evenly, or with rate_process=poisson by
// exponential gaps as fio draws them (backend.c usec_for_io): the I/Os of a Poisson process, whose
// count per second varies as much as its mean.
#pragma once

#include <cmath>
#include <cstdint>

#include "fio_rand.h"

#include "io_unit.h"
#include "plan.h"

namespace vb {

class Pacer {
 public:
  void Init(const JobPlan& plan) {
    rate_limited_ = false;
    for (int d = 0; d < kDirs; d++) {
      rate_iops_[d] = plan.rate_iops[d];
      rate_bytes_[d] = plan.rate_bytes[d];
      rate_limited_ |= rate_iops_[d] || rate_bytes_[d];
    }
    think_ns_ = plan.thinktime_ns;
    think_blocks_ = plan.thinktime_blocks;
    poisson_ = plan.rate_poisson && rate_limited_;
    for (int d = 0; d < kDirs; d++) {
      poisson_seed_[d] = plan.fio_seed_poisson[d];
      poisson_mean_us_[d] = PoissonMeanUs(plan, d);
    }
    Reseed();
  }
  // fio seeds the gaps again with its other draws (every loop under randrepeat).
  void Reseed() {
    for (int d = 0; d < kDirs; d++) poisson_rand_[d].Seed(poisson_seed_[d]);
  }

  // Rates count from here: the start of the ramp, and again the start of measuring.
  void Restart(uint64_t now) {
    start_ns_ = now;
    for (int d = 0; d < kDirs; d++) issued_ios_[d] = issued_bytes_[d] = poisson_due_us_[d] = 0;
  }

  // A prepared I/O of `bytes` in direction `d`: it counts toward that direction's rate, and
  // toward the next think time.
  void CountIssued(uint8_t d, uint32_t bytes) {
    issued_ios_[d]++;
    issued_bytes_[d] += bytes;
  }
  // I/Os issued in direction d (fio's io_issues), and in all, since the counts last restarted.
  uint64_t issued(uint8_t d) const { return issued_ios_[d]; }
  uint64_t issued_total() const { return issued_ios_[kRead] + issued_ios_[kWrite] + issued_ios_[kTrim]; }
  void CountThink() {
    if (think_ns_ && ++think_count_ >= think_blocks_) {
      think_count_ = 0;
      think_pending_ = true;
    }
  }

  // The direction of the next I/O of a job that draws `d`, as fio's rate_ddir: a direction ahead
  // of its rate gives way to the other when that one is due (or unlimited), and of two both
  // ahead, the one due first goes (Hold then waits for it). So rate_iops=300 on a 70/30 mix
  // gives 300 reads and 300 writes a second, each direction held to its own rate, not the
  // writes to what the reads' pace leaves them.
  uint8_t RateDir(uint8_t d, uint64_t now, bool mixed) const {
    if (!rate_limited_ || !mixed || d > kWrite) return d;
    const uint64_t due = DueAfter(d, issued_ios_[d], issued_bytes_[d]);
    if (due <= now) return d;
    const uint8_t other = d ^ 1;
    return DueAfter(other, issued_ios_[other], issued_bytes_[other]) < due ? other : d;
  }

  // Holds a just-prepared I/O that its rate says is not due yet; true when it did. A verify
  // pass is not paced, as fio's (and it counts nothing toward the rates).
  bool Hold(IoUnit* u, uint64_t now) {
    if (!rate_limited_ || u->phase == Phase::kVerify) return false;
    const uint64_t due = RateDue(u);
    if (due <= now) return false;
    held_ = u;
    held_due_ = due;
    return true;
  }
  IoUnit* held() const { return held_; }
  uint64_t held_due() const { return held_due_; }
  IoUnit* Release() {
    IoUnit* u = held_;
    held_ = nullptr;
    return u;
  }

  // Whether think time holds new I/O back now. A pause that is due starts once everything in
  // flight has completed, so that it separates the I/Os rather than overlapping them.
  bool Thinking(uint64_t now, unsigned inflight) {
    if (think_until_) {
      if (now < think_until_) return true;
      think_until_ = 0;
    }
    if (!think_pending_) return false;
    if (inflight == 0) {
      think_pending_ = false;
      think_until_ = now + think_ns_;
    }
    return true;
  }

  // When the held I/O is due or think time ends, or 0 when neither is pending.
  uint64_t Due() const { return held_ ? held_due_ : think_until_; }

 private:
  // The moment an I/O keeps its direction's rates: the I/Os (or bytes) issued before it, spread
  // evenly from the start; or under poisson, the gaps drawn for the I/Os before it added up
  // (and this one's gap drawn, which the next waits for).
  uint64_t RateDue(const IoUnit* u) {
    const uint8_t d = u->ddir;
    if (d > kTrim) return 0;
    if (poisson_) {
      if (!poisson_mean_us_[d]) return 0;
      const uint64_t due = start_ns_ + poisson_due_us_[d] * 1000;
      poisson_due_us_[d] += PoissonGapUs(d);
      return due;
    }
    return DueAfter(d, issued_ios_[d] - 1, issued_bytes_[d] - u->len);
  }
  // fio's gap: the mean interval in whole microseconds times -ln(u), u in (0, 1] from the
  // direction's generator, in single precision as fio computes it, truncated to microseconds.
  uint64_t PoissonGapUs(uint8_t d) {
    const double u = (poisson_rand_[d].Next() + 1.0) / FioRand::kRange;
    return static_cast<uint64_t>(static_cast<float>(poisson_mean_us_[d]) * -logf(static_cast<float>(u)));
  }
  // fio's mean interval: a second over the direction's IOPS (its byte rate over its smallest
  // block size), in whole microseconds; 0 for a direction without a rate.
  static uint64_t PoissonMeanUs(const JobPlan& plan, int d) {
    uint32_t min_bs = 0;
    for (const BsEntry& e : plan.bs[d]) min_bs = min_bs == 0 || e.bs < min_bs ? e.bs : min_bs;
    const uint64_t iops = plan.rate_bytes[d] && min_bs ? plan.rate_bytes[d] / min_bs : plan.rate_iops[d];
    return iops ? 1000000 / iops : 0;
  }
  // When an I/O of direction d keeps its rates with `ios` I/Os and `bytes` issued before it
  // (0 for a direction without a rate: always due).
  uint64_t DueAfter(uint8_t d, uint64_t ios, uint64_t bytes) const {
    if (poisson_) return poisson_mean_us_[d] ? start_ns_ + poisson_due_us_[d] * 1000 : 0;
    uint64_t due = 0;
    if (rate_iops_[d]) {
      due = start_ns_ + static_cast<uint64_t>(static_cast<unsigned __int128>(ios) * 1000000000u / rate_iops_[d]);
    }
    if (rate_bytes_[d]) {
      const uint64_t t =
          start_ns_ + static_cast<uint64_t>(static_cast<unsigned __int128>(bytes) * 1000000000u / rate_bytes_[d]);
      due = t > due ? t : due;
    }
    return due;
  }

  bool rate_limited_ = false;
  uint64_t rate_iops_[kDirs] = {};
  uint64_t rate_bytes_[kDirs] = {};
  uint64_t start_ns_ = 0;
  uint64_t issued_ios_[kDirs] = {};
  uint64_t issued_bytes_[kDirs] = {};
  IoUnit* held_ = nullptr;
  uint64_t held_due_ = 0;

  bool poisson_ = false;
  uint64_t poisson_mean_us_[kDirs] = {};
  // When the direction's next I/O is due, in microseconds from the start.
  uint64_t poisson_due_us_[kDirs] = {};
  uint64_t poisson_seed_[kDirs] = {};
  FioRand poisson_rand_[kDirs];

  uint64_t think_ns_ = 0;
  uint64_t think_blocks_ = 1;
  uint64_t think_count_ = 0;
  bool think_pending_ = false;
  uint64_t think_until_ = 0;
};

}  // namespace vb
