#include "steady_state.h"

#include <cmath>

namespace vb {

SteadyGroup::SteadyGroup(const SteadyPlan& plan, unsigned members) : plan_(plan), members_(members) {
  result_.iops.assign(plan.dur_s, 0);
  result_.bw.assign(plan.dur_s, 0);
}

void SteadyGroup::Add(uint64_t tick, uint64_t iops, uint64_t bw) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (attained_.load(std::memory_order_relaxed) || tick < first_pending_) return;
  while (first_pending_ + pending_.size() <= tick) pending_.emplace_back();
  Pending& p = pending_[tick - first_pending_];
  p.iops += iops;
  p.bw += bw;
  p.count++;
  JudgeReady();
}

void SteadyGroup::Leave() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (members_) members_--;
  JudgeReady();
}

void SteadyGroup::JudgeReady() {
  while (!pending_.empty() && pending_.front().count > 0 && pending_.front().count >= members_ &&
         !attained_.load(std::memory_order_relaxed)) {
    const Pending p = pending_.front();
    pending_.pop_front();
    first_pending_++;
    Judge(p.iops, p.bw);
  }
}

void SteadyGroup::Judge(uint64_t iops, uint64_t bw) {
  const size_t n = plan_.dur_s;
  iops_.push_back(iops);
  bw_.push_back(bw);
  if (iops_.size() > n) {
    iops_.pop_front();
    bw_.pop_front();
  }
  for (size_t i = 0; i < n; i++) {
    result_.iops[i] = i < iops_.size() ? iops_[i] : 0;
    result_.bw[i] = i < bw_.size() ? bw_[i] : 0;
  }
  if (iops_.size() < n) return;
  const std::deque<uint64_t>& y = plan_.bw ? bw_ : iops_;
  double mean = 0;
  for (uint64_t v : y) mean += static_cast<double>(v);
  mean /= static_cast<double>(n);
  double value;
  if (plan_.slope) {
    // Least squares over x = 0..n-1 (seconds): how much the metric still moves per second.
    const double xm = static_cast<double>(n - 1) / 2;
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
      const double dx = static_cast<double>(i) - xm;
      sxy += dx * (static_cast<double>(y[i]) - mean);
      sxx += dx * dx;
    }
    result_.slope = sxx > 0 ? sxy / sxx : 0;
    result_.max_deviation = 0;
    value = result_.slope;
  } else {
    double dev = 0;
    for (uint64_t v : y) dev = std::max(dev, std::fabs(static_cast<double>(v) - mean));
    result_.max_deviation = dev;
    result_.slope = 0;
    value = dev;
  }
  result_.criterion = plan_.percent ? (mean > 0 ? value * 100 / mean : 0) : value;
  // Below the limit, strictly: fio keeps going at iops:0 even when every sample is the same.
  // A falling metric is as unsteady as a rising one, so the slope counts by its size.
  const bool still = mean > 0 || !plan_.percent;
  if (still && std::fabs(result_.criterion) < plan_.limit) {
    result_.attained = true;
    attained_.store(true, std::memory_order_relaxed);
  }
}

SteadyResult SteadyGroup::Snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return result_;
}

void SteadyProbe::Begin(uint64_t now, uint64_t ramp_ns) {
  if (!group_) return;
  prev_ios_ = prev_bytes_ = 0;
  last_ns_ = now;
  tick_ = 0;
  baseline_due_ = ramp_ns > 0;
  next_ns_ = now + (ramp_ns ? ramp_ns : 1000000000ull);
}

void SteadyProbe::Tick(uint64_t now, uint64_t ios, uint64_t bytes) {
  if (now < next_ns_) return;
  if (!baseline_due_) {
    const double dt = static_cast<double>(now - last_ns_);
    // fio's samples are whole IOPS and bytes/s over the second.
    const auto rate = [dt](uint64_t n) { return static_cast<uint64_t>(static_cast<double>(n) * 1e9 / dt); };
    group_->Add(tick_++, rate(ios - prev_ios_), rate(bytes - prev_bytes_));
  }
  baseline_due_ = false;
  prev_ios_ = ios;
  prev_bytes_ = bytes;
  last_ns_ = now;
  next_ns_ += 1000000000ull;
  if (next_ns_ <= now) next_ns_ = now + 1000000000ull;
}

void SteadyProbe::End() {
  if (!group_ || ended_) return;
  ended_ = true;
  next_ns_ = UINT64_MAX;
  group_->Leave();
}

}  // namespace vb
