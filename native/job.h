// One job instance: its own thread, target fd, buffers, engine and statistics. Everything it
// needs is allocated before the first I/O; the hot loop (job_loop.h) only updates counters.
// Each concern has a type of its own: the I/O slots (UnitPool), block sizes, pacing, verify,
// and sampling; Job holds the phase and ties them together.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "block_sizes.h"
#include "file_set.h"
#include "fio_rand.h"
#include "histogram.h"
#include "io_unit.h"
#include "job_result.h"
#include "lat_histograms.h"
#include "latency_target.h"
#include "offsets.h"
#include "pacer.h"
#include "plan.h"
#include "rng.h"
#include "sampler.h"
#include "stall.h"
#include "status.h"
#include "steady_state.h"
#include "unit_pool.h"
#include "verifier.h"

namespace vb {

struct EngineSetup;

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
  const Histogram* hist(LatKind kind, int dir) const { return hists_.at(kind, dir); }
  const Histogram* sync_hist() const { return hists_.sync(); }
  // Fails the job before it starts (its target could not be laid out or claimed, or its thread
  // could not start).
  void FailEarly(int err, const char* syscall, const std::string& message);
  // The file the run laid out for this job as its file `i` (0: its target; others: more_files),
  // which its open must find: set before the job starts.
  void ExpectFile(size_t i, const Expect& file) {
    if (i == 0) plan_.expect = file;
    else plan_.more_files[i - 1].expect = file;
  }
  // The log (LogKind order) the run's layout created for this job, which its open must find.
  void ExpectLog(int kind, const Expect& file) { plan_.log_expects[kind] = file; }
  // The regular file the job opened as its file `i` (0 when it opened none, or a device): what
  // unlink may remove.
  uint64_t opened_dev(size_t i = 0) const { return i < files_.size() ? files_[i].dev : 0; }
  uint64_t opened_ino(size_t i = 0) const { return i < files_.size() ? files_[i].ino : 0; }
  // --status-interval: the job puts its statistics in its slot every plan().status_interval_ns
  // from `epoch_ns` (the run's start, the same for every job); set before the job starts.
  void StartStatus(uint64_t epoch_ns);
  const StatusSlot& status() const { return status_; }
  // The phase progress shows (Phase::kDone once the job's result is final), from any thread.
  Phase progress_phase() const { return static_cast<Phase>(progress_.phase.load(std::memory_order_acquire)); }
  // The steady-state group the job samples for (plan().steady); set before the job starts.
  void JoinSteady(SteadyGroup* group) { steady_.Attach(group); }
  const SteadyGroup* steady_group() const { return steady_.group(); }

  // Sets engine E up and runs the job on it, to the end; false, with *setup_err, when E's setup
  // fails. Defined in job_loop.h.
  template <class E>
  bool RunWith(const void* options, int* setup_err);

  // What the loop (job_loop.h) asks of the job, inline in job_io.h. The loop drives the engine;
  // the job decides what to issue and what each completion means.
  inline void PollCancel();
  // Takes the next I/O to queue into `u`, counted in flight; false when none may start now.
  // Always inlined: it is the loop's own logic, kept here because it reads the job's state
  // (and a bool, unlike a pointer the compiler cannot prove non-null, costs the loop no test).
  template <bool kClockPerIo>
  [[gnu::always_inline]] inline bool NextIo(uint64_t now, IoUnit*& u);
  [[gnu::always_inline]] inline void Complete(IoUnit* u, uint64_t now);
  unsigned inflight() const { return inflight_; }
  // The queue is as deep as it may be: iodepth, or the depth fio's latency target allows now (0
  // while the queue drains). (A member read each time: a local copy of the depth would cost the
  // loop a register it spills.)
  bool QueueFull() const { return inflight_ >= depth_limit_; }
  unsigned depth_limit() const { return depth_limit_; }
  // Nothing is in flight or waiting to be sent again.
  bool Idle() const { return inflight_ == 0 && !units_.HasResend(); }
  // Time-driven work, when some is due: one comparison per call.
  void Tick(uint64_t now) {
    if (now >= next_event_ns_) HandleEvents(now);
  }
  // When a wait for a held (rate-limited) I/O or for the end of think time must end: its due
  // time, or sooner when the next event (a sample window, the end of the runtime) comes first.
  // 0 when there is nothing to wait for.
  uint64_t WakeTime() const {
    if (IssuingOver()) return 0;
    const uint64_t due = pacer_.Due();
    return due && next_event_ns_ < due ? next_event_ns_ : due;
  }
  // Called when the job is idle and nothing could start: waits for the held I/O or think time
  // to come due, or begins the verify pass; false when the job's I/O is over.
  bool AwaitNext(uint64_t now);
  // The engine could not submit: the job fails, and the engine's teardown waits for or cancels
  // whatever is still in flight.
  void FailSubmit(int err, const char* syscall);

