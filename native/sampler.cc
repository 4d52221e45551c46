#include "sampler.h"

#include <cstring>

namespace vb {
namespace {

// A final series interval shorter than this joins the one before it.
constexpr uint64_t kMinSeriesTailNs = 200000000;

}  // namespace

Sampler::Sampler(const JobPlan& plan, JobResult& result, JobProgress& progress)
    : plan_(plan), result_(result), progress_(progress) {}

void Sampler::Init(const bool dir_used[kDirs], const LatHistograms* hists, uint64_t thread_start_ns) {
  hists_ = hists;
  thread_start_ns_ = thread_start_ns;
  for (int d = 0; d < kDirs; d++) {
    dir_used_[d] = dir_used[d];
    if (!hists->at(kClat, d)) continue;
    series_prev_hist_[d] = std::make_unique<Histogram>();
    series_prev_hist_[d]->Clear();
  }
}

const std::string& Sampler::LogPath(LogKind kind) const { return plan_.LogPath(kind); }

int Sampler::OpenLogs(const std::string** failed, std::string* why) {
  bool any = false;
  for (int i = 0; i < kLogKinds; i++) {
    const std::string& path = LogPath(static_cast<LogKind>(i));
    if (const int err = logs_[i].Open(plan_.log_refs[i], plan_.log_expects[i], plan_.forbidden, plan_.log_offset, why)) {
      *failed = &path;
      return err;
    }
    any |= logs_[i].active();
  }
  // With log_avg_msec unset fio writes a line per I/O; with it, one per window.
  per_io_logs_ = plan_.log_avg_ms == 0 && any;
  return 0;
}

int Sampler::CloseLogs(const std::string** failed) {
  int first = 0;
  for (int i = 0; i < kLogKinds; i++) {
    const int err = logs_[i].Close();
    if (err != 0 && first == 0) {
      first = err;
      *failed = &LogPath(static_cast<LogKind>(i));
    }
  }
  return first;
}

void Sampler::Begin(uint64_t now) {
  measure_start_ns_ = now;
  for (int d = 0; d < kDirs; d++) {
    sample_prev_bytes_[d] = sample_prev_ios_[d] = 0;
    series_prev_bytes_[d] = series_prev_ios_[d] = series_prev_clat_sum_[d] = series_prev_clat_n_[d] = 0;
    for (auto& s : sample_prev_lat_) s[d] = LatStats();
    if (series_prev_hist_[d]) series_prev_hist_[d]->Clear();
  }
  last_sample_ns_ = last_series_ns_ = now;
  next_sample_ns_ = now + plan_.sample_window_ms * 1000000ull;
  next_series_ns_ = now + plan_.series_interval_ms * 1000000ull;
  result_.series.clear();
  if (plan_.runtime_ns && plan_.series_interval_ms)
    result_.series.reserve(plan_.runtime_ns / (plan_.series_interval_ms * 1000000ull) + 2);
}

void Sampler::TakeSamples(uint64_t now) {
  const double dt_ms = static_cast<double>(now - last_sample_ns_) / 1e6;
  const uint64_t t_ms = (now - measure_start_ns_ + 500000) / 1000000;
  for (int d = 0; d < kDirs; d++) {
    DirResult& a = result_.dirs[d];
    if (!dir_used_[d] || dt_ms <= 0) continue;
    const uint64_t dbytes = a.bytes - sample_prev_bytes_[d];
    const uint64_t dios = a.ios - sample_prev_ios_[d];
    // As fio's: a window in which a direction moved nothing is no sample of it (a write job's
    // writes during its verify pass, the reads of a mixed job that drew none).
    if (dbytes == 0) continue;
    // fio's samples are whole KiB/s and IOPS.
    const uint64_t bw = static_cast<uint64_t>(static_cast<double>(dbytes) * 1000.0 / dt_ms / 1024.0);
    const uint64_t iops = static_cast<uint64_t>(static_cast<double>(dios) * 1000.0 / dt_ms + 0.5);
    a.bw.Add(static_cast<double>(bw));
    a.iops.Add(static_cast<double>(iops));
    if (plan_.log_avg_ms && !per_io_logs_) LogAverages(d, t_ms, bw, iops);
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

// A window's lines in the averaged logs: its bandwidth, IOPS and mean latencies.
void Sampler::LogAverages(int d, uint64_t t_ms, uint64_t bw, uint64_t iops) {
  if (logs_[kBwLog].active()) logs_[kBwLog].Line(t_ms, bw, d, 0, 0);
  if (logs_[kIopsLog].active()) logs_[kIopsLog].Line(t_ms, iops, d, 0, 0);
  LogLatAverages(d, t_ms);
}

// As fio's finalize_logs: the latency logs get a last line for the window the job ended in, the
// mean of the I/Os it saw; the bandwidth and IOPS logs do not.
void Sampler::EndLogs(uint64_t now) {
  if (!plan_.log_avg_ms || per_io_logs_) return;
  const uint64_t t_ms = (now - measure_start_ns_ + 500000) / 1000000;
  for (int d = 0; d < kDirs; d++)
    if (dir_used_[d]) LogLatAverages(d, t_ms);
}

void Sampler::LogLatAverages(int d, uint64_t t_ms) {
  const DirResult& a = result_.dirs[d];
  const LatStats* now_lat[kLatKinds] = {&a.slat, &a.clat, &a.lat};
  static constexpr LogKind kLogOf[kLatKinds] = {kSlatLog, kClatLog, kLatLog};
  for (int k = 0; k < kLatKinds; k++) {
    const LatStats& prev = sample_prev_lat_[k][d];
    const uint64_t n = now_lat[k]->n - prev.n;
    LogWriter& log = logs_[kLogOf[k]];
    if (log.active() && n > 0) log.Line(t_ms, (now_lat[k]->sum - prev.sum) / n, d, 0, 0);
    sample_prev_lat_[k][d] = *now_lat[k];
  }
}

void Sampler::TakeSeriesPoint(uint64_t now) {
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
    if (const Histogram* h = hists_->at(kClat, d)) {
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

void Sampler::FoldLastSeriesPoint() {
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

// A sliver (the I/Os still in flight when the runtime ended) joins the interval before it
// rather than standing alone.
void Sampler::EndSeries(uint64_t now) {
  bool any = false;
  for (int d = 0; d < kDirs; d++) any |= result_.dirs[d].ios != series_prev_ios_[d];
  if (!any || now <= last_series_ns_) return;
  const bool sliver = !result_.series.empty() && now - last_series_ns_ < kMinSeriesTailNs;
  TakeSeriesPoint(now);
  if (sliver) FoldLastSeriesPoint();
}

void Sampler::PublishTotals() {
  for (int d = 0; d < kDirs; d++) {
    progress_.ios[d].store(result_.dirs[d].ios, std::memory_order_relaxed);
    progress_.bytes[d].store(result_.dirs[d].bytes, std::memory_order_relaxed);
  }
}

void Sampler::WriteIoLines(const IoUnit* u, uint64_t now, uint64_t clat, uint64_t lat, uint64_t slat) {
  const uint64_t t_ms = (now - measure_start_ns_) / 1000000;
  const unsigned d = u->ddir;
  if (logs_[kBwLog].active()) logs_[kBwLog].Line(t_ms, lat ? u->len * 1000000000ull / lat / 1024 : 0, d, u->len, u->offset);
  if (logs_[kIopsLog].active()) logs_[kIopsLog].Line(t_ms, 1, d, u->len, u->offset);
  if (logs_[kLatLog].active()) logs_[kLatLog].Line(t_ms, lat, d, u->len, u->offset);
  if (logs_[kClatLog].active()) logs_[kClatLog].Line(t_ms, clat, d, u->len, u->offset);
  if (logs_[kSlatLog].active() && !u->inline_done) logs_[kSlatLog].Line(t_ms, slat, d, u->len, u->offset);
}

}  // namespace vb
