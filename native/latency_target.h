// fio's latency target (latency_target, latency_window, latency_percentile): the search for the
// deepest queue, up to iodepth, at which the job's I/Os complete within a total latency. The
// whole protocol, as fio 3.33 runs it (io_u.c lat_target_*, backend.c):
//
//   - The search starts at depth 1, between a low of 1 and a high of iodepth, and runs in
//     cycles of at least latency_window. An I/O over the target is a failure.
//   - At 100% (the default) a failure ramps down at once: the high becomes the depth, the depth
//     the middle of it and the low (the low one less when they meet), the queue drains before
//     the next cycle starts; a failure at depth 1 fails the job (ETIMEDOUT, as fio's
//     "max latency exceeded"). Under 100%, failures are counted, and a cycle whose share of
//     I/Os within the target is under the percentile ramps down the same way (at depth 1 it
//     keeps checking, the cycle going on).
//   - A cycle that meets the percentile ramps up: the low becomes the depth, which doubles
//     while the high is still iodepth, else goes half way to the high. A depth one under the
//     high three cycles running raises the high by one.
//   - A ramp up that leaves the depth where it was ends the search: the queue drains, the
//     job's statistics start over (fio's reset_all_stats, runtime included) and one more cycle
//     runs at that depth; the next success then ends the job, whose report is that last cycle.
//
// The job asks this class at each measured completion and at each window's end, and does what
// it answers: drain the queue, start its statistics over, or end.
#pragma once

#include <cstdint>

#include "plan.h"

namespace vb {

class LatencyTarget {
 public:
  // What the job must do after a completion or a window's end.
  enum Action : uint8_t {
    kNothing = 0,
    // Let the queue drain before the next I/O (the depth went down, or the final cycle comes).
    kQuiesce,
    // An I/O over the target at depth 1 with a percentile of 100: the job fails.
    kFatal,
    // The final cycle met the target: the job's I/O is over.
    kDone,
  };

  void Init(const JobPlan& plan) {
    target_ns_ = plan.latency_target_ns;
    window_ns_ = plan.latency_window_ns;
    percentile_ = plan.latency_percentile;
    io_depth_ = plan.io_depth;
    depth_ = io_depth_;
    end_run_ = false;
  }
  bool on() const { return target_ns_ != 0; }
  // The depth the queue may reach now (iodepth when there is no target).
  unsigned depth() const { return depth_; }
  uint64_t target_ns() const { return target_ns_; }
  // When the window's end is checked (UINT64_MAX: not searching).
  uint64_t NextDue() const { return on() && !quiescing_ ? cycle_start_ns_ + window_ns_ : UINT64_MAX; }
  bool quiescing() const { return quiescing_; }
  // The statistics start over once the queue has drained (the final cycle begins).
  bool reset_due() const { return reset_due_; }

  // fio's lat_target_init, at the start of measuring (and of the ramp); fio's lat_target_reset
  // when the statistics start over for the final cycle leaves the search as it is.
  void Start(uint64_t now, uint64_t ios) {
    if (!on() || end_run_) return;
    depth_ = 1;
    high_ = io_depth_;
    low_ = 1;
    stable_ = 0;
    quiescing_ = reset_due_ = false;
    NewCycle(now, ios);
  }

  // A measured I/O's total latency.
  Action Completed(uint64_t lat_ns) {
    if (lat_ns <= target_ns_) return kNothing;
    if (percentile_ < 100) {
      failed_++;
      return kNothing;
    }
    return RampDown() ? kQuiesce : kFatal;
  }

  // The window may have ended: `ios` the job's completions so far.
  Action Check(uint64_t now, uint64_t ios) {
    if (quiescing_ || now < cycle_start_ns_ + window_ns_) return kNothing;
    const uint64_t n = ios - cycle_ios_;
    // As fio's: no I/O in the window (0/0) is not a success.
    const double success = n ? 100.0 * static_cast<double>(n - failed_) / static_cast<double>(n) : -1;
    if (success >= percentile_) return RampUp(now, ios);
    // At depth 1 fio keeps the cycle and checks again: nothing changes.
    return RampDown() ? kQuiesce : kNothing;
  }

  // The queue has drained: the next cycle starts (after the statistics, when reset_due()).
  void Drained(uint64_t now, uint64_t ios) {
    quiescing_ = reset_due_ = false;
    NewCycle(now, ios);
  }

 private:
  void NewCycle(uint64_t now, uint64_t ios) {
    cycle_start_ns_ = now;
    cycle_ios_ = ios;
    failed_ = 0;
  }

  // fio's __lat_target_failed; false at depth 1, where it cannot go lower.
  bool RampDown() {
    if (depth_ == 1) return false;
    high_ = depth_;
    if (depth_ == low_) low_--;
    depth_ = (depth_ + low_) / 2;
    stable_ = 0;
    quiescing_ = true;
    return true;
  }

  // fio's lat_target_success.
  Action RampUp(uint64_t now, uint64_t ios) {
    const unsigned was = depth_;
    low_ = depth_;
    if (depth_ + 1 == high_ && ++stable_ >= 3) {
      high_++;
      stable_ = 0;
    }
    depth_ = high_ != io_depth_ ? (depth_ + high_) / 2 : depth_ * 2;
    if (depth_ > io_depth_) depth_ = io_depth_;
    if (depth_ == was) {
      if (end_run_) return kDone;
      end_run_ = true;
      quiescing_ = reset_due_ = true;
      return kQuiesce;
    }
    NewCycle(now, ios);
    return kNothing;
  }

  uint64_t target_ns_ = 0;
  uint64_t window_ns_ = 0;
  double percentile_ = 100;
  unsigned io_depth_ = 1;
  unsigned depth_ = 1;
  unsigned high_ = 1;
  unsigned low_ = 1;
  unsigned stable_ = 0;
  bool end_run_ = false;
  bool quiescing_ = false;
  bool reset_due_ = false;
  uint64_t cycle_start_ns_ = 0;
  uint64_t cycle_ios_ = 0;
  uint64_t failed_ = 0;
};

}  // namespace vb