  // A stalled device can hold a call forever: a sync engine's I/O, an asynchronous engine's
  // submission or wait. The loop brackets those calls (stall.h tells the protocol), so that the
  // run can give up on a job stuck in one, finish its result from what it had done, and go on.
  void EnterBlocking(uint64_t now) { stall_.Enter(now); }
  // False when the run gave up on the job while it was inside the call that began at `now`
  // (`failed`: the call returned an error): the job stops, here on its own thread.
  bool LeaveBlocking(uint64_t now, bool failed) {
    if (__builtin_expect(stall_.Leave(now, failed), 1)) return true;
    EnterPhase(Phase::kStopping);
    return false;
  }
  const Stall& stall() const { return stall_; }
  // From the run's thread: gives up on the job if it is still inside the call that began at
  // `since`, and finishes its result (cancelled, or failed with ETIMEDOUT when it overran its
  // runtime); `claim_fd` (-1: none), a copy of the run's exclusive claim on the job's device,
  // stays open until the job's thread ends, so nothing else claims the device while the stuck
  // I/O may still write. False when the call returned meanwhile (the job goes on as usual) or
  // the process already holds as many stuck threads as it may (the run waits for the device).
  bool Abandon(uint64_t since, uint64_t now, bool cancelled, int claim_fd);

