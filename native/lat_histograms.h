// The latency histograms a job keeps, allocated once before the first I/O: per latency kind and
// direction in use (clat always, slat and lat when asked for, none for a disabled kind), and
// one for fsync/fdatasync when the job syncs.
#pragma once

#include <memory>
#include <vector>

#include "histogram.h"
#include "job_result.h"
#include "plan.h"

namespace vb {

class LatHistograms {
 public:
  void Allocate(const JobPlan& plan, const bool dir_used[kDirs]) {
    bool want[kLatKinds];
    want[kSlat] = plan.hist_slat && !plan.disable_slat;
    want[kClat] = !plan.disable_clat;
    want[kLat] = plan.hist_lat && !plan.disable_lat;
    for (int d = 0; d < kDirs; d++) {
      if (!dir_used[d]) continue;
      for (int k = 0; k < kLatKinds; k++) {
        if (!want[k]) continue;
        store_.push_back(std::make_unique<Histogram>());
        lat_[k][d] = store_.back().get();
      }
    }
    if (plan.fsync_every || plan.fdatasync_every) sync_ = std::make_unique<Histogram>();
    Clear();
  }

  void Clear() {
    for (auto& h : store_) h->Clear();
    if (sync_) sync_->Clear();
  }

  // Null when the job does not keep that histogram.
  Histogram* at(LatKind kind, int dir) const { return lat_[kind][dir]; }
  Histogram* sync() const { return sync_.get(); }

 private:
  std::vector<std::unique_ptr<Histogram>> store_;
  Histogram* lat_[kLatKinds][kDirs] = {};
  std::unique_ptr<Histogram> sync_;
};

}  // namespace vb
