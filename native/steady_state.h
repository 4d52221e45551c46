// fio's steady state: once a second each job measures its IOPS and bandwidth; a group (one job,
// or every job of a reporting group with group_reporting) sums its members' and judges the
// last `dur` sums. When the criterion holds, every member's main phase ends, as at the end of
// its runtime. The judging happens in the job threads, on the counters they already keep: the
// samples fall on the job's own second boundaries, and a stop reaches the loops at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "plan.h"

namespace vb {

// What the report shows (fio's `steadystate` block): the last judgement and its window.
struct SteadyResult {
  bool attained = false;
  // The slope or the largest deviation, in percent of the mean when the limit is one.
  double criterion = 0, max_deviation = 0, slope = 0;
  // The window, oldest first; zeros where it never filled.
  std::vector<uint64_t> iops, bw;
};

class SteadyGroup {
 public:
  SteadyGroup(const SteadyPlan& plan, unsigned members);

  // A member's sample for its `tick`th second (from 0): the tick is judged once every member
  // still running has given its sample for it.
  void Add(uint64_t tick, uint64_t iops, uint64_t bw);
  // A member has ended; ticks that waited only for it are judged without it.
  void Leave();
  // Set once the criterion holds: the members' loops read it.
  const std::atomic<bool>& attained() const { return attained_; }
  SteadyResult Snapshot() const;

 private:
  struct Pending {
    uint64_t iops = 0, bw = 0;
    unsigned count = 0;
  };
  void JudgeReady();
  void Judge(uint64_t iops, uint64_t bw);

  const SteadyPlan plan_;
  mutable std::mutex mutex_;
  unsigned members_;
  // Ticks some member has reported and not all: pending_[0] is tick `first_pending_`.
  std::deque<Pending> pending_;
  uint64_t first_pending_ = 0;
  // The judged samples, oldest first, at most plan_.dur_s of them.
  std::deque<uint64_t> iops_, bw_;
  SteadyResult result_;
  std::atomic<bool> attained_{false};
};

// One job's side: its second boundaries and the counters at the last one.
class SteadyProbe {
 public:
  void Attach(SteadyGroup* group) { group_ = group; }
  SteadyGroup* group() const { return group_; }
  // Measuring begins: the first sample is `ramp_ns` later (fio's ss_ramp), or a second later.
  void Begin(uint64_t now, uint64_t ramp_ns);
  uint64_t NextDue() const { return next_ns_; }
  // `ios` and `bytes`: the job's totals over all directions since measuring began.
  void Tick(uint64_t now, uint64_t ios, uint64_t bytes);
  // The job has ended: the group stops waiting for it. Once.
  void End();
  bool Attained() const { return group_ && group_->attained().load(std::memory_order_relaxed); }

 private:
  SteadyGroup* group_ = nullptr;
  uint64_t next_ns_ = UINT64_MAX;
  uint64_t last_ns_ = 0;
  uint64_t prev_ios_ = 0, prev_bytes_ = 0;
  uint64_t tick_ = 0;
  // ss_ramp: the first boundary only takes the counters the window counts from.
  bool baseline_due_ = false;
  bool ended_ = false;
};

}  // namespace vb