 private:
  bool Open();
  bool OpenFile(size_t i);
  void CloseFiles();
  // File `i`'s size as opened, for percentage_random's sequential runs (offsets.h); 0 when the
  // job opened nothing.
  uint64_t FileBytes(size_t i) const;
  bool AllocateUnits();
  // Each file's offsets over its own region (file 0's are offsets_).
  const char* InitOffsets(const bool dir_used[kDirs], uint64_t seed);
  OffsetGen& OffsetsOf(int i) { return i == 0 ? offsets_ : files_[i].offsets; }
  EngineSetup SetupFor();
  void RunEngines();
  // sched_setaffinity to plan_.cpus; the job fails when the kernel refuses.
  void PinToCpus();
  void Start();
  // Waits until `deadline_ns`, or stops the job when it is cancelled meanwhile.
  void SleepUntil(uint64_t deadline_ns);
  // invalidate=1: drops the region's cached pages, as fio does where it (re)opens the target
  // (the job's start, every loop, the verify pass) and where a pass wraps around.
  void DropCache();
  static void DropFileCache(const JobFile& f);
  // fadvise_hint: posix_fadvise of the job's pattern on an opened file.
  void Advise(const JobFile& f);
  static void DropCacheAtPassEnd(void* file) { DropFileCache(*static_cast<const JobFile*>(file)); }
  void BeginMeasuring(uint64_t now);
  void HandleEvents(uint64_t now);
  void ScheduleNextEvent();
  // The main phase's I/O is over: end_fsync, as fio's do_io ends, and the main phase's runtime
  // stops. Once per job.
  void EndMainPhase();
  // Closes the result: runtimes, series, totals. `abandoned_at` 0: on the job's own thread at
  // its end. Else on the run's thread, for a job given up on at that moment, whose thread is
  // parked in a call: no end_fsync (the device does not answer) and no CPU figures (they are
  // the calling thread's).
  void Finish(uint64_t abandoned_at);
  // What the run records of a job it gives up on, then Finish; on the run's thread.
  void GiveUp(uint64_t now, bool cancelled);
  // The abandoned job's thread: waits for its I/Os still in flight, then the engine tears down.
  template <class E>
  void DrainAbandoned(E& eng);
  // Each direction's runtime as of `now`, the main phase having ended at `main_end_ns`.
  void SetDirRuntimes(JobResult& r, uint64_t now, uint64_t main_end_ns) const;
  void TakeStatus(uint64_t now);
  void SetError(int err, const char* syscall, const std::string& message);
  // Stops the job and records the first error only: later ones follow from it.
  void Fail(int err, const char* syscall, std::string message);
  // Records the error when it is the first, without a change of phase.
  void RecordError(int err, const char* syscall, std::string message);
  void FailIo(const IoUnit* u, int err);
  void VerifyRead(const IoUnit* u);
  // fio's latency target (latency_target.h): a measured I/O's total latency, a window's end, and
  // the end of a drain it asked for.
  void LatencyCompleted(const IoUnit* u, uint64_t lat);
  void LatencyWindow(uint64_t now);
  void LatencyDrained(uint64_t now);
  // Completed I/Os measured so far, every direction.
  uint64_t MeasuredIos() const;
  // The queue depth the job is at: iodepth, or where the latency target's search is.
  uint32_t LatencyDepth() const { return lat_target_.on() ? lat_target_.depth() : plan_.io_depth; }

  void EnterPhase(Phase next);
  bool Stopping() const { return phase_ == Phase::kStopping; }
  // Nothing new is issued or waited for: the main phase has ended with no verify pass running,
  // or the job stops. These are the last two phases, so one comparison tells.
  bool IssuingOver() const { return phase_ >= Phase::kDraining; }
  // Begins the verify pass, when the main phase has ended and one is due; false when not.
  bool StartVerifyIfDue();

  // Hot path, inline in job_io.h.
  inline bool CanStartNew(uint64_t now);
  [[gnu::always_inline]] inline bool Prep(IoUnit* u, uint64_t now);
  // Prep's where and how much for a job of several files: the file fio's service picks, then
  // the direction, the offset and the size in it; a file with no block left is done for the
  // pass, and the pass is over when every file is.
  bool PrepInFiles(IoUnit* u, uint64_t now, uint8_t* d, uint64_t* offset, uint32_t* len);
  inline uint8_t NextDir(uint64_t now);
  inline bool LoopHasRoom();
  // The loop's bytes are issued: the next loop begins (false: that was the last, and the main
  // phase ends).
  bool NextLoop();
  // fio's random map had no block for the next I/O: the pass ends early, and another begins
  // where fio would start one (false: the main phase ends).
  bool PassOver();
  // A new pass over the region: fio's draws seeded again (randrepeat), the random map emptied,
  // the cache dropped (invalidate).
  void NewPass();
  inline void PrepWrite(IoUnit* u, uint64_t now);
  inline void CompleteSync(IoUnit* u, uint64_t now);
  [[gnu::always_inline]] inline void Account(const IoUnit* u, uint64_t now);
  inline void AccountAsAsked(const IoUnit* u, DirResult& a, uint64_t clat, uint64_t lat);
  // A size-based job has issued all its bytes (the last loop's). fio's loop goes on while bytes
  // are left, even when no block fits any more (size=22m at bs=2300): it syncs after the last
  // write then, and finds no block after that.
  bool LastIoIssued() const {
    return !plan_.time_based && loops_done_ + 1 >= plan_.loops && loop_bytes_issued_ >= plan_.io_bytes_per_loop;
  }

