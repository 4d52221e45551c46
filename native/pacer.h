// Pacing of a job's I/O: a rate limit (rate, rate_iops) holds an I/O back until it is due, and
// think time pauses the job after every thinktime_blocks I/Os. The loop asks it about every
// I/O, so all of it is inline.
#pragma once

#include <cstdint>

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
  }

  // Rates count from here: the start of the ramp, and again the start of measuring.
  void Restart(uint64_t now) {
    start_ns_ = now;
    for (int d = 0; d < kDirs; d++) issued_ios_[d] = issued_bytes_[d] = 0;
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
  // evenly from the start.
  uint64_t RateDue(const IoUnit* u) const {
    const uint8_t d = u->ddir;
    if (d > kTrim) return 0;
    return DueAfter(d, issued_ios_[d] - 1, issued_bytes_[d] - u->len);
  }
  // When an I/O of direction d keeps its rates with `ios` I/Os and `bytes` issued before it
  // (0 for a direction without a rate: always due).
  uint64_t DueAfter(uint8_t d, uint64_t ios, uint64_t bytes) const {
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

  uint64_t think_ns_ = 0;
  uint64_t think_blocks_ = 1;
  uint64_t think_count_ = 0;
  bool think_pending_ = false;
  uint64_t think_until_ = 0;
};

}  // namespace vb
