#include "runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <system_error>
#include <set>
#include <string>

#include "clock.h"
#include "convert.h"
#include "target.h"

namespace vb {

struct Run::Message {
  std::vector<ProgressSnapshot> progress;
  std::vector<CreatedFile> created;
  // A status report (status_index > 0): per job, its statistics as of the report (null with
  // `ended` false: the job has none yet), or with `ended` its final result.
  uint64_t status_index = 0;
  std::vector<std::unique_ptr<StatusSnapshot>> status;
  std::vector<bool> ended;
  // Alive until the message is delivered: the run is freed only by the finalizer, which runs
  // after every queued call.
  Run* run = nullptr;
};

Run::Run(Registry* registry, uint32_t id, std::vector<JobPlan> plans, std::vector<std::string> stat_paths)
    : registry_(registry), id_(id), stat_paths_(std::move(stat_paths)) {
  jobs_.reserve(plans.size());
  for (auto& p : plans) jobs_.push_back(std::make_shared<Job>(std::move(p), &cancel_));
  // One steady-state group per group number, with every job that names it as a member.
  std::map<uint32_t, SteadyGroup*> groups;
  for (auto& job : jobs_) {
    const SteadyPlan& ss = job->plan().steady;
    if (ss.dur_s == 0 || groups.count(ss.group)) continue;
    unsigned members = 0;
    for (auto& other : jobs_) members += other->plan().steady.dur_s && other->plan().steady.group == ss.group;
    steady_groups_.push_back(std::make_unique<SteadyGroup>(ss, members));
    groups[ss.group] = steady_groups_.back().get();
  }
  for (auto& job : jobs_)
    if (job->plan().steady.dur_s) job->JoinSteady(groups[job->plan().steady.group]);
}

Run::~Run() {
  Cancel();
  Join();
}

Napi::Promise Run::Start(Napi::Env env, Napi::Function on_progress) {
  deferred_ = std::make_unique<Napi::Promise::Deferred>(env);
  // An unbounded queue: calls from other threads never block, even while Node shuts down.
  tsfn_ = Napi::ThreadSafeFunction::New(env, on_progress, "volbench-run", 0, 1, this, Finalize,
                                        static_cast<void*>(nullptr));
  try {
    coordinator_ = std::thread([this] { Coordinate(); });
  } catch (const std::system_error&) {
    // No thread to run on (a pids cgroup limit, say): every job fails, and releasing the
    // function settles the promise with their errors.
    for (auto& job : jobs_) job->FailEarly(EAGAIN, "pthread_create", "starting the run's coordinator thread");
    tsfn_.Release();
  }
  return deferred_->Promise();
}

void Run::Join() {
  if (coordinator_.joinable()) coordinator_.join();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

namespace {

// The kernel may drop a claim a little after close() returns when something else still holds
// the file. A run must not report that it ended while the device still looks in use, or the
// next run on it is refused: wait (briefly, bounded) until an exclusive open succeeds.
void AwaitExclusiveRelease(const PathRef& ref) {
  for (int attempt = 0; attempt < 400; attempt++) {
    const int fd = OpenBeneath(ref, O_RDONLY | O_EXCL);
    if (fd >= 0) {
      close(fd);
      return;
    }
    if (fd != -EBUSY) return;
    timespec ts{0, 5000000};
    nanosleep(&ts, nullptr);
  }
}

}  // namespace

// One exclusive claim per block device the run writes, from before any job opens it until all
// have ended: the kernel refuses to mount it or let another program claim it meanwhile, the
// last line of defence behind the planner's checks. The jobs open it without O_EXCL, as the
// kernel lets a device have only one exclusive holder and would refuse a job's siblings.
// The device is opened beneath its held directory and must be the device planning saw (its
// rdev): a name swapped for another device node is refused, not claimed.
void Run::ClaimDevices() {
  for (auto& job : jobs_) {
    const JobPlan& p = job->plan();
    for (size_t i = 0; i < p.FileCount(); i++) {
      const FileTarget f = p.File(i);
      if (f.is_block_device && f.exclusive) Claim1(f, p.forbidden);
    }
  }
}

// One device's claim, unless the run has it already; its writers fail when it is refused.
void Run::Claim1(const FileTarget& f, const Forbidden& forbidden) {
  for (const Claim& c : claims_)
    if (c.rdev == f.expect.rdev) return;
  int fd = OpenBeneath(f.target, O_RDONLY | O_EXCL);
  int err = fd < 0 ? -fd : 0;
  std::string why;
  if (fd >= 0 && (err = VerifyOpened(fd, f.expect, forbidden, &why)) != 0) {
    close(fd);
    fd = -1;
  }
  claims_.push_back(Claim{f.expect.rdev, fd, f.target});
  if (fd >= 0) return;
  const std::string what = why.empty() ? (err == EBUSY ? " (device in use)" : "") : ": " + why;
  // The writers of that device fail; a job that only reads it may, as elsewhere, still run.
  for (auto& other : jobs_) {
    if (WritesDevice(other->plan(), f.expect.rdev)) other->FailEarly(err, "open", "claiming " + f.path + what);
  }
}

void Run::ReleaseDevices() {
  for (const Claim& c : claims_) {
    if (c.fd < 0) continue;
    // A job given up on may still write the device once its I/O returns: it holds a copy of
    // the claim of its first device until then (see AbandonStuckJobs), so the claim is not
    // released yet. Its other devices' claims it cannot hold: those stay open, for as long as
    // the process lives, rather than let another program claim a device still being written.
    bool held = false, kept = false;
    for (auto& job : jobs_) {
      if (!job->stall().Abandoned()) continue;
      held |= UsesDevice(job->plan(), c.rdev);
      kept |= WritesDevice(job->plan(), c.rdev) && FirstClaimedDevice(job->plan()) != c.rdev;
    }
    if (kept) continue;
    close(c.fd);
    if (!held) AwaitExclusiveRelease(c.ref);
  }
  claims_.clear();
}

bool Run::UsesDevice(const JobPlan& p, uint64_t rdev) {
  for (size_t i = 0; i < p.FileCount(); i++) {
    const FileTarget f = p.File(i);
    if (f.is_block_device && f.expect.rdev == rdev) return true;
  }
  return false;
}

bool Run::WritesDevice(const JobPlan& p, uint64_t rdev) {
  for (size_t i = 0; i < p.FileCount(); i++) {
    const FileTarget f = p.File(i);
    if (f.is_block_device && f.exclusive && f.expect.rdev == rdev) return true;
  }
  return false;
}

uint64_t Run::FirstClaimedDevice(const JobPlan& p) {
  for (size_t i = 0; i < p.FileCount(); i++) {
    const FileTarget f = p.File(i);
    if (f.is_block_device && f.exclusive) return f.expect.rdev;
  }
  return 0;
}

int Run::ClaimCopyFor(const JobPlan& p) const {
  const uint64_t rdev = FirstClaimedDevice(p);
  if (rdev == 0) return -1;
  for (const Claim& c : claims_)
    if (c.fd >= 0 && c.rdev == rdev) return fcntl(c.fd, F_DUPFD_CLOEXEC, 0);
  return -1;
}

void Run::LayOut() {
  // One layout per file, however many instances (or files of one job) share it, before any of
  // them starts.
  std::set<std::string> done;
  size_t files = 0;
  for (auto& job : jobs_) files += job->plan().FileCount();
  layouts_.reserve(files);
  layout_of_.assign(jobs_.size(), -1);
  for (size_t j = 0; j < jobs_.size(); j++) {
    const JobPlan& p = jobs_[j]->plan();
    for (size_t i = 0; i < p.FileCount(); i++) {
      const FileTarget f = p.File(i);
      if (f.is_block_device || f.layout_bytes == 0 || done.count(f.path)) continue;
      done.insert(f.path);
      if (!LayOut1(j, i, f)) return;
    }
  }
  for (size_t j = 0; j < jobs_.size(); j++) CreateLogs(j);
}

bool Run::LayOut1(size_t j, size_t i, const FileTarget& f) {
  const JobPlan& p = jobs_[j]->plan();
  uint64_t bytes = 0;
  bool fill = false;
  // Every job file at that path, as (job, file).
  std::vector<std::pair<size_t, size_t>> users;
  for (size_t k = 0; k < jobs_.size(); k++) {
    const JobPlan& o = jobs_[k]->plan();
    for (size_t m = 0; m < o.FileCount(); m++) {
      const FileTarget g = o.File(m);
      if (g.path != f.path) continue;
      users.emplace_back(k, m);
      bytes = std::max(bytes, g.layout_bytes);
      fill |= o.layout_fill;
      jobs_[k]->progress().phase.store(static_cast<int>(Phase::kLayout), std::memory_order_relaxed);
    }
  }
  laid_out_ = true;
  // The layout's own progress, posted while it holds this thread; each job at the path reads it.
  layouts_.emplace_back();
  LayoutMeter& meter = layouts_.back();
  meter.tick = [this] { PostProgressIfDue(); };
  for (const auto& [k, m] : users) layout_of_[k] = static_cast<int>(layouts_.size() - 1);
  std::string what, stamp;
  Expect laid_out;
  const int err = LayoutFile(LayoutTarget{&f.target, &f.expect, &p.forbidden}, bytes, fill, p.fallocate, &cancel_, &what,
                             &laid_out, &stamp, &meter);
  // Created, even if the layout stopped after: whoever removes the run's files must know it. Files
  // a run created are numbered 0 (a job's target), 1 to 5 (its logs), 6 on (its other files).
  if (laid_out.kind == Expect::kFile && f.expect.kind == Expect::kNew)
    created_.push_back({static_cast<uint32_t>(j), static_cast<uint32_t>(i == 0 ? 0 : 5 + i), laid_out.dev, laid_out.ino, stamp});
  // Cancelled: the jobs see the flag as they start and end at once, marked cancelled.
  if (err == ECANCELED) return false;
  for (const auto& [k, m] : users) {
    // Every job of the file opens the file laid out here, and nothing else.
    if (err == 0) jobs_[k]->ExpectFile(m, laid_out);
    else jobs_[k]->FailEarly(err, "layout", what + " " + f.path);
  }
  return true;
}

// A log planning did not find is created here, exclusively, as a target file is: a name taken
// meanwhile (by a link to another file, the image behind a device) fails the job instead of
// being written. The job then opens this file and nothing else.
void Run::CreateLogs(size_t j) {
  Job& job = *jobs_[j];
  const JobPlan& p = job.plan();
  for (int k = 0; k < 5; k++) {
    if (!p.log_refs[k].set() || p.log_expects[k].kind != Expect::kNew) continue;
    const int fd = OpenBeneath(p.log_refs[k], O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK, 0644);
    std::string why = fd == -EEXIST ? "one appeared there after the run was planned" : fd < 0 ? LeavesDirectory(-fd) : "";
    int err = fd < 0 ? -fd : VerifyOpened(fd, p.log_expects[k], p.forbidden, &why);
    struct stat st;
    if (err == 0 && fstat(fd, &st) < 0) err = errno;
    const std::string stamp = err == 0 ? FileStamp(fd) : "";
    if (fd >= 0) close(fd);
    if (err != 0) {
      job.FailEarly(err, "open", "creating log " + p.LogPath(k) + (why.empty() ? "" : ": " + why));
      return;
    }
    const Expect made{Expect::kFile, static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino), 0};
    job.ExpectLog(k, made);
    created_.push_back({static_cast<uint32_t>(j), static_cast<uint8_t>(k + 1), made.dev, made.ino, stamp});
  }
}

namespace {

// A sysfs counter file's text ("" when it cannot be read): one short line.
std::string ReadSmallFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return "";
  char buf[4096];
  const ssize_t n = read(fd, buf, sizeof(buf));
  close(fd);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

}  // namespace

// fio lays its files out before it takes the devices' counters for disk_util, so a read job's
// report shows no writes for making its file. The layout's data is synced (and a filesystem's
// journal with it) by the time LayoutFile returns.
void Run::ReadStatsAfterLayout(uint64_t started_ns) {
  if (!laid_out_ || stat_paths_.empty()) return;
  for (const std::string& p : stat_paths_) stats_after_layout_.push_back(ReadSmallFile(p));
  layout_ns_ = NowNs() - started_ns;
}

void Run::JobEnded() {
  std::lock_guard<std::mutex> lock(done_mutex_);
  done_count_++;
  done_cv_.notify_all();
}

void Run::Coordinate() {
  // The clock the jobs read once or twice per I/O, scaled before any of them starts.
  ClockInit();
  const uint64_t started_ns = NowNs();
  next_post_ns_ = started_ns + 1'000'000'000ull;
  ClaimDevices();
  LayOut();
  ReadStatsAfterLayout(started_ns);
  // What the layout created, at once: a caller that must remove it after a crash records it.
  if (!created_.empty()) PostProgress();
  threads_.resize(jobs_.size());
  // Every job reports its status on the same clock, from here.
  const uint64_t epoch = NowNs();
  for (auto& job : jobs_) {
    job->StartStatus(epoch);
    status_interval_ns_ = std::max(status_interval_ns_, job->plan().status_interval_ns);
  }
  status_due_ns_ = status_interval_ns_ ? epoch + status_interval_ns_ : UINT64_MAX;
  for (size_t i = 0; i < jobs_.size(); i++) {
    std::shared_ptr<Job> job = jobs_[i];
    try {
      // The thread holds the job too: an abandoned one lives until the thread ends. Abandoned,
      // the job was counted done by the coordinator, and this run may be gone: not a word more.
      threads_[i] = std::thread([this, job] {
        job->Run();
        if (!job->stall().Abandoned()) JobEnded();
      });
    } catch (const std::system_error&) {
      // Out of threads: this job fails, and running it here only records that it ended.
      job->FailEarly(EAGAIN, "pthread_create", "starting the job's thread");
      job->Run();
      JobEnded();
    }
  }
  {
    // Progress about once a second; in between, a look for stuck jobs every 100 ms, so that a
    // cancel returns promptly even when a device has stopped answering.
    auto next_post = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    std::unique_lock<std::mutex> lock(done_mutex_);
    while (done_count_ < jobs_.size()) {
      if (done_cv_.wait_for(lock, std::chrono::milliseconds(100)) == std::cv_status::no_timeout) continue;
      lock.unlock();
      MaybePostStatus(NowNs());
      AbandonStuckJobs(NowNs());
      const auto t = std::chrono::steady_clock::now();
      if (t >= next_post) {
        PostProgress();
        next_post = std::max(next_post + std::chrono::seconds(1), t);
      }
      lock.lock();
    }
  }
  // The last word on every job, so a run shorter than the reporting interval (or one whose
  // reports a busy machine delayed) still says where it ended.
  PostProgress();
  for (size_t i = 0; i < threads_.size(); i++) {
    if (!threads_[i].joinable()) continue;
    // A stuck thread ends on its own once its call returns, and frees its job then.
    if (jobs_[i]->stall().Abandoned()) threads_[i].detach();
    else threads_[i].join();
  }
  UnlinkFiles();
  ReleaseDevices();
  // The finalizer settles the promise once this release has drained the queue.
  tsfn_.Release();
}

namespace {

// How long a call may go on once the run is cancelled (a normal I/O ends well within it), and
// past the end of the job's runtime (fio extends a runtime for the I/O in flight; a device that
// takes this long to answer has stalled).
constexpr uint64_t kCancelGraceNs = 500'000'000ull;
constexpr uint64_t kOverrunGraceNs = 10'000'000'000ull;

}  // namespace

void Run::AbandonStuckJobs(uint64_t now) {
  const bool cancelled = cancel_.load(std::memory_order_relaxed);
  if (cancelled && cancel_seen_ns_ == 0) cancel_seen_ns_ = now;
  for (auto& held : jobs_) {
    Job& job = *held;
    if (job.stall().Abandoned() || job.progress().phase.load(std::memory_order_acquire) == static_cast<int>(Phase::kDone)) continue;
    const uint64_t since = job.stall().Since();
    if (since == 0 || now < since) continue;
    const uint64_t deadline = job.progress().deadline_ns.load(std::memory_order_relaxed);
    const bool give_up = (cancelled && now - cancel_seen_ns_ >= kCancelGraceNs && now - since >= kCancelGraceNs) ||
                         (deadline && now > deadline + kOverrunGraceNs && now - since >= kOverrunGraceNs);
    if (!give_up) continue;
    const int claim = ClaimCopyFor(job.plan());
    if (!job.Abandon(since, now, cancelled, claim)) {
      if (claim >= 0) close(claim);
      continue;
    }
    std::lock_guard<std::mutex> lock(done_mutex_);
    done_count_++;
  }
}

// unlink=1: each file once, by name beneath its held directory and only while it is still the
// file the jobs opened (a name swapped meanwhile is left alone).
void Run::UnlinkFiles() {
  std::set<std::string> unlinked;
  for (auto& job : jobs_) {
    const JobPlan& p = job->plan();
    if (!p.unlink_after) continue;
    for (size_t i = 0; i < p.FileCount(); i++) {
      const FileTarget f = p.File(i);
      if (f.is_block_device || unlinked.count(f.path)) continue;
      // A file whose job was given up on sits where the stall is: removing it could block this
      // thread too. It stays.
      bool stuck = false;
      uint64_t dev = 0, ino = 0;
      for (auto& other : jobs_) {
        const JobPlan& o = other->plan();
        for (size_t m = 0; m < o.FileCount(); m++) {
          if (o.File(m).path != f.path) continue;
          stuck |= other->stall().Abandoned();
          if (other->opened_ino(m) != 0) {
            dev = other->opened_dev(m);
            ino = other->opened_ino(m);
          }
        }
      }
      if (stuck || ino == 0) continue;  // stuck, or no job opened it: nothing of this run to remove
      unlinked.insert(f.path);
      UnlinkBeneath(f.unlink_ref.set() ? f.unlink_ref : f.target, dev, ino, true);
    }
  }
}

// A status report once every running job has put its statistics for the interval that ended
// (or, should one be inside a call that long, a second after it ended, with what it last put).
void Run::MaybePostStatus(uint64_t now) {
  if (now < status_due_ns_) return;
  const uint64_t index = status_index_ + 1;
  bool ready = true;
  for (auto& job : jobs_) ready &= JobEnded(*job) || job->status().index() >= index;
  if (!ready && now < status_due_ns_ + std::min<uint64_t>(status_interval_ns_, 1'000'000'000ull)) return;
  auto* msg = new Message{};
  msg->status_index = status_index_ = index;
  msg->run = this;
  for (auto& job : jobs_) {
    const bool ended = JobEnded(*job);
    msg->ended.push_back(ended);
    msg->status.push_back(!ended && job->status().index() ? job->status().Take() : nullptr);
  }
  while (status_due_ns_ <= now) status_due_ns_ += status_interval_ns_;
  if (tsfn_.NonBlockingCall(msg, CallJs) != napi_ok) delete msg;
}

bool Run::JobEnded(const Job& job) {
  return job.progress_phase() == Phase::kDone;
}

void Run::PostProgressIfDue() {
  const uint64_t now = NowNs();
  if (now < next_post_ns_) return;
  PostProgress();
  next_post_ns_ = std::max<uint64_t>(next_post_ns_ + 1'000'000'000ull, now);
}

void Run::PostProgress() {
  auto* msg = new Message{};
  msg->created.swap(created_);
  msg->progress.reserve(jobs_.size());
  const uint64_t now = NowNs();
  for (size_t j = 0; j < jobs_.size(); j++) {
    ProgressSnapshot s = SnapshotProgress(*jobs_[j], now);
    const int k = j < layout_of_.size() ? layout_of_[j] : -1;
    if (k >= 0) {
      const LayoutMeter& m = layouts_[static_cast<size_t>(k)];
      s.has_layout = true;
      s.layout_done_bytes = m.done_bytes;
      s.layout_total_bytes = m.total_bytes;
      s.layout_ms = ((m.ended_ns ? m.ended_ns : now) - m.started_ns) / 1000000;
      s.layout_ended = m.ended_ns != 0;
    }
    msg->progress.push_back(s);
  }
  if (tsfn_.NonBlockingCall(msg, CallJs) != napi_ok) delete msg;
}

void Run::CallJs(Napi::Env env, Napi::Function fn, Message* msg) {
  std::unique_ptr<Message> owned(msg);
  if (env == nullptr) return;  // the environment is going away
  Napi::HandleScope scope(env);
  try {
    if (msg->status_index) {
      Run* run = msg->run;
      Napi::Array status = Napi::Array::New(env, msg->status.size());
      for (size_t i = 0; i < msg->status.size(); i++) {
        Job& job = *run->jobs_[i];
        Napi::Value v = msg->ended[i] ? JobResultToJs(env, job) : msg->status[i] ? StatusToJs(env, job, *msg->status[i]) : env.Null();
        status.Set(static_cast<uint32_t>(i), v);
      }
      fn.Call({Napi::Array::New(env), Napi::Array::New(env), status});
      return;
    }
    fn.Call({ProgressToJs(env, msg->progress), CreatedToJs(env, msg->created)});
  } catch (const Napi::Error&) {
    // A throwing progress callback must not take the run down with it.
  }
}

void Run::Finalize(Napi::Env env, void*, Run* run) {
  // Every call has been delivered and the coordinator has released the function: settle the
  // promise from here, on the JS thread, then forget the run. When Node is exiting instead,
  // stop the I/O first so the join is quick.
  run->Cancel();
  run->Join();
  if (env != nullptr) run->Settle(env);
  {
    std::lock_guard<std::mutex> lock(run->registry_->mutex);
    run->registry_->runs.erase(run->id_);
  }
  delete run;
}

void Run::Settle(Napi::Env env) {
  Napi::HandleScope scope(env);
  Napi::Array results = Napi::Array::New(env, jobs_.size());
  for (size_t i = 0; i < jobs_.size(); i++) results.Set(static_cast<uint32_t>(i), JobResultToJs(env, *jobs_[i]));
  Napi::Object out = Napi::Object::New(env);
  out.Set("jobs", results);
  if (stats_after_layout_.empty()) {
    out.Set("afterLayout", env.Null());
  } else {
    Napi::Object after = Napi::Object::New(env);
    Napi::Array stats = Napi::Array::New(env, stats_after_layout_.size());
    for (size_t i = 0; i < stats_after_layout_.size(); i++) stats.Set(static_cast<uint32_t>(i), stats_after_layout_[i]);
    after.Set("stats", stats);
    after.Set("ms", static_cast<double>(layout_ns_) / 1e6);
    out.Set("afterLayout", after);
  }
  deferred_->Resolve(out);
}

}  // namespace vb
