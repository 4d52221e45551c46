// What a job tells about itself over time: bandwidth and IOPS samples per sample window (fio's
// bw_* and iops_* statistics), the per-second series that shows a volume's burst credits run
// out, fio's log files, and the counters the progress reporter reads. It works from the job's
// cumulative counters, so the I/O path only counts; the loop calls it when a window or an
// interval ends, and per I/O only to ask whether it wants per-I/O log lines.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "histogram.h"
#include "io_unit.h"
#include "job_result.h"
#include "lat_histograms.h"
#include "log_writer.h"
#include "plan.h"

namespace vb {

class Sampler {
 public:
  Sampler(const JobPlan& plan, JobResult& result, JobProgress& progress);

  // Once the histograms exist: the directions the job runs, where the series reads its p99
  // from, and the thread's start, which progress counts its elapsed time from.
  void Init(const bool dir_used[kDirs], const LatHistograms* hists, uint64_t thread_start_ns);
  // Opens the logs the plan names, in LogKind order, up to the first that fails: returns 0, or
  // that one's errno with `failed` its path and what was wrong with it in `why`.
  int OpenLogs(const std::string** failed, std::string* why);
  // Closes every log: returns 0, or the errno of the first that lost lines, with its path.
  int CloseLogs(const std::string** failed);

  // Measuring begins (again, after a ramp): samples and the series start over from `now`.
  void Begin(uint64_t now);
  uint64_t measure_start_ns() const { return measure_start_ns_; }
  // When the next sample window or series interval ends.
  uint64_t NextDue() const { return std::min(next_sample_ns_, next_series_ns_); }
  void Tick(uint64_t now) {
    if (now >= next_sample_ns_) TakeSamples(now);
    if (now >= next_series_ns_) TakeSeriesPoint(now);
  }
  // The I/O has ended: the series gets its last, shorter interval when that saw any I/O.
  void EndSeries(uint64_t now);
  // The averaged latency logs get their last, shorter window (fio's finalize_logs).
  void EndLogs(uint64_t now);
  // The final counters, for the progress report that follows the end.
  void PublishTotals();

  // A completed I/O's lines in the logs, when they are per I/O rather than averaged.
  void LogIo(const IoUnit* u, uint64_t now, uint64_t clat, uint64_t lat) {
    if (__builtin_expect(per_io_logs_, 0)) WriteIoLines(u, now, clat, lat, u->issue_ns - u->start_ns);
  }

 private:
  // fio's log files, in the order they are opened.
  enum LogKind : int { kBwLog, kIopsLog, kLatLog, kClatLog, kSlatLog, kLogKinds };

  const std::string& LogPath(LogKind kind) const;
  void TakeSamples(uint64_t now);
  void LogAverages(int d, uint64_t t_ms, uint64_t bw, uint64_t iops);
  void LogLatAverages(int d, uint64_t t_ms);
  void TakeSeriesPoint(uint64_t now);
  void FoldLastSeriesPoint();
  void WriteIoLines(const IoUnit* u, uint64_t now, uint64_t clat, uint64_t lat, uint64_t slat);

  const JobPlan& plan_;
  JobResult& result_;
  JobProgress& progress_;
  const LatHistograms* hists_ = nullptr;
  bool dir_used_[kDirs] = {false, false, false};
  uint64_t thread_start_ns_ = 0;
  uint64_t measure_start_ns_ = 0;

  // Sample windows: the counters at the last one.
  uint64_t next_sample_ns_ = UINT64_MAX;
  uint64_t last_sample_ns_ = 0;
  uint64_t sample_prev_bytes_[kDirs] = {}, sample_prev_ios_[kDirs] = {};
  LatStats sample_prev_lat_[kLatKinds][kDirs];

  // Series intervals: the counters (and the clat histogram) at the last one.
  uint64_t next_series_ns_ = UINT64_MAX;
  uint64_t last_series_ns_ = 0;
  uint64_t series_prev_bytes_[kDirs] = {}, series_prev_ios_[kDirs] = {}, series_prev_clat_sum_[kDirs] = {},
           series_prev_clat_n_[kDirs] = {};
  std::unique_ptr<Histogram> series_prev_hist_[kDirs];

  LogWriter logs_[kLogKinds];
  bool per_io_logs_ = false;
};

}  // namespace vb
