// One job instance: its own thread, target fd, buffers, engine and statistics. Everything it
// needs is allocated before the first I/O; the hot loop (job_loop.h) only updates counters.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "histogram.h"
#include "io_unit.h"
#include "log_writer.h"
#include "offsets.h"
#include "pacer.h"
#include "plan.h"
#include "rng.h"
#include "stats.h"
#include "verifier.h"

namespace vb {

constexpr int kDepthBuckets = 7;

// The three latencies of an I/O, fio's names: submission, completion, and both together.
enum LatKind : int { kSlat, kClat, kLat, kLatKinds };
// A final series interval shorter than this joins the one before it.
constexpr uint64_t kMinSeriesTailNs = 200000000;

struct DirResult {
  uint64_t bytes = 0, ios = 0, short_ios = 0, drop_ios = 0, runtime_ns = 0;
  LatStats slat, clat, lat;
  SampleStats bw, iops;
};

struct SeriesDir {
  uint64_t ios = 0, bytes = 0;
  double clat_mean_ns = 0;
  uint64_t clat_p99_ns = 0;
};

struct SeriesPoint {
  uint64_t t_ms = 0, dur_ms = 0;
  SeriesDir dirs[kDirs];
};

// Where a job is in its life. Progress reports the first seven by name; draining and stopping
// are the job's own, and progress goes on showing the phase before them.
enum class Phase : int {
  kPending,
  kLayout,
  kStartDelay,
  kRamp,
  kRunning,
  kVerify,
  kDone,
  // The main phase has ended (its size or runtime reached): what is in flight completes, nothing
  // new starts, and a verify pass may follow.
  kDraining,
  // Cancelled, or failed: what is in flight completes, nothing new starts, no verify pass.
  kStopping,
};
const char* PhaseName(Phase p);

struct JobResult {
  EngineKind engine = EngineKind::kNull;
  bool engine_set = false;
  int error = 0;
  std::string error_syscall, error_message;
  bool cancelled = false;
  uint64_t started_at_ms = 0;
  uint64_t runtime_ns = 0, elapsed_ns = 0;
  DirResult dirs[kDirs];
  uint64_t sync_ios = 0;
  LatStats sync_lat;
  uint64_t usr_ns = 0, sys_ns = 0, ctx = 0, majf = 0, minf = 0;
  uint64_t depth_level[kDepthBuckets] = {}, depth_submit[kDepthBuckets] = {}, depth_complete[kDepthBuckets] = {};
  std::vector<SeriesPoint> series;
};

// What the progress reporter reads while the job runs (at most every sample window).
struct JobProgress {
  std::atomic<int> phase{static_cast<int>(Phase::kPending)};
  std::atomic<uint64_t> ios[kDirs] = {};
  std::atomic<uint64_t> bytes[kDirs] = {};
  std::atomic<uint64_t> elapsed_ms{0};
  std::mutex last_mutex;
  bool has_last = false;
  SeriesPoint last;
};

class Job {
 public:
  Job(JobPlan plan, const std::atomic<bool>* cancel);
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // Thread body: open, set up, run, tear down. Never throws.
  void Run();

  const JobPlan& plan() const { return plan_; }
  JobResult& result() { return result_; }
  JobProgress& progress() { return progress_; }
  const Histogram* hist(LatKind kind, int dir) const;
  const Histogram* sync_hist() const { return sync_hist_.get(); }
  // Fails the job before it starts (its target could not be laid out or claimed, or its thread
  // could not start).
  void FailEarly(int err, const char* syscall, const std::string& message);

 private:
  template <class E>
  friend class JobLoop;

  bool Open();
  bool AllocateUnits();
  template <class E>
  bool TryEngine(int* setup_err);
  void SleepCancellable(uint64_t ns);
  void BeginMeasuring(uint64_t now);
  void HandleEvents(uint64_t now);
  void TakeSamples(uint64_t now);
  void TakeSeriesPoint(uint64_t now);
  void FoldLastSeriesPoint();
  void ScheduleNextEvent();
  void Finish(uint64_t now);
  void SetError(int err, const char* syscall, const std::string& message);
  // Stops the job and records the first error only: later ones follow from it.
  void Fail(int err, const char* syscall, std::string message);
  void EnterPhase(Phase next);
  bool Stopping() const { return phase_ == Phase::kStopping; }
  // Nothing new is issued or waited for: the main phase has ended with no verify pass running,
  // or the job stops.
  bool IssuingOver() const { return phase_ == Phase::kDraining || phase_ == Phase::kStopping; }
  inline void PollCancel();
  void WriteIoLogLines(const IoUnit* u, uint64_t now, uint64_t clat, uint64_t lat, uint64_t slat);

