// fio's --status-interval: the full report, every interval, while the run goes on. A job's
// statistics belong to its own thread, so the job copies them itself when an interval ends (a
// time-driven event of its loop, like a sample window) into its slot, and the run's thread
// takes the copy from there: nobody reads counters another thread is writing.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "histogram.h"
#include "job_result.h"
#include "lat_histograms.h"

namespace vb {

// A job's statistics as of one moment: its result, with the runtimes and CPU figures it would
// have had it ended then, and copies of its histograms.
struct StatusSnapshot {
  JobResult result;
  // Present where the job keeps that histogram (LatHistograms), else null.
  std::unique_ptr<Histogram> hists[kLatKinds][kDirs];
  std::unique_ptr<Histogram> sync;

  const Histogram* hist(LatKind kind, int dir) const { return hists[kind][dir].get(); }
  const Histogram* sync_hist() const { return sync.get(); }
};

class StatusSlot {
 public:
  // The job's thread: its statistics as of the interval `index` (from 1).
  void Put(uint64_t index, const JobResult& result, const LatHistograms& hists) {
    std::lock_guard<std::mutex> lock(mutex_);
    snap_.result = result;
    for (int k = 0; k < kLatKinds; k++)
      for (int d = 0; d < kDirs; d++) Copy(hists.at(static_cast<LatKind>(k), d), &snap_.hists[k][d]);
    Copy(hists.sync(), &snap_.sync);
    index_.store(index, std::memory_order_release);
  }

  // The run's thread: the last interval the job has put (0: none).
  uint64_t index() const { return index_.load(std::memory_order_acquire); }
  // A copy of what the job put last.
  std::unique_ptr<StatusSnapshot> Take() const {
    auto out = std::make_unique<StatusSnapshot>();
    std::lock_guard<std::mutex> lock(mutex_);
    out->result = snap_.result;
    for (int k = 0; k < kLatKinds; k++)
      for (int d = 0; d < kDirs; d++) Copy(snap_.hists[k][d].get(), &out->hists[k][d]);
    Copy(snap_.sync.get(), &out->sync);
    return out;
  }

 private:
  static void Copy(const Histogram* from, std::unique_ptr<Histogram>* to) {
    if (from == nullptr) {
      to->reset();
      return;
    }
    if (!*to) *to = std::make_unique<Histogram>();
    **to = *from;
  }

  mutable std::mutex mutex_;
  StatusSnapshot snap_;
  std::atomic<uint64_t> index_{0};
};

}  // namespace vb
