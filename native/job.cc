#include "job.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "engines/registry.h"
#include "job_io.h"
#include "page_cache.h"
#include "sleep.h"

namespace vb {

const char* PhaseName(Phase p) {
  switch (p) {
    case Phase::kPending: return "pending";
    case Phase::kLayout: return "layout";
    case Phase::kStartDelay: return "startdelay";
    case Phase::kRamp: return "ramp";
    case Phase::kRunning: return "running";
    case Phase::kVerify: return "verify";
    case Phase::kDone: return "done";
    case Phase::kDraining: return "draining";
    case Phase::kStopping: return "stopping";
  }
  return "unknown";
}

namespace {

uint64_t TimevalNs(const timeval& tv) {
  return static_cast<uint64_t>(tv.tv_sec) * 1000000000ull + static_cast<uint64_t>(tv.tv_usec) * 1000ull;
}

// The thread's CPU use since `start`: fio's usr/sys/ctx/majf/minf.
void CountCpuSince(const rusage& start, JobResult& r) {
  rusage now;
  getrusage(RUSAGE_THREAD, &now);
  r.usr_ns = TimevalNs(now.ru_utime) - TimevalNs(start.ru_utime);
  r.sys_ns = TimevalNs(now.ru_stime) - TimevalNs(start.ru_stime);
  r.ctx = static_cast<uint64_t>(now.ru_nvcsw + now.ru_nivcsw - start.ru_nvcsw - start.ru_nivcsw);
  r.majf = static_cast<uint64_t>(now.ru_majflt - start.ru_majflt);
  r.minf = static_cast<uint64_t>(now.ru_minflt - start.ru_minflt);
}

// The directions the job's rw names, which its main phase runs in (a verify pass adds reads).
void MainDirs(const JobPlan& plan, bool used[kDirs]) {
  used[kTrim] = plan.trim_pct == 100;
  used[kRead] = !used[kTrim] && plan.read_pct > 0;
  used[kWrite] = !used[kTrim] && plan.read_pct < 100;
}

// The directions a job issues I/O in; a verify pass reads.
void DirsInUse(const JobPlan& plan, bool used[kDirs]) {
  MainDirs(plan, used);
  if (plan.verify_only || (plan.verify && plan.do_verify && used[kWrite])) used[kRead] = true;
}

const char* DirName(uint8_t d) { return d == kRead ? "read" : d == kWrite ? "write" : d == kTrim ? "trim" : "sync"; }

// Whether a job in phase `from` moves to `to` when asked. Stopping is final until done. Only
// the main phase (ramp, running) drains: a runtime that ends during the verify pass lets the
// pass finish. And the ramp's end asks for running, which moves nothing when the main phase
// has already ended inside the ramp.
bool Moves(Phase from, Phase to) {
  if (from == Phase::kStopping) return to == Phase::kDone;
  if (to == Phase::kDraining) return from == Phase::kRamp || from == Phase::kRunning;
  if (to == Phase::kRunning) return from != Phase::kDraining && from != Phase::kVerify;
  return true;
}

}  // namespace

Job::Job(JobPlan plan, const std::atomic<bool>* cancel) : plan_(std::move(plan)), cancel_(cancel) {}

Job::~Job() { CloseFiles(); }

void Job::CloseFiles() {
  for (size_t i = 0; i < files_.size(); i++) {
    if (files_[i].fd >= 0) close(files_[i].fd);
    files_.SetFd(i, -1);
  }
}

// The one place the phase changes. A job's life:
//   pending -> [startdelay] -> [ramp] -> running -> draining -> [verify] -> done
// where a verify_only job goes straight to verify, a main phase can end inside the ramp, and a
// cancel or an error leads from anywhere to stopping. Progress shows every phase asked for that
// it has a name for, moved to or not: "ramp" turns into "running" at the ramp's end however the
// main phase went, and only "verify" is never taken back.
void Job::EnterPhase(Phase next) {
  if (Moves(phase_, next)) phase_ = next;
  if (next == Phase::kDraining || next == Phase::kStopping) return;
  const int shown = progress_.phase.load(std::memory_order_relaxed);
  if (next == Phase::kRunning && shown == static_cast<int>(Phase::kVerify)) return;
  progress_.phase.store(static_cast<int>(next),
                        next == Phase::kDone ? std::memory_order_release : std::memory_order_relaxed);
}

void Job::Fail(int err, const char* syscall, std::string message) {
  EnterPhase(Phase::kStopping);
  RecordError(err, syscall, std::move(message));
}

void Job::RecordError(int err, const char* syscall, std::string message) {
  if (result_.error != 0) return;
  result_.error = err;
  result_.error_syscall = syscall;
  result_.error_message = std::move(message);
}

namespace {

std::string ErrorText(int err, const char* syscall, const std::string& message) {
  return (message.empty() ? std::string(syscall) : message) + ": " + std::strerror(err);
}

}  // namespace

void Job::SetError(int err, const char* syscall, const std::string& message) {
  Fail(err, syscall, ErrorText(err, syscall, message));
}

void Job::FailEarly(int err, const char* syscall, const std::string& message) { SetError(err, syscall, message); }

void Job::FailIo(const IoUnit* u, int err) {
  char msg[512];
  std::snprintf(msg, sizeof(msg), "%s of %u bytes at offset %" PRIu64 " on %s failed", DirName(u->ddir), u->len,
                u->offset, files_[u->file].target.path.c_str());
  SetError(err, IoSyscallName(*result_.engine, u->ddir), msg);
}

void Job::VerifyRead(const IoUnit* u) {
  std::string why;
  if (const int err = verifier_.CheckRead(u, plan_.path, &why)) Fail(err, "verify", std::move(why));
}

// Opened beneath the directory planning held, never by the full name, and checked to be what
// planning saw: a name swapped meanwhile (for a symlink out of the root, another file, a
// device) fails the job instead of leading its I/O elsewhere. Every file of a job of several,
// in order, before its first I/O, as fio opens them.
bool Job::Open() {
  for (size_t i = 0; i < files_.size(); i++)
    if (!OpenFile(i)) return false;
  return true;
}

bool Job::OpenFile(size_t i) {
  JobFile& f = files_[i];
  int flags = plan_.needs_write ? O_RDWR : O_RDONLY;
  if (plan_.direct) flags |= O_DIRECT;
  if (plan_.osync == OSync::kSync) flags |= O_SYNC;
  if (plan_.osync == OSync::kDsync) flags |= O_DSYNC;
  const int fd = OpenBeneath(f.target.target, flags);
  if (fd < 0) {
    const int err = -fd;
    const char* why = err == EBUSY ? " (device in use)" : LeavesDirectory(err);
    SetError(err, "open", "opening " + f.target.path + why);
    return false;
  }
  files_.SetFd(i, fd);
  std::string why;
  if (const int err = VerifyOpened(fd, f.target.expect, plan_.forbidden, &why)) {
    SetError(err, "open", "opening " + f.target.path + ": " + why);
    return false;
  }
  struct stat st;
  if (!f.target.is_block_device && fstat(fd, &st) == 0) {
    f.dev = static_cast<uint64_t>(st.st_dev);
    f.ino = static_cast<uint64_t>(st.st_ino);
  }
  // As fio, whatever `direct` says: a direct job still must not find pages an earlier buffered
  // job left behind.
  if (plan_.invalidate) DropFileCache(f);
  Advise(f);
  return true;
}

// The job's access pattern, for the kernel's readahead: random turns it off for the file, which
// a buffered random read otherwise pays for with pages it never uses. Not fatal when refused,
// as in fio.
void Job::Advise(const JobFile& f) {
  if (plan_.fadvise == Fadvise::kNone) return;
  const int advice = plan_.fadvise == Fadvise::kRandom ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL;
  posix_fadvise(f.fd, static_cast<off_t>(f.target.region_offset), static_cast<off_t>(f.target.region_bytes), advice);
}

// Not fatal when refused: fio goes on too (it prints that the invalidation failed).
void Job::DropCache() {
  for (const JobFile& f : files_.all()) DropFileCache(f);
}

void Job::DropFileCache(const JobFile& f) {
  if (f.fd >= 0) DropPageCache(f.fd, f.target.is_block_device, f.target.region_offset, f.target.region_bytes);
}

const char* Job::InitOffsets(const bool dir_used[kDirs], uint64_t seed) {
  // One file: its pass wraps around in place, as a job of one file always has. Several: a
  // size-based job's file is done at its region's end, as fio's, and the others go on.
  const bool stop_at_end = several_files_ && !plan_.time_based;
  for (size_t i = 0; i < files_.size(); i++) {
    const FileTarget& t = files_[i].target;
    // Each file's own order over its blocks.
    const uint64_t file_seed = i == 0 ? seed : Mix64(seed + 0x9e3779b97f4a7c15ull * i);
    if (const char* why = OffsetsOf(static_cast<int>(i)).InitRegion(plan_, dir_used, file_seed, t.region_offset, t.region_bytes, stop_at_end))
      return why;
    OffsetsOf(static_cast<int>(i)).SetTargetBytes(FileBytes(i));
    // fio drops the cache each time a buffered job's pass wraps around (io_u.c); a direct job's
    // I/O bypasses the cache, so it does not there.
    if (plan_.invalidate && !plan_.direct) OffsetsOf(static_cast<int>(i)).OnPassEnd(&Job::DropCacheAtPassEnd, &files_[i]);
  }
  return nullptr;
}

bool Job::AllocateUnits() {
  if (!units_.Allocate(std::max<unsigned>(plan_.io_depth, 1), std::max<uint32_t>(plan_.MaxBs(), 1))) {
    SetError(ENOMEM, "mmap", "allocating I/O buffers");
    return false;
  }
  result_.buffer_bytes = units_.buffer_bytes();
  bool dir_used[kDirs];
  DirsInUse(plan_, dir_used);
  // Only what is written needs content. A job that only reads leaves its buffers untouched, as
  // fio does: their pages are first faulted in by its I/O (or pinned by io_uring's
  // registration), and which physical pages they get, so whether a large I/O reaches the
  // device whole (JobPlan::measure_huge_pages), comes about the same way as under fio. Filled
  // here, a 1 MiB read job's buffers came out more contiguous than fio's: 1,001 KiB per request
  // at the disk against fio's 577.
  if (dir_used[kWrite]) FillBuffer(units_.buffers(), units_.buffer_bytes(), plan_, buf_rng_);
  sizes_.Init(plan_, dir_used);
  // One block size for every direction in use: a loop takes whole blocks of it. Else, as fio, an
  // I/O starts while the loop has a byte left.
  uint32_t one = 0;
  bool same = true;
  for (int d = 0; d < kDirs; d++) {
    if (!dir_used[d]) continue;
    same = same && sizes_.fixed(d) != 0 && (one == 0 || sizes_.fixed(d) == one);
    one = sizes_.fixed(d);
  }
  const uint32_t room_need = same && one ? one : 1;
  const bool sized = !(plan_.time_based && !plan_.io_bytes_per_loop);
  loop_last_start_ = sized ? static_cast<int64_t>(plan_.io_bytes_per_loop) - room_need : INT64_MAX;
  one_dir_ = kMixedDirs;
  if (plan_.read_pct == 100) one_dir_ = kRead;
  else if (plan_.trim_pct == 100) one_dir_ = kTrim;
  else if (plan_.read_pct == 0) one_dir_ = kWrite;
  rwmix_rand_.Seed(plan_.fio_seed_mix);
  hists_.Allocate(plan_, dir_used);
  lat_target_.Init(plan_);
  depth_limit_ = plan_.io_depth;
  // The latency target reads every I/O's total latency, on the path that measures as asked.
  default_measures_ = !plan_.disable_clat && !plan_.disable_lat && !plan_.disable_slat && !plan_.hist_slat &&
                      !plan_.hist_lat && !lat_target_.on();
  sampler_.Init(dir_used, &hists_, thread_start_ns_);
  const uint32_t verify_bs = sizes_.fixed(kWrite) ? sizes_.fixed(kWrite) : sizes_.fixed(kRead);
  if (plan_.verify && !verifier_.Init(plan_, verify_bs, dir_used[kWrite])) {
    SetError(EINVAL, "verify", "verify needs one block size, larger than its header");
    return false;
  }
  pacer_.Init(plan_);
  return true;
}

bool Job::NextLoop() {
  loops_done_++;
  if (!plan_.time_based && loops_done_ >= plan_.loops) {
    EnterPhase(Phase::kDraining);
    return false;
  }
  loop_bytes_issued_ = 0;
  NewPass();
  return true;
}

// fio ends its pass (do_io) when the map has no block for an I/O: full, or, where its block
// units mix (directions of different sizes), a block past the region. It starts another, seeded
// again, when the job is time-based, or has io_size bytes left to do; else the loop is over.
bool Job::PassOver() {
  // A pass that ends before its first I/O would end again the same way, for ever.
  if (pacer_.issued_total() == pass_start_) {
    EnterPhase(Phase::kDraining);
    return false;
  }
  const bool bytes_left = plan_.io_size_given && loop_bytes_issued_ + sizes_.max_all() <= plan_.io_bytes_per_loop;
  if (plan_.time_based || bytes_left) {
    NewPass();
    return true;
  }
  return NextLoop();
}

void Job::NewPass() {
  pass_start_ = pacer_.issued_total();
  rwmix_issues_ = 0;
  if (plan_.fio_reseed) {
    rwmix_rand_.Seed(plan_.fio_seed_mix);
    sizes_.Reseed();
    pacer_.Reseed();
  }
  for (size_t i = 0; i < files_.size(); i++) OffsetsOf(static_cast<int>(i)).Rewind(plan_.fio_reseed);
  files_.NewPass(plan_.fio_reseed);
  // fio reopens the target for every loop, dropping its cache.
  if (plan_.invalidate) DropCache();
}

void Job::SleepUntil(uint64_t deadline_ns) {
  vb::SleepUntil(deadline_ns, *cancel_);
  PollCancel();
}

void Job::BeginMeasuring(uint64_t now) {
  ramp_end_ns_ = 0;
  pacer_.Restart(now);
  // fio starts its issue counts over as measuring begins, its rwmix turn too (reset_all_stats).
  pass_start_ = UINT64_MAX;
  rwmix_issues_ = 0;
  sampler_.Begin(now);
  steady_.Begin(now, plan_.steady.ramp_ns);
  result_.started_at_ms = WallMs();
  for (DirResult& a : result_.dirs) a = DirResult();
  hists_.Clear();
  result_.sync_ios = 0;
  result_.sync_lat.Reset();
  for (int i = 0; i < kDepthBuckets; i++) result_.depth_level[i] = result_.depth_submit[i] = result_.depth_complete[i] = 0;
  end_ns_ = plan_.runtime_ns ? now + plan_.runtime_ns : UINT64_MAX;
  progress_.deadline_ns.store(plan_.runtime_ns ? end_ns_ : 0, std::memory_order_relaxed);
  getrusage(RUSAGE_THREAD, &cpu_start_);
  // fio's lat_target_reset: the search starts over, unless this is its final cycle.
  lat_target_.Start(now, 0);
  if (lat_target_.on() && !lat_target_.quiescing()) depth_limit_ = lat_target_.depth();
  ScheduleNextEvent();
}

uint64_t Job::MeasuredIos() const {
  return result_.dirs[kRead].ios + result_.dirs[kWrite].ios + result_.dirs[kTrim].ios;
}

void Job::LatencyCompleted(const IoUnit* u, uint64_t lat) {
  switch (lat_target_.Completed(lat)) {
    case LatencyTarget::kQuiesce:
      depth_limit_ = 0;
      break;
    case LatencyTarget::kFatal: {
      char msg[256];
      std::snprintf(msg, sizeof(msg),
                    "latency of %" PRIu64 " ns exceeds latency_target %" PRIu64 " ns at depth 1 (%s at offset %" PRIu64
                    " on %s)",
                    lat, lat_target_.target_ns(), DirName(u->ddir), u->offset, files_[u->file].target.path.c_str());
      Fail(ETIMEDOUT, "latency_target", msg);
      break;
    }
    default:
      break;
  }
}

void Job::LatencyWindow(uint64_t now) {
  switch (lat_target_.Check(now, MeasuredIos())) {
    case LatencyTarget::kQuiesce:
      depth_limit_ = 0;
      break;
    case LatencyTarget::kDone:
      EnterPhase(Phase::kDraining);
      break;
    default:
      if (!lat_target_.quiescing()) depth_limit_ = lat_target_.depth();
  }
}

// The queue the latency target asked to drain has drained: its final cycle starts with fresh
// statistics (and runtime), as fio's reset_all_stats, or the next cycle at the new depth.
void Job::LatencyDrained(uint64_t now) {
  if (lat_target_.reset_due()) BeginMeasuring(now);
  lat_target_.Drained(now, MeasuredIos());
  depth_limit_ = lat_target_.depth();
  ScheduleNextEvent();
}

void Job::ScheduleNextEvent() {
  if (ramp_end_ns_) {
    next_event_ns_ = std::min(ramp_end_ns_, next_status_ns_);
    return;
  }
  // Nothing is due while the job drains or stops (see HandleEvents).
  next_event_ns_ = IssuingOver() ? UINT64_MAX
                                 : std::min({sampler_.NextDue(), steady_.NextDue(), end_ns_, next_status_ns_,
                                             lat_target_.NextDue()});
}

void Job::StartStatus(uint64_t epoch_ns) {
  if (plan_.status_interval_ns) next_status_ns_ = epoch_ns + plan_.status_interval_ns;
}

// The job's statistics as of `now`, as if it ended then, for the run's status report; the next
// report is due an interval later (intervals the job slept through are skipped).
void Job::TakeStatus(uint64_t now) {
  const uint64_t interval = plan_.status_interval_ns;
  status_index_ += 1 + (now - next_status_ns_) / interval;
  next_status_ns_ += (1 + (now - next_status_ns_) / interval) * interval;
  JobResult r = result_;
  const bool measured = ramp_end_ns_ == 0 && phase_ >= Phase::kRunning;
  r.runtime_ns = measured ? now - sampler_.measure_start_ns() : 0;
  if (measured) SetDirRuntimes(r, now, main_end_ns_ ? main_end_ns_ : now);
  else for (DirResult& a : r.dirs) a = DirResult();
  if (measured) CountCpuSince(cpu_start_, r);
  r.elapsed_ns = now - thread_start_ns_;
  // The depth the latency target's search is at, as fio's status report shows it.
  r.latency_depth = LatencyDepth();
  status_.Put(status_index_, r, hists_);
}

void Job::HandleEvents(uint64_t now) {
  if (now >= next_status_ns_) TakeStatus(now);
  if (ramp_end_ns_) {
    if (now >= ramp_end_ns_) {
      BeginMeasuring(now);
      EnterPhase(Phase::kRunning);
    } else {
      ScheduleNextEvent();
    }
    return;
  }
  // The steady-state second that ends with the runtime still counts: fio judges a 3 s window
  // in a 3 s runtime.
  if (!IssuingOver()) {
    uint64_t ios = 0, bytes = 0;
    for (const DirResult& a : result_.dirs) {
      ios += a.ios;
      bytes += a.bytes;
    }
    steady_.Tick(now, ios, bytes);
  }
  if (lat_target_.on() && !IssuingOver()) LatencyWindow(now);
  if (now >= end_ns_) {
    EnterPhase(Phase::kDraining);
    end_ns_ = UINT64_MAX;
  }
  // fio samples a job only while it runs or verifies, not once its main phase is over: a
  // window that closes as the runtime ends (2 s: the fourth) is not sampled.
  if (!IssuingOver()) sampler_.Tick(now);
  ScheduleNextEvent();
}

bool Job::StartVerifyIfDue() {
  if (phase_ == Phase::kVerify || Stopping() || !verifier_.PassDue()) return false;
  verify_start_ns_ = NowNs();
  // fio reopens the target for the verify pass, which drops its cache: the pass reads the
  // device, not the pages the writes left.
  if (plan_.invalidate) DropCache();
  verifier_.StartPass();
  EnterPhase(Phase::kVerify);
  // Sampling resumes for the pass.
  ScheduleNextEvent();
  return true;
}

// As fio, end_fsync belongs to the main phase: it comes before a verify pass, and a cancelled
// job still syncs what it wrote.
void Job::EndMainPhase() {
  if (main_end_ns_) return;
  // Every file, as fio syncs each at the end.
  for (const JobFile& f : files_.all()) {
    if (plan_.end_fsync && plan_.needs_write && f.fd >= 0 && result_.error == 0 && fsync(f.fd) < 0)
      SetError(errno, "fsync", "end_fsync on " + f.target.path);
  }
  main_end_ns_ = NowNs();
}

void Job::Finish(uint64_t abandoned_at) {
  steady_.End();
  if (abandoned_at == 0) EndMainPhase();
  else if (main_end_ns_ == 0) main_end_ns_ = abandoned_at;
  const uint64_t now = abandoned_at ? abandoned_at : NowNs();
  // A job whose ramp never ended measured nothing.
  const bool measured = ramp_end_ns_ == 0;
  if (measured) {
    sampler_.EndSeries(now);
    sampler_.EndLogs(now);
  }
  result_.runtime_ns = measured ? now - sampler_.measure_start_ns() : 0;
  if (measured) SetDirRuntimes(result_, now, main_end_ns_);
  if (abandoned_at == 0) CountCpuSince(cpu_start_, result_);
  result_.latency_depth = LatencyDepth();
  sampler_.PublishTotals();
}

uint64_t Job::FileBytes(size_t i) const {
  const int fd = files_[i].fd;
  if (fd < 0) return 0;
  const off_t end = lseek(fd, 0, SEEK_END);
  return end > 0 ? static_cast<uint64_t>(end) : 0;
}

bool Job::Abandon(uint64_t since, uint64_t now, bool cancelled, int claim_fd) {
  // Read before the job is parked: only what does not change once its thread is inside a call
  // (the plan; the engine, set before the first call, which Since() having seen orders before).
  // An engine that hands a request that would block to a kernel worker of this process (io_uring)
  // holds one thread per stuck request, beside the job's own, and at most iodepth of them.
  const bool workers = result_.engine != nullptr && result_.engine->Has(kWorkerPerStuckIo);
  StuckEntry bound;
  bound.kind = StuckEntry::kJob;
  bound.anchor = plan_.anchor;
  bound.threads = 1 + (workers ? plan_.io_depth : 0);
  bound.memory_bytes = plan_.memory_bytes;
  return stall_.Abandon(since, bound, claim_fd, [&](StuckEntry& held) {
    GiveUp(now, cancelled);
    held.ios = inflight_;
    held.threads = 1 + (workers ? inflight_ : 0);
  });
}

void Job::GiveUp(uint64_t now, bool cancelled) {
  // In flight: every I/O counted so (a sync engine's one included), none of which completed.
  result_.stuck_ios = inflight_;
  if (cancelled) {
    // As PollCancel: a job that had already failed (or seen the cancel) keeps how it ended.
    if (!Stopping()) result_.cancelled = true;
  } else {
    char msg[256];
    std::snprintf(msg, sizeof(msg), "%u I/O%s on %s still not complete %.1f s after the job's runtime ended", inflight_,
                  inflight_ == 1 ? "" : "s", plan_.path.c_str(),
                  static_cast<double>(now - progress_.deadline_ns.load(std::memory_order_relaxed)) / 1e9);
    const char* syscall = IoSyscallName(*result_.engine, kRead);
    RecordError(ETIMEDOUT, syscall, ErrorText(ETIMEDOUT, syscall, msg));
  }
  Finish(now);
  result_.elapsed_ns = now - thread_start_ns_;
  // Shown done from now on; the phase itself stays the thread's, which enters stopping once
  // its call returns.
  progress_.phase.store(static_cast<int>(Phase::kDone), std::memory_order_release);
}

// fio's update_runtime: the main phase's time goes to the directions the job's rw names that
// moved data, the verify pass's to reads. So a write+verify job reports its writes over the
// write phase and its reads over the verify pass, not both over the whole job.
void Job::SetDirRuntimes(JobResult& r, uint64_t now, uint64_t main_end_ns) const {
  const uint64_t start = sampler_.measure_start_ns();
  const auto span = [start](uint64_t from, uint64_t to) {
    from = std::max(from, start);
    return to > from ? to - from : 0;
  };
  const uint64_t main_ns = plan_.verify_only ? 0 : span(start, main_end_ns);
  const uint64_t verify_ns = verify_start_ns_ ? span(verify_start_ns_, now) : 0;
  bool main_dirs[kDirs];
  MainDirs(plan_, main_dirs);
  for (int d = 0; d < kDirs; d++) {
    DirResult& a = r.dirs[d];
    const uint64_t ns = (main_dirs[d] ? main_ns : 0) + (d == kRead ? verify_ns : 0);
    a.runtime_ns = a.ios ? ns : 0;
  }
}

EngineSetup Job::SetupFor() {
  EngineSetup s;
  s.fd = files_[0].fd;
  s.fds = files_.fds();
  s.file_count = static_cast<unsigned>(files_.size());
  s.is_block_device = plan_.is_block_device;
  s.depth = units_.size();
  s.units = units_.units();
  s.unit_count = units_.size();
  s.buffers = units_.buffers();
  s.buffer_bytes = units_.buffer_bytes();
  s.reap_max = plan_.batch_complete_max;
  return s;
}

// The start delay, then the ramp or measuring at once.
void Job::Start() {
  if (plan_.start_delay_ns) {
    EnterPhase(Phase::kStartDelay);
    SleepUntil(NowNs() + plan_.start_delay_ns);
  }
  const uint64_t now = NowNs();
  if (plan_.ramp_ns && !plan_.verify_only) {
    ramp_end_ns_ = now + plan_.ramp_ns;
    // A device that stalls inside the ramp holds the job past its end too.
    if (plan_.runtime_ns) progress_.deadline_ns.store(ramp_end_ns_ + plan_.runtime_ns, std::memory_order_relaxed);
    pacer_.Restart(now);
    // fio's lat_target_init runs before the ramp too: the ramp goes at depth 1.
    lat_target_.Start(now, 0);
    if (lat_target_.on()) depth_limit_ = lat_target_.depth();
    EnterPhase(Phase::kRamp);
    ScheduleNextEvent();
  } else {
    BeginMeasuring(now);
    EnterPhase(plan_.verify_only ? Phase::kVerify : Phase::kRunning);
    // A verify_only job's one phase is its verify pass: it has no main phase to time or sync.
    if (plan_.verify_only) verify_start_ns_ = main_end_ns_ = now;
  }
}

bool Job::AwaitNext(uint64_t now) {
  // A drain the latency target asked for is over (before a held I/O: the queue takes none now).
  if (lat_target_.quiescing() && !IssuingOver()) {
    LatencyDrained(now);
    return true;
  }
  const uint64_t wake = WakeTime();
  // Until the moment itself, not for the time left as of `now`: the loop read `now` before
  // it reaped and ticked, so a wait that long would end late.
  if (wake && !Stopping()) {
    SleepUntil(wake);
    return true;
  }
  if (phase_ == Phase::kDraining) EndMainPhase();
  return StartVerifyIfDue();
}

void Job::FailSubmit(int err, const char* syscall) {
  SetError(err, syscall, "submitting I/O");
  inflight_ = 0;
}

void Job::PinToCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const uint16_t cpu : plan_.cpus) CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    SetError(errno, "sched_setaffinity", "pinning the job to cpus_allowed");
  }
}

