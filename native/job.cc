#include "job.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "engines/io_uring.h"
#include "engines/libaio.h"
#include "engines/null_engine.h"
#include "engines/sync_engines.h"
#include "job_loop.h"

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

const char* IoSyscallName(EngineKind engine, uint8_t ddir) {
  if (ddir == kTrim) return "ioctl(BLKDISCARD)";
  if (ddir == kSync) return "fsync";
  if (ddir == kDataSync) return "fdatasync";
  switch (engine) {
    case EngineKind::kIoUring: return "io_uring_enter";
    case EngineKind::kLibaio: return "io_submit";
    case EngineKind::kPsync: return ddir == kRead ? "pread" : "pwrite";
    case EngineKind::kSync: return ddir == kRead ? "read" : "write";
    case EngineKind::kNull: return "null";
  }
  return "io";
}

namespace {

uint64_t TimevalNs(const timeval& tv) {
  return static_cast<uint64_t>(tv.tv_sec) * 1000000000ull + static_cast<uint64_t>(tv.tv_usec) * 1000ull;
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

Job::~Job() {
  if (fd_ >= 0) close(fd_);
  std::free(buffers_);
}

const Histogram* Job::hist(LatKind kind, int dir) const { return hist_[kind][dir]; }

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
  if (result_.error != 0) return;
  result_.error = err;
  result_.error_syscall = syscall;
  result_.error_message = std::move(message);
}

void Job::SetError(int err, const char* syscall, const std::string& message) {
  Fail(err, syscall, (message.empty() ? std::string(syscall) : message) + ": " + std::strerror(err));
}

void Job::FailEarly(int err, const char* syscall, const std::string& message) { SetError(err, syscall, message); }

void Job::FailIo(const IoUnit* u, int err) {
  char msg[512];
  std::snprintf(msg, sizeof(msg), "%s of %u bytes at offset %" PRIu64 " on %s failed", DirName(u->ddir), u->len,
                u->offset, plan_.path.c_str());
  SetError(err, IoSyscallName(result_.engine, u->ddir), msg);
}

void Job::VerifyRead(const IoUnit* u) {
  std::string why;
  if (const int err = verifier_.CheckRead(u, plan_.path, &why)) Fail(err, "verify", std::move(why));
}

bool Job::Open() {
  int flags = O_CLOEXEC | (plan_.needs_write ? O_RDWR : O_RDONLY);
  if (plan_.direct) flags |= O_DIRECT;
  if (plan_.osync == OSync::kSync) flags |= O_SYNC;
  if (plan_.osync == OSync::kDsync) flags |= O_DSYNC;
  fd_ = open(plan_.path.c_str(), flags);
  if (fd_ < 0) {
    const int err = errno;
    SetError(err, "open", "opening " + plan_.path + (err == EBUSY ? " (device in use)" : ""));
    return false;
  }
  if (plan_.invalidate && !plan_.direct) {
    posix_fadvise(fd_, static_cast<off_t>(plan_.region_offset), static_cast<off_t>(plan_.region_bytes),
                  POSIX_FADV_DONTNEED);
  }
  return true;
}

bool Job::AllocateUnits() {
  const uint32_t max_bs = std::max<uint32_t>(plan_.MaxBs(), 1);
  unit_bytes_ = (max_bs + 4095) & ~4095u;
  const unsigned depth = std::max<unsigned>(plan_.io_depth, 1);
  buffer_bytes_ = static_cast<uint64_t>(unit_bytes_) * depth;
  void* mem = nullptr;
  if (posix_memalign(&mem, 4096, buffer_bytes_) != 0) {
    SetError(ENOMEM, "posix_memalign", "allocating I/O buffers");
    return false;
  }
  buffers_ = static_cast<char*>(mem);
  FillBuffer(buffers_, buffer_bytes_, plan_, rng_);
  units_.assign(depth, IoUnit{});
  free_.assign(depth, nullptr);
  retry_.assign(depth, nullptr);
  for (unsigned i = 0; i < depth; i++) {
    units_[i].buf = buffers_ + static_cast<uint64_t>(i) * unit_bytes_;
    units_[i].slot = static_cast<uint16_t>(i);
    free_[i] = &units_[i];
  }
  nfree_ = depth;

  dir_used_[kTrim] = plan_.trim_pct == 100;
  dir_used_[kRead] = !dir_used_[kTrim] && plan_.read_pct > 0;
  dir_used_[kWrite] = !dir_used_[kTrim] && plan_.read_pct < 100;
  if (plan_.verify_only || (plan_.verify_crc32c && plan_.do_verify && dir_used_[kWrite])) dir_used_[kRead] = true;
  for (int d = 0; d < kDirs; d++) {
    const auto& table = plan_.bs[d];
    if (table.size() == 1) {
      fixed_bs_[d] = table[0].bs;
    } else if (!table.empty()) {
      for (const BsEntry& e : table)
        for (uint32_t k = 0; k < e.pct && bs_pick_[d].size() < 100; k++) bs_pick_[d].push_back(e.bs);
      while (bs_pick_[d].size() < 100) bs_pick_[d].push_back(table.back().bs);
    }
    if (!dir_used_[d]) continue;
    for (const BsEntry& e : table) min_bs_ = min_bs_ == 0 || e.bs < min_bs_ ? e.bs : min_bs_;
    bool want[kLatKinds];
    want[kSlat] = plan_.hist_slat && !plan_.disable_slat;
    want[kClat] = !plan_.disable_clat;
    want[kLat] = plan_.hist_lat && !plan_.disable_lat;
    for (int k = 0; k < kLatKinds; k++) {
      if (!want[k]) continue;
      hist_store_.push_back(std::make_unique<Histogram>());
      hist_store_.back()->Clear();
      hist_[k][d] = hist_store_.back().get();
    }
    if (hist_[kClat][d]) {
      series_prev_hist_[d] = std::make_unique<Histogram>();
      series_prev_hist_[d]->Clear();
    }
  }
  if (plan_.fsync_every || plan_.fdatasync_every) {
    sync_hist_ = std::make_unique<Histogram>();
    sync_hist_->Clear();
  }
  if (plan_.verify_crc32c &&
      !verifier_.Init(plan_, fixed_bs_[kWrite] ? fixed_bs_[kWrite] : fixed_bs_[kRead], dir_used_[kWrite])) {
    SetError(EINVAL, "verify", "verify needs one block size");
    return false;
  }
  pacer_.Init(plan_);
  return true;
}

void Job::SleepCancellable(uint64_t ns) {
  const uint64_t until = NowNs() + ns;
  for (;;) {
    if (cancel_->load(std::memory_order_relaxed)) {
      PollCancel();
      return;
    }
    const uint64_t now = NowNs();
    if (now >= until) return;
    const uint64_t chunk = std::min<uint64_t>(until - now, 50000000ull);
    timespec ts{static_cast<time_t>(chunk / 1000000000ull), static_cast<long>(chunk % 1000000000ull)};
    nanosleep(&ts, nullptr);
  }
}

void Job::BeginMeasuring(uint64_t now) {
  ramp_end_ns_ = 0;
  measure_start_ns_ = now;
  pacer_.Restart(now);
  result_.started_at_ms = WallMs();
  for (int d = 0; d < kDirs; d++) {
    result_.dirs[d] = DirResult();
    sample_prev_bytes_[d] = sample_prev_ios_[d] = 0;
    series_prev_bytes_[d] = series_prev_ios_[d] = series_prev_clat_sum_[d] = series_prev_clat_n_[d] = 0;
    for (auto& s : sample_prev_lat_) s[d] = LatStats();
    for (auto& row : hist_)
      if (row[d]) row[d]->Clear();
    if (series_prev_hist_[d]) series_prev_hist_[d]->Clear();
  }
  result_.sync_ios = 0;
  result_.sync_lat.Reset();
  if (sync_hist_) sync_hist_->Clear();
  for (int i = 0; i < kDepthBuckets; i++) result_.depth_level[i] = result_.depth_submit[i] = result_.depth_complete[i] = 0;
  end_ns_ = plan_.runtime_ns ? now + plan_.runtime_ns : UINT64_MAX;
  last_sample_ns_ = last_series_ns_ = now;
  next_sample_ns_ = now + plan_.sample_window_ms * 1000000ull;
  next_series_ns_ = now + plan_.series_interval_ms * 1000000ull;
  result_.series.clear();
  if (plan_.runtime_ns && plan_.series_interval_ms)
    result_.series.reserve(plan_.runtime_ns / (plan_.series_interval_ms * 1000000ull) + 2);
  rusage ru;
  getrusage(RUSAGE_THREAD, &ru);
  usr_start_ns_ = TimevalNs(ru.ru_utime);
  sys_start_ns_ = TimevalNs(ru.ru_stime);
  ctx_start_ = static_cast<uint64_t>(ru.ru_nvcsw + ru.ru_nivcsw);
  majf_start_ = static_cast<uint64_t>(ru.ru_majflt);
  minf_start_ = static_cast<uint64_t>(ru.ru_minflt);
  ScheduleNextEvent();
}

void Job::ScheduleNextEvent() {
  if (ramp_end_ns_) {
    next_event_ns_ = ramp_end_ns_;
    return;
  }
  next_event_ns_ = std::min({next_sample_ns_, next_series_ns_, end_ns_});
}

void Job::HandleEvents(uint64_t now) {
  if (ramp_end_ns_) {
    if (now >= ramp_end_ns_) {
      BeginMeasuring(now);
      EnterPhase(Phase::kRunning);
    }
    return;
  }
  if (now >= end_ns_) {
    EnterPhase(Phase::kDraining);
    end_ns_ = UINT64_MAX;
  }
  if (now >= next_sample_ns_) TakeSamples(now);
  if (now >= next_series_ns_) TakeSeriesPoint(now);
  ScheduleNextEvent();
}

void Job::TakeSamples(uint64_t now) {
  const double dt_ms = static_cast<double>(now - last_sample_ns_) / 1e6;
  const uint64_t t_ms = (now - measure_start_ns_ + 500000) / 1000000;
  for (int d = 0; d < kDirs; d++) {
    const DirResult& a = result_.dirs[d];
    if (!dir_used_[d] || dt_ms <= 0) continue;
    const uint64_t dbytes = a.bytes - sample_prev_bytes_[d];
    const uint64_t dios = a.ios - sample_prev_ios_[d];
    // fio's samples are whole KiB/s and IOPS.
    const uint64_t bw = static_cast<uint64_t>(static_cast<double>(dbytes) * 1000.0 / dt_ms / 1024.0);
    const uint64_t iops = static_cast<uint64_t>(static_cast<double>(dios) * 1000.0 / dt_ms + 0.5);
    result_.dirs[d].bw.Add(static_cast<double>(bw));
    result_.dirs[d].iops.Add(static_cast<double>(iops));
    if (plan_.log_avg_ms && !per_io_logs_) {
      if (logs_[kBwLog].active()) logs_[kBwLog].Line(t_ms, bw, d, 0);
      if (logs_[kIopsLog].active()) logs_[kIopsLog].Line(t_ms, iops, d, 0);
      const LatStats* now_lat[kLatKinds] = {&a.slat, &a.clat, &a.lat};
      static constexpr LogKind kLogOf[kLatKinds] = {kSlatLog, kClatLog, kLatLog};
      for (int k = 0; k < kLatKinds; k++) {
        const LatStats& prev = sample_prev_lat_[k][d];
        const uint64_t n = now_lat[k]->n - prev.n;
        LogWriter& log = logs_[kLogOf[k]];
        if (log.active() && n > 0) log.Line(t_ms, (now_lat[k]->sum - prev.sum) / n, d, 0);
        sample_prev_lat_[k][d] = *now_lat[k];
      }
    }
    sample_prev_bytes_[d] = a.bytes;
    sample_prev_ios_[d] = a.ios;
    progress_.ios[d].store(a.ios, std::memory_order_relaxed);
    progress_.bytes[d].store(a.bytes, std::memory_order_relaxed);
  }
  progress_.elapsed_ms.store((now - thread_start_ns_) / 1000000, std::memory_order_relaxed);
  last_sample_ns_ = now;
  const uint64_t window = plan_.sample_window_ms * 1000000ull;
  next_sample_ns_ += window;
  if (next_sample_ns_ <= now) next_sample_ns_ = now + window;
}

void Job::TakeSeriesPoint(uint64_t now) {
  SeriesPoint p;
  p.t_ms = (now - measure_start_ns_ + 500000) / 1000000;
  p.dur_ms = (now - last_series_ns_ + 500000) / 1000000;
  for (int d = 0; d < kDirs; d++) {
    if (!dir_used_[d]) continue;
    const DirResult& a = result_.dirs[d];
    SeriesDir& s = p.dirs[d];
    s.ios = a.ios - series_prev_ios_[d];
    s.bytes = a.bytes - series_prev_bytes_[d];
    const uint64_t n = a.clat.n - series_prev_clat_n_[d];
    s.clat_mean_ns = n ? static_cast<double>(a.clat.sum - series_prev_clat_sum_[d]) / static_cast<double>(n) : 0.0;
    if (Histogram* h = hist_[kClat][d]) {
      Histogram* prev = series_prev_hist_[d].get();
      // The interval's histogram is the difference of two cumulative ones; reuse prev for it.
      for (int i = 0; i < kHistBuckets; i++) {
        const uint64_t cur = h->counts[i];
        prev->counts[i] = cur - prev->counts[i];
      }
      s.clat_p99_ns = HistPercentile(prev->counts, n, 99.0);
      std::memcpy(prev->counts, h->counts, sizeof(prev->counts));
    }
    series_prev_ios_[d] = a.ios;
    series_prev_bytes_[d] = a.bytes;
    series_prev_clat_n_[d] = a.clat.n;
    series_prev_clat_sum_[d] = a.clat.sum;
  }
  result_.series.push_back(p);
  {
    std::lock_guard<std::mutex> lock(progress_.last_mutex);
    progress_.last = p;
    progress_.has_last = true;
  }
  last_series_ns_ = now;
  const uint64_t interval = plan_.series_interval_ms * 1000000ull;
  next_series_ns_ += interval;
  if (next_series_ns_ <= now) next_series_ns_ = now + interval;
}

void Job::FoldLastSeriesPoint() {
  SeriesPoint tail = result_.series.back();
  result_.series.pop_back();
  SeriesPoint& p = result_.series.back();
  p.t_ms = tail.t_ms;
  p.dur_ms += tail.dur_ms;
  for (int d = 0; d < kDirs; d++) {
    SeriesDir& a = p.dirs[d];
    const SeriesDir& b = tail.dirs[d];
    const uint64_t n = a.ios + b.ios;
    if (n) a.clat_mean_ns = (a.clat_mean_ns * static_cast<double>(a.ios) + b.clat_mean_ns * static_cast<double>(b.ios)) / static_cast<double>(n);
    // Both halves' p99 bound the whole interval's from above; keep the larger.
    a.clat_p99_ns = std::max(a.clat_p99_ns, b.clat_p99_ns);
    a.ios = n;
    a.bytes += b.bytes;
  }
}

void Job::WriteIoLogLines(const IoUnit* u, uint64_t now, uint64_t clat, uint64_t lat, uint64_t slat) {
  const uint64_t t_ms = (now - measure_start_ns_) / 1000000;
  if (logs_[kBwLog].active()) logs_[kBwLog].Line(t_ms, lat ? u->len * 1000000000ull / lat / 1024 : 0, u->ddir, u->len);
  if (logs_[kIopsLog].active()) logs_[kIopsLog].Line(t_ms, 1, u->ddir, u->len);
  if (logs_[kLatLog].active()) logs_[kLatLog].Line(t_ms, lat, u->ddir, u->len);
  if (logs_[kClatLog].active()) logs_[kClatLog].Line(t_ms, clat, u->ddir, u->len);
  if (logs_[kSlatLog].active() && !u->inline_done) logs_[kSlatLog].Line(t_ms, slat, u->ddir, u->len);
}

bool Job::StartVerifyIfDue() {
  if (phase_ == Phase::kVerify || Stopping() || !verifier_.PassDue()) return false;
  verifier_.StartPass();
  EnterPhase(Phase::kVerify);
  return true;
}

void Job::Finish(uint64_t now) {
  if (plan_.end_fsync && plan_.needs_write && fd_ >= 0 && result_.error == 0 && fsync(fd_) < 0)
    SetError(errno, "fsync", "end_fsync on " + plan_.path);
  now = NowNs();
  if (measure_start_ns_ == 0) measure_start_ns_ = now;
  const bool measured = ramp_end_ns_ == 0;
  if (measured) {
    // A last, shorter interval for the series when it saw any I/O; a sliver (the I/Os still in
    // flight when the runtime ended) joins the interval before it rather than standing alone.
    bool any = false;
    for (int d = 0; d < kDirs; d++) any |= result_.dirs[d].ios != series_prev_ios_[d];
    if (any && now > last_series_ns_) {
      const bool sliver = !result_.series.empty() && now - last_series_ns_ < kMinSeriesTailNs;
      TakeSeriesPoint(now);
      if (sliver) FoldLastSeriesPoint();
    }
  }
  result_.runtime_ns = measured ? now - measure_start_ns_ : 0;
  for (auto& d : result_.dirs) d.runtime_ns = d.ios ? result_.runtime_ns : 0;
  rusage ru;
  getrusage(RUSAGE_THREAD, &ru);
  result_.usr_ns = TimevalNs(ru.ru_utime) - usr_start_ns_;
  result_.sys_ns = TimevalNs(ru.ru_stime) - sys_start_ns_;
  result_.ctx = static_cast<uint64_t>(ru.ru_nvcsw + ru.ru_nivcsw) - ctx_start_;
  result_.majf = static_cast<uint64_t>(ru.ru_majflt) - majf_start_;
  result_.minf = static_cast<uint64_t>(ru.ru_minflt) - minf_start_;
  for (int d = 0; d < kDirs; d++) {
    progress_.ios[d].store(result_.dirs[d].ios, std::memory_order_relaxed);
    progress_.bytes[d].store(result_.dirs[d].bytes, std::memory_order_relaxed);
  }
}

template <class E>
bool Job::TryEngine(int* setup_err) {
  E engine;
  EngineSetup s;
  s.fd = fd_;
  s.is_block_device = plan_.is_block_device;
  s.depth = static_cast<unsigned>(units_.size());
  s.units = units_.data();
  s.unit_count = static_cast<unsigned>(units_.size());
  s.buffers = buffers_;
  s.buffer_bytes = buffer_bytes_;
  s.fixed_bufs = plan_.fixed_bufs;
  s.register_files = plan_.register_files;
  s.sq_thread_poll = plan_.sq_thread_poll;
  s.hipri = plan_.hipri;
  const int r = engine.Setup(s);
  if (r < 0) {
    *setup_err = -r;
    return false;
  }
  result_.engine = E::kKind;
  result_.engine_set = true;

  if (plan_.start_delay_ns) {
    EnterPhase(Phase::kStartDelay);
    SleepCancellable(plan_.start_delay_ns);
  }
  const uint64_t now = NowNs();
  if (plan_.ramp_ns && !plan_.verify_only) {
    ramp_end_ns_ = now + plan_.ramp_ns;
    pacer_.Restart(now);
    EnterPhase(Phase::kRamp);
    ScheduleNextEvent();
  } else {
    BeginMeasuring(now);
    EnterPhase(plan_.verify_only ? Phase::kVerify : Phase::kRunning);
  }
  if (!Stopping()) JobLoop<E>::Run(*this, engine);
  Finish(NowNs());
  engine.Teardown();
  return true;
}

void Job::Run() {
  thread_start_ns_ = NowNs();
  // The null engine does no I/O, so it opens nothing (as fio's null engine).
  const bool null_only = plan_.engines.size() == 1 && plan_.engines[0] == EngineKind::kNull;
  // Seeded first: the buffers are filled from it, so randseed decides their contents too.
  const uint64_t seed = Mix64(plan_.rand_seed ^ (0x9e3779b97f4a7c15ull * (plan_.instance + 1)));
  rng_.Seed(seed);
  if (result_.error == 0 && (null_only || Open()) && AllocateUnits()) {
    if (const char* why = offsets_.Init(plan_, seed)) SetError(EINVAL, "plan", why);
    const std::string* paths[kLogKinds];
    paths[kBwLog] = &plan_.bw_log_path;
    paths[kIopsLog] = &plan_.iops_log_path;
    paths[kLatLog] = &plan_.lat_log_path;
    paths[kClatLog] = &plan_.clat_log_path;
    paths[kSlatLog] = &plan_.slat_log_path;
    bool any_log = false;
    for (int i = 0; i < kLogKinds && result_.error == 0; i++) {
      if (const int err = logs_[i].Open(*paths[i])) SetError(err, "fopen", "opening log " + *paths[i]);
      any_log |= logs_[i].active();
    }
    per_io_logs_ = plan_.log_avg_ms == 0 && any_log;
    int setup_err = 0;
    const char* setup_call = "engine setup";
    EngineKind failed = EngineKind::kPsync;
    bool ran = false;
    for (size_t i = 0; i < plan_.engines.size() && result_.error == 0 && !ran; i++) {
      failed = plan_.engines[i];
      switch (failed) {
        case EngineKind::kIoUring:
          ran = TryEngine<IoUringEngine>(&setup_err);
          setup_call = "io_uring_setup";
          break;
        case EngineKind::kLibaio:
          ran = TryEngine<LibaioEngine>(&setup_err);
          setup_call = "io_setup";
          break;
        case EngineKind::kPsync:
          ran = TryEngine<PsyncEngine>(&setup_err);
          break;
        case EngineKind::kSync:
          ran = TryEngine<SyncEngine>(&setup_err);
          break;
        case EngineKind::kNull:
          ran = TryEngine<NullEngine>(&setup_err);
          break;
      }
      // Fall back only when the kernel refuses the engine itself.
      if (!ran && !IsUnsupportedEngineError(setup_err)) break;
    }
    if (!ran && result_.error == 0) {
      SetError(setup_err ? setup_err : EINVAL, setup_call, std::string("setting up the ") + EngineName(failed) + " engine");
    }
    for (int i = 0; i < kLogKinds; i++) {
      const int err = logs_[i].Close();
      if (err != 0 && result_.error == 0) SetError(err, "write", "writing log " + *paths[i]);
    }
  }
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  result_.elapsed_ns = NowNs() - thread_start_ns_;
  EnterPhase(Phase::kDone);
}

}  // namespace vb