  // Hot path, defined inline in job_loop.h.
  inline bool Prep(IoUnit* u);
  inline void Complete(IoUnit* u, uint64_t now);
  inline bool CanStartNew(uint64_t now);

  // When a wait for a held (rate-limited) I/O or for the end of think time must end: its due
  // time, or sooner when the next event (a sample window, the end of the runtime) comes first.
  // 0 when there is nothing to wait for.
  uint64_t WakeTime() const {
    if (IssuingOver()) return 0;
    const uint64_t due = pacer_.Due();
    return due && next_event_ns_ < due ? next_event_ns_ : due;
  }
  // Called when nothing is in flight and nothing can start: begins the verify pass when one is
  // due and returns true, else returns false (the job is over).
  bool StartVerifyIfDue();
  void FailIo(const IoUnit* u, int err);
  // A size-based job has issued its last I/O (no loop and no block left).
  bool LastIoIssued() const {
    return !plan_.time_based && loops_done_ + 1 >= plan_.loops && loop_bytes_issued_ + min_bs_ > plan_.io_bytes_per_loop;
  }
  void VerifyRead(const IoUnit* u);

  JobPlan plan_;
  const std::atomic<bool>* cancel_;
  JobResult result_;
  JobProgress progress_;

  int fd_ = -1;
  char* buffers_ = nullptr;
  uint64_t buffer_bytes_ = 0;
  uint32_t unit_bytes_ = 0;
  std::vector<IoUnit> units_;
  std::vector<IoUnit*> free_;
  unsigned nfree_ = 0;
  std::vector<IoUnit*> retry_;
  unsigned nretry_ = 0;
  unsigned inflight_ = 0;

  Rng rng_;
  OffsetGen offsets_;
  // Cumulative bs tables per direction: pick by a draw in [0, 100).
  std::vector<uint32_t> bs_pick_[kDirs];
  uint32_t fixed_bs_[kDirs] = {0, 0, 0};
  // Smallest block size of the directions in use.
  uint32_t min_bs_ = 0;

  // Where the job is; it changes only in EnterPhase().
  Phase phase_ = Phase::kPending;
  uint64_t thread_start_ns_ = 0;
  uint64_t measure_start_ns_ = 0;
  // When ramp_time ends, while it runs; 0 once measuring. A timer rather than the ramp phase:
  // a size-based job can issue all its bytes inside the ramp, and measuring still begins at its
  // end.
  uint64_t ramp_end_ns_ = 0;
  uint64_t end_ns_ = UINT64_MAX;
  uint64_t loop_bytes_issued_ = 0;
  uint64_t loops_done_ = 0;
  uint64_t writes_since_sync_ = 0;
  bool sync_due_ = false;
  Pacer pacer_;
  uint64_t write_salt_ = 0;

  Verifier verifier_;

  // Time-driven work: samples, series, runtime end; one comparison per loop iteration.
  uint64_t next_event_ns_ = UINT64_MAX;
  uint64_t next_sample_ns_ = UINT64_MAX;
  uint64_t next_series_ns_ = UINT64_MAX;
  uint64_t last_sample_ns_ = 0;
  uint64_t last_series_ns_ = 0;
  uint64_t sample_prev_bytes_[kDirs] = {}, sample_prev_ios_[kDirs] = {};
  LatStats sample_prev_lat_[kLatKinds][kDirs];
  uint64_t series_prev_bytes_[kDirs] = {}, series_prev_ios_[kDirs] = {}, series_prev_clat_sum_[kDirs] = {},
           series_prev_clat_n_[kDirs] = {};
  std::unique_ptr<Histogram> series_prev_hist_[kDirs];

  // Histograms that are kept (null when not), by LatKind and direction.
  std::vector<std::unique_ptr<Histogram>> hist_store_;
  Histogram* hist_[kLatKinds][kDirs] = {};
  std::unique_ptr<Histogram> sync_hist_;
  bool dir_used_[kDirs] = {false, false, false};

  // fio's log files, in the order they are opened.
  enum LogKind : int { kBwLog, kIopsLog, kLatLog, kClatLog, kSlatLog, kLogKinds };
  LogWriter logs_[kLogKinds];
  bool per_io_logs_ = false;

  uint64_t usr_start_ns_ = 0, sys_start_ns_ = 0, ctx_start_ = 0, majf_start_ = 0, minf_start_ = 0;
};

}  // namespace vb