  JobPlan plan_;
  const std::atomic<bool>* cancel_;
  JobResult result_;
  JobProgress progress_;
  // The job's files, opened (file 0 is its target, and a job of one file has only that one).
  FileSet files_;
  bool several_files_ = false;

  // Where the job is; it changes only in EnterPhase().
  Phase phase_ = Phase::kPending;
  uint64_t thread_start_ns_ = 0;
  // When ramp_time ends, while it runs; 0 once measuring. A timer rather than the ramp phase:
  // a size-based job can issue all its bytes inside the ramp, and measuring still begins at its
  // end.
  uint64_t ramp_end_ns_ = 0;
  // When the runtime ends, once measuring.
  uint64_t end_ns_ = UINT64_MAX;
  // When the main phase's I/O was over (0 until then) and when the verify pass began (0 when
  // none did): fio times each phase, and a direction's runtime is that of the phases it ran in.
  uint64_t main_end_ns_ = 0;
  uint64_t verify_start_ns_ = 0;
  // Time-driven work (the ramp's end, sample windows, series intervals, the runtime's end):
  // the earliest of them, so that the loop makes one comparison per iteration.
  uint64_t next_event_ns_ = UINT64_MAX;

  // What to issue next: in which slot, where, how big, how far through its loops, and whether
  // a sync point is due.
  UnitPool units_;
  unsigned inflight_ = 0;
  // What QueueFull() compares with: iodepth, or the latency target's depth.
  unsigned depth_limit_ = 1;
  LatencyTarget lat_target_;
  // The workload's draws (offsets, sizes, directions)...
  Rng rng_;
  // ...and the written data's (buffer contents, verify salts), apart as fio keeps them, so
  // that a job's offsets do not depend on whether or how it fills buffers: a read job and the
  // write job before it draw the same offsets from the same seed.
  Rng buf_rng_;
  // File 0's offsets (the loop's fast path; other files keep theirs in their JobFile).
  OffsetGen offsets_;
  BlockSizes sizes_;
  uint64_t loop_bytes_issued_ = 0;
  uint64_t loops_done_ = 0;
  // The last count of the loop's bytes at which an I/O may start (negative: none can; the
  // largest value: the loop never fills).
  int64_t loop_last_start_ = INT64_MAX;
  // The I/Os issued when this pass over the region began (UINT64_MAX: unknown since the
  // counts restarted), to tell a pass that issued nothing.
  uint64_t pass_start_ = UINT64_MAX;
  // Latencies as fio measures them by default (none disabled, no histogram but clat's): the
  // loop's fast path.
  bool default_measures_ = true;
  // The direction of every I/O, or kMixedDirs for a mix drawn as fio's rwmix.
  static constexpr uint8_t kMixedDirs = 0xff;
  uint8_t one_dir_ = kRead;
  // fio's rwmix state: the direction in use and the count that ends its turn.
  FioRand rwmix_rand_;
  uint8_t rwmix_dir_ = kRead;
  uint64_t rwmix_issues_ = 0;
  uint64_t writes_since_sync_ = 0;
  bool sync_due_ = false;
  uint64_t write_salt_ = 0;

  Pacer pacer_;
  Verifier verifier_;
  LatHistograms hists_;
  Sampler sampler_{plan_, result_, progress_};
  SteadyProbe steady_;
  // The thread's CPU use when measuring began, for usr/sys/ctx/majf/minf.
  rusage cpu_start_{};
  // Whether the job's thread is inside a call that may not return, and the run giving up on it.
  Stall stall_;
  // --status-interval: when the next report is due, the count so far, and where it goes.
  uint64_t next_status_ns_ = UINT64_MAX;
  uint64_t status_index_ = 0;
  StatusSlot status_;
};

}  // namespace vb
