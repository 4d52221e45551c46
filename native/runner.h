// A run: the job instances of one stonewall group, started together on their own threads, and a
// coordinator thread that lays out files, reports progress about once a second and hands the
// results back to JavaScript. Only the JS thread touches Napi values; the other threads reach
// it through one thread-safe function.
#pragma once

#include <napi.h>
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "job.h"
#include "target.h"

namespace vb {

class Run;

// The live runs of one Node environment, so that cancel() finds them by id and an exiting
// process stops and joins them.
struct Registry {
  std::mutex mutex;
  std::map<uint32_t, Run*> runs;
  uint32_t next_id = 1;
};

class Run {
 public:
  // `stat_paths`: the block devices' counter files (sysfs `stat`) to read once the files are laid
  // out, before any job starts, as fio takes its disk_util baseline.
  Run(Registry* registry, uint32_t id, std::vector<JobPlan> plans, std::vector<std::string> stat_paths);
  ~Run();
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // Starts the coordinator; the promise settles when every job has ended.
  Napi::Promise Start(Napi::Env env, Napi::Function on_progress);
  // Stops all I/O; jobs end with partial results marked cancelled. Idempotent, any thread.
  void Cancel() { cancel_.store(true, std::memory_order_relaxed); }
  // Joins every thread this run started. Idempotent.
  void Join();

  uint32_t id() const { return id_; }

 private:
  struct Message;
  static void CallJs(Napi::Env env, Napi::Function fn, Message* msg);
  static void Finalize(Napi::Env env, void* data, Run* run);

  void Coordinate();
  // A job's thread has ended (not given up on): counts it done.
  void JobEnded();
  // Gives up on the jobs stuck in a call that does not return, once the run is cancelled or
  // their runtime is well over; they count as done.
  void AbandonStuckJobs(uint64_t now);
  void ClaimDevices();
  void Claim1(const FileTarget& f, const Forbidden& forbidden);
  void ReleaseDevices();
  // Whether one of `p`'s files is the block device `rdev` (written by the job: claimed).
  static bool UsesDevice(const JobPlan& p, uint64_t rdev);
  static bool WritesDevice(const JobPlan& p, uint64_t rdev);
  // The first block device `p` writes (0: none): the one whose claim a stuck job holds.
  static uint64_t FirstClaimedDevice(const JobPlan& p);
  // A copy of the run's claim on the first device `p` writes, for a job given up on; -1 when none.
  int ClaimCopyFor(const JobPlan& p) const;
  void UnlinkFiles();
  void LayOut();
  // Lays out file `i` of job `j` for every job file at its path; false when cancelled.
  bool LayOut1(size_t j, size_t i, const FileTarget& f);
  // Posts progress when the next report is due (during a layout, which holds this thread).
  void PostProgressIfDue();
  // Reads the counter files after the layout, with the layout's duration.
  void ReadStatsAfterLayout(uint64_t started_ns);
  void CreateLogs(size_t job);
  void PostProgress();
  void MaybePostStatus(uint64_t now);
  static bool JobEnded(const Job& job);
  void Settle(Napi::Env env);

  Registry* registry_;
  uint32_t id_;
  std::atomic<bool> cancel_{false};
  // Before jobs_, so that the jobs, which point at their groups, go first. (An abandoned job
  // outlives both; its thread no longer looks at its group or at the run's cancel flag.)
  std::vector<std::unique_ptr<SteadyGroup>> steady_groups_;
  // Shared with each job's thread: a job the run gives up on (stuck in a call to a device that
  // does not answer) outlives the run, until its thread's call returns.
  std::vector<std::shared_ptr<Job>> jobs_;
  // One per job, in the same order (empty where none could start).
  std::vector<std::thread> threads_;
  // Exclusive claims on the block devices the run writes (fd -1: the claim was refused).
  struct Claim {
    uint64_t rdev;
    int fd;
    PathRef ref;
  };
  std::vector<Claim> claims_;
  // The devices' counters as they were once the layout was done (empty: none was laid out), and
  // how long the layout took.
  std::vector<std::string> stat_paths_;
  std::vector<std::string> stats_after_layout_;
  uint64_t layout_ns_ = 0;
  bool laid_out_ = false;
  // Each file's layout as it goes (reserved up front: a meter's address does not move), and the
  // meter of each job's file (-1: none laid out for it).
  std::vector<LayoutMeter> layouts_;
  std::vector<int> layout_of_;
  // When the coordinator next reports progress (NowNs clock).
  uint64_t next_post_ns_ = 0;
  // Files the layout created, until the next progress report takes them to JavaScript.
  std::vector<CreatedFile> created_;
  std::thread coordinator_;
  std::mutex done_mutex_;
  std::condition_variable done_cv_;
  size_t done_count_ = 0;
  // When the coordinator first saw the cancel (0: not yet).
  uint64_t cancel_seen_ns_ = 0;
  // --status-interval: how often, when the next report is due, and the last one's number.
  uint64_t status_interval_ns_ = 0;
  uint64_t status_due_ns_ = UINT64_MAX;
  uint64_t status_index_ = 0;
  Napi::ThreadSafeFunction tsfn_;
  std::unique_ptr<Napi::Promise::Deferred> deferred_;
};

}  // namespace vb