// Tries the plan's engines in order, falling back only when the kernel refuses one.
void Job::RunEngines() {
  const std::vector<EngineChoice>& engines = plan_.engines;
  int setup_err = 0;
  for (size_t i = 0; i < engines.size(); i++) {
    if ((this->*engines[i].entry->run)(engines[i].options.get(), &setup_err)) return;
    if (IsUnsupportedEngineError(setup_err) && i + 1 < engines.size()) continue;
    const EngineOps& ops = *engines[i].entry->ops;
    SetError(setup_err ? setup_err : EINVAL, ops.setup_syscall, std::string("setting up the ") + ops.name + " engine");
    return;
  }
}

void Job::Run() {
  thread_start_ns_ = NowNs();
  // The files as the run laid them out (ExpectFile), none opened yet.
  files_.Init(plan_);
  several_files_ = files_.several();
  result_.tid = static_cast<int32_t>(gettid());
  // A job that can only run on an engine that does no I/O (null) opens nothing, as fio's.
  const bool needs_target = plan_.engines.size() != 1 || plan_.engines[0].entry->ops->needs_target;
  // Seeded first: randseed decides the buffers' contents too.
  const uint64_t seed = Mix64(plan_.rand_seed ^ (0x9e3779b97f4a7c15ull * (plan_.instance + 1)));
  rng_.Seed(seed);
  buf_rng_.Seed(Mix64(seed ^ 0x62756672656e6421ull));
  // Pinned first, as fio does, so that the buffers are allocated where the job runs.
  if (result_.error == 0 && !plan_.cpus.empty()) PinToCpus();
  if (result_.error == 0 && (!needs_target || Open()) && AllocateUnits()) {
    bool dir_used[kDirs];
    DirsInUse(plan_, dir_used);
    if (const char* why = InitOffsets(dir_used, seed)) SetError(EINVAL, "plan", why);
    const std::string* log = nullptr;
    if (result_.error == 0) {
      std::string why;
      if (const int err = sampler_.OpenLogs(&log, &why)) SetError(err, "open", "opening log " + *log + (why.empty() ? "" : ": " + why));
    }
    if (result_.error == 0) RunEngines();
    // Given up on by the run, which finished the result: what is left is to flush the logs
    // (a failure can no longer be reported), close the target and let go of what it holds.
    if (stall_.Abandoned()) {
      sampler_.CloseLogs(&log);
      CloseFiles();
      stall_.End();
      return;
    }
    // Looked at once the I/O has touched the buffers (a read job's are not touched before).
    if (plan_.measure_huge_pages) result_.huge_page_bytes = HugePageBytes(units_.buffers(), units_.buffer_bytes());
    if (const int err = sampler_.CloseLogs(&log)) {
      if (result_.error == 0) SetError(err, "write", "writing log " + *log);
    }
  }
  CloseFiles();
  result_.elapsed_ns = NowNs() - thread_start_ns_;
  // However it ended, its group stops waiting for its samples.
  steady_.End();
  EnterPhase(Phase::kDone);
}

}  // namespace vb
