#include "convert.h"

#include <sched.h>

#include <cmath>

#include "engines/registry.h"

namespace vb {
namespace {

Napi::Value Field(const Napi::Object& o, const char* name) {
  Napi::Value v = o.Get(name);
  if (v.IsUndefined()) throw Napi::TypeError::New(o.Env(), std::string("plan field '") + name + "' is missing");
  return v;
}

double Num(const Napi::Object& o, const char* name) {
  Napi::Value v = Field(o, name);
  if (!v.IsNumber()) throw Napi::TypeError::New(o.Env(), std::string("plan field '") + name + "' must be a number");
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || d < 0)
    throw Napi::TypeError::New(o.Env(), std::string("plan field '") + name + "' must be a finite number >= 0");
  return d;
}

[[noreturn]] void Refuse(Napi::Env env, const char* name, const std::string& what) {
  throw Napi::RangeError::New(env, std::string("plan field '") + name + "' must be " + what);
}

// A whole number from `min` to `max`: nothing is truncated or wrapped on its way into a field.
double Whole(const Napi::Object& o, const char* name, double min, double max) {
  const double d = Num(o, name);
  if (d != std::floor(d) || d < min || d > max) {
    Refuse(o.Env(), name, "a whole number from " + std::to_string(static_cast<uint64_t>(min)) + " to " +
                              std::to_string(static_cast<uint64_t>(max)));
  }
  return d;
}

// 2^64 - 2048: the largest double below 2^64, so the cast cannot overflow.
constexpr double kMaxU64 = 18446744073709549568.0;

uint64_t U64(const Napi::Object& o, const char* name) { return static_cast<uint64_t>(Whole(o, name, 0, kMaxU64)); }
uint32_t U32(const Napi::Object& o, const char* name) { return static_cast<uint32_t>(Whole(o, name, 0, UINT32_MAX)); }
uint32_t U32In(const Napi::Object& o, const char* name, uint32_t min, uint32_t max) {
  return static_cast<uint32_t>(Whole(o, name, min, max));
}


bool Bool(const Napi::Object& o, const char* name) {
  Napi::Value v = Field(o, name);
  if (!v.IsBoolean()) throw Napi::TypeError::New(o.Env(), std::string("plan field '") + name + "' must be a boolean");
  return v.As<Napi::Boolean>().Value();
}

std::string Str(const Napi::Object& o, const char* name) {
  Napi::Value v = Field(o, name);
  if (!v.IsString()) throw Napi::TypeError::New(o.Env(), std::string("plan field '") + name + "' must be a string");
  return v.As<Napi::String>().Utf8Value();
}

// A word of `words` (the plan's spelling of an enum): its index, or a RangeError naming the field
// and the words it takes. Nothing unknown is taken as a default.
template <size_t N>
size_t Word(const Napi::Object& o, const char* name, const char* const (&words)[N]) {
  const std::string s = Str(o, name);
  for (size_t i = 0; i < N; i++)
    if (s == words[i]) return i;
  std::string accepted = "one of";
  for (size_t i = 0; i < N; i++) accepted += std::string(i ? ", " : " ") + words[i];
  Refuse(o.Env(), name, accepted);
}

Napi::Array Arr(const Napi::Object& o, const char* name, uint32_t want_len) {
  Napi::Value v = Field(o, name);
  if (!v.IsArray()) throw Napi::TypeError::New(o.Env(), std::string("plan field '") + name + "' must be an array");
  Napi::Array a = v.As<Napi::Array>();
  if (want_len && a.Length() != want_len)
    throw Napi::TypeError::New(o.Env(), std::string("plan field '") + name + "' must have " + std::to_string(want_len) + " entries");
  return a;
}

Napi::Object Obj(const Napi::Object& o, const char* name) {
  Napi::Value v = Field(o, name);
  if (!v.IsObject()) throw Napi::TypeError::New(o.Env(), std::string("plan field '") + name + "' must be an object");
  return v.As<Napi::Object>();
}

uint64_t BigU64(const Napi::Object& o, const char* name) {
  Napi::Value v = Field(o, name);
  if (!v.IsBigInt()) throw Napi::TypeError::New(o.Env(), std::string("plan field '") + name + "' must be a bigint");
  bool lossless = true;
  return v.As<Napi::BigInt>().Uint64Value(&lossless);
}

// {dirFd, name}: a name relative to a directory descriptor the caller holds. dirFd -1 (or null
// where `nullable`) means nothing to open.
PathRef RefFromJs(Napi::Value v, const char* name, bool nullable) {
  if (nullable && v.IsNull()) return PathRef{};
  if (!v.IsObject()) throw Napi::TypeError::New(v.Env(), std::string("plan field '") + name + "' must be {dirFd, name}");
  Napi::Object o = v.As<Napi::Object>();
  Napi::Value fd = Field(o, "dirFd");
  if (!fd.IsNumber()) throw Napi::TypeError::New(v.Env(), std::string("plan field '") + name + ".dirFd' must be a number");
  const double d = fd.As<Napi::Number>().DoubleValue();
  if (!(d >= -1 && d < 1 << 30 && d == std::floor(d)))
    throw Napi::RangeError::New(v.Env(), std::string("plan field '") + name + ".dirFd' must be -1 or a descriptor number");
  PathRef ref;
  ref.dir_fd = static_cast<int>(d);
  ref.name = Str(o, "name");
  if (ref.dir_fd >= 0 && (ref.name.empty() || ref.name[0] == '/'))
    throw Napi::TypeError::New(v.Env(), std::string("plan field '") + name + ".name' must be a relative name");
  return ref;
}

// {kind: 'new' | 'file' | 'device', dev, ino, rdev}: what an open must find.
Expect ExpectFromJs(const Napi::Object& expect) {
  static const char* const kKinds[] = {"new", "file", "device"};
  static constexpr Expect::Kind kKindOf[] = {Expect::kNew, Expect::kFile, Expect::kDevice};
  Expect e;
  e.kind = kKindOf[Word(expect, "kind", kKinds)];
  e.dev = BigU64(expect, "dev");
  e.ino = BigU64(expect, "ino");
  e.rdev = BigU64(expect, "rdev");
  return e;
}

// One whole number per direction, each at most `max`.
void Triple(const Napi::Object& o, const char* name, uint64_t out[kDirs], double max = kMaxU64) {
  Napi::Array a = Arr(o, name, kDirs);
  for (uint32_t i = 0; i < kDirs; i++) {
    Napi::Value v = a.Get(i);
    const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(d >= 0 && d <= max && d == std::floor(d))) {
      Refuse(o.Env(), name, "three whole numbers from 0 to " + std::to_string(static_cast<uint64_t>(max)));
    }
    out[i] = static_cast<uint64_t>(d);
  }
}

const EngineEntry* EngineFromName(Napi::Env env, const std::string& s) {
  if (const EngineEntry* e = FindEngine(s)) return e;
  throw Napi::TypeError::New(env, "unknown engine '" + s + "'");
}

// The plan's words for each enum, in the enum's order.
const char* const kFallocateWords[] = {"none", "native", "posix", "keep", "truncate"};
const char* const kOSyncWords[] = {"none", "sync", "dsync"};
const char* const kFadviseWords[] = {"none", "random", "sequential"};
static_assert(static_cast<int>(Fallocate::kTruncate) == 4 && static_cast<int>(OSync::kDsync) == 2 &&
                  static_cast<int>(Fadvise::kSequential) == 2,
              "the words follow the enums");

Napi::Object IdentityToJs(Napi::Env env, uint64_t dev, uint64_t ino, uint64_t rdev) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("dev", Napi::BigInt::New(env, dev));
  o.Set("ino", Napi::BigInt::New(env, ino));
  o.Set("rdev", Napi::BigInt::New(env, rdev));
  return o;
}

Napi::Object LatToJs(Napi::Env env, const LatStats& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("n", static_cast<double>(s.n));
  o.Set("min", static_cast<double>(s.n ? s.min : 0));
  o.Set("max", static_cast<double>(s.max));
  o.Set("mean", s.Mean());
  o.Set("m2", s.M2());
  return o;
}

Napi::Object SteadyToJs(Napi::Env env, const SteadyResult& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("attained", s.attained);
  o.Set("criterion", s.criterion);
  o.Set("maxDeviation", s.max_deviation);
  o.Set("slope", s.slope);
  Napi::Array iops = Napi::Array::New(env, s.iops.size());
  Napi::Array bw = Napi::Array::New(env, s.bw.size());
  for (size_t i = 0; i < s.iops.size(); i++) {
    iops.Set(static_cast<uint32_t>(i), static_cast<double>(s.iops[i]));
    bw.Set(static_cast<uint32_t>(i), static_cast<double>(s.bw[i]));
  }
  o.Set("iops", iops);
  o.Set("bw", bw);
  return o;
}

Napi::Object SampleToJs(Napi::Env env, const SampleStats& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("n", static_cast<double>(s.n));
  o.Set("min", s.min);
  o.Set("max", s.max);
  o.Set("mean", s.mean);
  o.Set("m2", s.m2);
  return o;
}

Napi::Float64Array HistToJs(Napi::Env env, const Histogram* h) {
  Napi::Float64Array a = Napi::Float64Array::New(env, kHistBuckets);
  if (h != nullptr)
    for (int i = 0; i < kHistBuckets; i++) a[i] = static_cast<double>(h->counts[i]);
  return a;
}

Napi::Array CountsToJs(Napi::Env env, const uint64_t* c, int n) {
  Napi::Array a = Napi::Array::New(env, n);
  for (int i = 0; i < n; i++) a.Set(static_cast<uint32_t>(i), static_cast<double>(c[i]));
  return a;
}

Napi::Object SeriesPointToJs(Napi::Env env, const SeriesPoint& p) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("tMs", static_cast<double>(p.t_ms));
  o.Set("durMs", static_cast<double>(p.dur_ms));
  Napi::Array dirs = Napi::Array::New(env, kDirs);
  for (uint32_t d = 0; d < kDirs; d++) {
    Napi::Object s = Napi::Object::New(env);
    s.Set("ios", static_cast<double>(p.dirs[d].ios));
    s.Set("bytes", static_cast<double>(p.dirs[d].bytes));
    s.Set("clatMeanNs", p.dirs[d].clat_mean_ns);
    s.Set("clatP99Ns", static_cast<double>(p.dirs[d].clat_p99_ns));
    dirs.Set(d, s);
  }
  o.Set("dirs", dirs);
  return o;
}

}  // namespace

PathRef PathRefFromJs(Napi::Value v, const char* name) { return RefFromJs(v, name, false); }

namespace {

// An engine's options object in the plan, read for the engine (engines/engine.h).
class JsOptions final : public OptionSource {
 public:
  JsOptions(Napi::Object o, const char* engine) : o_(o), engine_(engine) {}
  bool Flag(const char* field) const override {
    Napi::Value v = o_.Get(field);
    if (!v.IsBoolean()) {
      throw Napi::TypeError::New(o_.Env(), std::string("plan field 'engines': the ") + engine_ + " option '" + field +
                                               "' must be a boolean");
    }
    return v.As<Napi::Boolean>().Value();
  }

 private:
  Napi::Object o_;
  const char* engine_;
};

// [{name, options}]: the engines to try, in order, each with its own options object.
void EnginesFromJs(const Napi::Object& o, JobPlan& p) {
  Napi::Env env = o.Env();
  Napi::Array engines = Arr(o, "engines", 0);
  for (uint32_t i = 0; i < engines.Length(); i++) {
    Napi::Value v = engines.Get(i);
    if (!v.IsObject()) throw Napi::TypeError::New(env, "plan field 'engines' must hold {name, options}");
    Napi::Object e = v.As<Napi::Object>();
    const EngineEntry* entry = EngineFromName(env, Str(e, "name"));
    p.engines.push_back(EngineChoice{entry, entry->read_options(JsOptions(Obj(e, "options"), entry->ops->name))});
  }
  if (p.engines.empty()) throw Napi::TypeError::New(env, "plan field 'engines' must not be empty");
}

// What the job opens, how, and what becomes of it.
void TargetFromJs(const Napi::Object& o, JobPlan& p) {
  p.path = Str(o, "path");
  p.anchor = Str(o, "anchor");
  p.memory_bytes = U64(o, "memoryBytes");
  p.target = RefFromJs(Field(o, "target"), "target", false);
  p.unlink_ref = RefFromJs(Field(o, "unlinkTarget"), "unlinkTarget", true);
  p.expect = ExpectFromJs(Obj(o, "expect"));
  Napi::Array forbidden = Arr(o, "forbidden", 0);
  for (uint32_t i = 0; i < forbidden.Length(); i++) {
    Napi::Value v = forbidden.Get(i);
    if (!v.IsBigInt()) throw Napi::TypeError::New(o.Env(), "plan field 'forbidden' must hold bigints");
    bool lossless = true;
    p.forbidden.push_back(v.As<Napi::BigInt>().Uint64Value(&lossless));
  }
  p.is_block_device = Bool(o, "isBlockDevice");
  p.direct = Bool(o, "direct");
  p.osync = static_cast<OSync>(Word(o, "osync", kOSyncWords));
  p.needs_write = Bool(o, "needsWrite");
  p.exclusive = Bool(o, "exclusive");
  p.layout_bytes = U64(o, "layoutBytes");
  p.layout_fill = Bool(o, "layoutFill");
  p.fallocate = static_cast<Fallocate>(Word(o, "fallocate", kFallocateWords));
  p.invalidate = Bool(o, "invalidate");
  p.fadvise = static_cast<Fadvise>(Word(o, "fadvise", kFadviseWords));
  p.unlink_after = Bool(o, "unlinkAfter");
}

// How much, for how long, and when it ends by steady state.
void ExtentFromJs(const Napi::Object& o, JobPlan& p) {
  p.region_offset = U64(o, "regionOffset");
  p.region_bytes = U64(o, "regionBytes");
  p.io_bytes_per_loop = U64(o, "ioBytesPerLoop");
  p.io_size_given = Bool(o, "ioSizeGiven");
  p.loops = U64(o, "loops");
  p.time_based = Bool(o, "timeBased");
  p.runtime_ns = U64(o, "runtimeNs");
  p.ramp_ns = U64(o, "rampNs");
  p.start_delay_ns = U64(o, "startDelayNs");
  p.steady.dur_s = U32(o, "ssDurS");
  p.steady.ramp_ns = U64(o, "ssRampNs");
  p.steady.bw = Bool(o, "ssBw");
  p.steady.slope = Bool(o, "ssSlope");
  p.steady.percent = Bool(o, "ssPercent");
  p.steady.limit = Num(o, "ssLimit");
  p.steady.group = U32(o, "ssGroup");
}

// Block sizes per direction: [[{bs, pct}], [..], [..]].
void BlockSizesFromJs(const Napi::Object& o, JobPlan& p) {
  Napi::Array bs = Arr(o, "bs", kDirs);
  for (uint32_t d = 0; d < kDirs; d++) {
    Napi::Value dv = bs.Get(d);
    if (!dv.IsArray()) throw Napi::TypeError::New(o.Env(), "plan field 'bs' must hold arrays");
    Napi::Array entries = dv.As<Napi::Array>();
    for (uint32_t i = 0; i < entries.Length(); i++) {
      Napi::Value ev = entries.Get(i);
      if (!ev.IsObject()) throw Napi::TypeError::New(o.Env(), "plan field 'bs' must hold arrays of {bs, pct}");
      Napi::Object e = ev.As<Napi::Object>();
      p.bs[d].push_back(BsEntry{U32In(e, "bs", 1, UINT32_MAX), U32In(e, "pct", 0, 100)});
    }
  }
  Triple(o, "blockAlign", p.block_align, UINT32_MAX);
  uint64_t range[kDirs];
  Triple(o, "bsRange", range, 1);
  for (int d = 0; d < kDirs; d++) p.bs_range[d] = range[d] != 0;
}

// The queue: depth and batching.
void QueueFromJs(const Napi::Object& o, JobPlan& p) {
  // fio's bound (options.c iodepth maxval), and the jobspec's: I/O slots are numbered in 16 bits.
  p.io_depth = U32In(o, "ioDepth", 1, 65535);
  p.batch_submit = U32(o, "batchSubmit");
  p.batch_complete_min = U32(o, "batchCompleteMin");
  p.batch_complete_max = U32In(o, "batchCompleteMax", 1, UINT32_MAX);
}

void BigTriple(const Napi::Object& o, const char* name, uint64_t out[kDirs]) {
  Napi::Array a = Arr(o, name, kDirs);
  for (uint32_t d = 0; d < kDirs; d++) {
    Napi::Value v = a.Get(d);
    if (!v.IsBigInt()) throw Napi::TypeError::New(o.Env(), std::string("plan field '") + name + "' must hold bigints");
    bool lossless = true;
    out[d] = v.As<Napi::BigInt>().Uint64Value(&lossless);
  }
}

// [[{access, size}], ...]: each direction's zones, whose accesses add up to 100 (or none) and
// sizes to at most 100, as the jobspec made them.
void ZonesFromJs(const Napi::Object& o, JobPlan& p) {
  Napi::Array zones = Arr(o, "zones", kDirs);
  for (uint32_t d = 0; d < kDirs; d++) {
    Napi::Value dv = zones.Get(d);
    if (!dv.IsArray()) throw Napi::TypeError::New(o.Env(), "plan field 'zones' must hold arrays of {access, size}");
    Napi::Array list = dv.As<Napi::Array>();
    uint32_t access = 0, size = 0;
    for (uint32_t i = 0; i < list.Length(); i++) {
      Napi::Value zv = list.Get(i);
      if (!zv.IsObject()) throw Napi::TypeError::New(o.Env(), "plan field 'zones' must hold arrays of {access, size}");
      Napi::Object z = zv.As<Napi::Object>();
      p.zones[d].push_back(ZoneSplit{U32In(z, "access", 0, 100), U32In(z, "size", 0, 100)});
      access += p.zones[d].back().access;
      size += p.zones[d].back().size;
    }
    if (!list.Length()) continue;
    if (access != 100 || size > 100) Refuse(o.Env(), "zones", "zones whose accesses add up to 100 and sizes to at most 100");
  }
}

// Where the I/Os go and in which direction: seeds, distribution, mix.
void PatternFromJs(const Napi::Object& o, JobPlan& p) {
  uint64_t random[kDirs];
  Triple(o, "random", random, 1);
  for (int d = 0; d < kDirs; d++) p.random[d] = random[d] != 0;
  p.read_pct = U32In(o, "readPct", 0, 100);
  p.trim_pct = U32In(o, "trimPct", 0, 100);
  p.rand_seed = BigU64(o, "randSeed");
  BigTriple(o, "fioSeedBs", p.fio_seed_bs);
  p.fio_seed_mix = BigU64(o, "fioSeedMix");
  p.fio_seed_block = BigU64(o, "fioSeedBlock");
  p.fio_reseed = Bool(o, "fioReseed");
  p.random_map = Bool(o, "randomMap");
  p.fio_map = Bool(o, "fioMap");
  p.distribution = static_cast<Distribution>(U32In(o, "distribution", 0, static_cast<uint32_t>(Distribution::kZoned)));
  p.distribution_param = Num(o, "distributionParam");
  ZonesFromJs(o, p);
  uint64_t perc[kDirs];
  Triple(o, "percentageRandom", perc, 100);
  for (int d = 0; d < kDirs; d++) p.perc_random[d] = static_cast<uint32_t>(perc[d]);
  p.fio_seed_seq_rand = BigU64(o, "fioSeedSeqRand");
  p.fio_seed_zone = BigU64(o, "fioSeedZone");
  BigTriple(o, "fioSeedPoisson", p.fio_seed_poisson);
}

// How fast: rates and think time.
void PaceFromJs(const Napi::Object& o, JobPlan& p) {
  Triple(o, "rateBytes", p.rate_bytes);
  Triple(o, "rateIops", p.rate_iops);
  p.rate_poisson = Bool(o, "ratePoisson");
  p.latency_target_ns = U64(o, "latencyTargetNs");
  p.latency_window_ns = U64(o, "latencyWindowNs");
  p.latency_percentile = Num(o, "latencyPercentile");
  if (p.latency_percentile > 100) Refuse(o.Env(), "latencyPercentile", "a percentage from 0 to 100");
  p.thinktime_ns = U64(o, "thinktimeNs");
  p.thinktime_blocks = U64(o, "thinktimeBlocks");
  if (p.thinktime_blocks == 0) p.thinktime_blocks = 1;
}

// What the buffers hold, what is verified, and what is synced.
void DataFromJs(const Napi::Object& o, JobPlan& p) {
  p.buffer_fill = static_cast<BufferFill>(U32In(o, "bufferFill", 0, static_cast<uint32_t>(BufferFill::kCompressible)));
  p.compress_pct = U32In(o, "compressPct", 0, 100);
  p.compress_chunk = U32(o, "compressChunk");
  p.refill_buffers = Bool(o, "refillBuffers");
  p.scramble_buffers = Bool(o, "scrambleBuffers");
  p.measure_huge_pages = Bool(o, "measureHugePages");
  p.verify_kind = static_cast<VerifyKind>(U32In(o, "verify", 0, static_cast<uint32_t>(VerifyKind::kMd5)));
  p.verify = p.verify_kind != VerifyKind::kNone;
  p.do_verify = Bool(o, "doVerify");
  p.verify_only = Bool(o, "verifyOnly");
  p.fsync_every = U64(o, "fsyncEvery");
  p.fdatasync_every = U64(o, "fdatasyncEvery");
  p.end_fsync = Bool(o, "endFsync");
}

// Which latencies are kept, how the series is sampled, and the logs.
void StatsFromJs(const Napi::Object& o, JobPlan& p) {
  p.disable_slat = Bool(o, "disableSlat");
  p.disable_clat = Bool(o, "disableClat");
  p.disable_lat = Bool(o, "disableLat");
  p.hist_slat = Bool(o, "histSlat");
  p.hist_clat = Bool(o, "histClat");
  p.hist_lat = Bool(o, "histLat");
  p.sample_window_ms = U64(o, "sampleWindowMs");
  if (p.sample_window_ms == 0) p.sample_window_ms = 500;
  p.series_interval_ms = U64(o, "seriesIntervalMs");
  if (p.series_interval_ms == 0) p.series_interval_ms = 1000;
}

// The logs, in LogKind order: path (for messages), how each is opened, and what it must be.
void LogsFromJs(const Napi::Object& o, JobPlan& p) {
  static constexpr std::string JobPlan::*kPaths[5] = {&JobPlan::bw_log_path, &JobPlan::iops_log_path,
                                                      &JobPlan::lat_log_path, &JobPlan::clat_log_path,
                                                      &JobPlan::slat_log_path};
  static const char* const kPathFields[5] = {"bwLogPath", "iopsLogPath", "latLogPath", "clatLogPath", "slatLogPath"};
  static const char* const kRefFields[5] = {"bwLog", "iopsLog", "latLog", "clatLog", "slatLog"};
  Napi::Array log_expects = Arr(o, "logExpects", 5);
  for (uint32_t i = 0; i < 5; i++) {
    p.*kPaths[i] = Str(o, kPathFields[i]);
    p.log_refs[i] = RefFromJs(Field(o, kRefFields[i]), kRefFields[i], true);
    Napi::Value v = log_expects.Get(i);
    if (!v.IsObject()) throw Napi::TypeError::New(o.Env(), "plan field 'logExpects' must hold {kind, dev, ino, rdev}");
    p.log_expects[i] = ExpectFromJs(v.As<Napi::Object>());
  }
  p.log_avg_ms = U64(o, "logAvgMs");
  p.log_offset = Bool(o, "logOffset");
}

// IoUnit::file numbers a job's files in 16 bits: its target and at most this many more.
constexpr uint32_t kMaxMoreFiles = 65534;

// The job's other files ([{path, target, unlinkTarget, expect, isBlockDevice, exclusive,
// layoutBytes, regionOffset, regionBytes}]) and how its I/Os are spread over them.
void FilesFromJs(const Napi::Object& o, JobPlan& p) {
  Napi::Env env = o.Env();
  Napi::Array files = Arr(o, "moreFiles", 0);
  // IoUnit::file numbers a job's files in 16 bits.
  if (files.Length() > kMaxMoreFiles) Refuse(env, "moreFiles", "at most " + std::to_string(kMaxMoreFiles) + " files");
  for (uint32_t i = 0; i < files.Length(); i++) {
    Napi::Value v = files.Get(i);
    if (!v.IsObject()) throw Napi::TypeError::New(env, "plan field 'moreFiles' must hold objects");
    Napi::Object f = v.As<Napi::Object>();
    FileTarget t;
    t.path = Str(f, "path");
    t.target = RefFromJs(Field(f, "target"), "moreFiles[].target", false);
    t.unlink_ref = RefFromJs(Field(f, "unlinkTarget"), "moreFiles[].unlinkTarget", true);
    t.expect = ExpectFromJs(Obj(f, "expect"));
    t.is_block_device = Bool(f, "isBlockDevice");
    t.exclusive = Bool(f, "exclusive");
    t.layout_bytes = U64(f, "layoutBytes");
    t.region_offset = U64(f, "regionOffset");
    t.region_bytes = U64(f, "regionBytes");
    p.more_files.push_back(std::move(t));
  }
  p.file_service = static_cast<FileService>(U32In(o, "fileService", 0, static_cast<uint32_t>(FileService::kRandom)));
  p.file_service_nr = U32In(o, "fileServiceNr", 1, UINT32_MAX);
  p.fio_seed_file = BigU64(o, "fioSeedFile");
}

// fio's --status-interval, in ns (0: no reports while the run goes on). At most 2^62 ns (146
// years): the monotonic clock plus an interval, or a few of them, must not wrap.
void StatusFromJs(const Napi::Object& o, JobPlan& p) {
  p.status_interval_ns = static_cast<uint64_t>(Whole(o, "statusIntervalNs", 0, 4611686018427387904.0));
}

void CpusFromJs(const Napi::Object& o, JobPlan& p) {
  Napi::Array cpus = Arr(o, "cpus", 0);
  if (cpus.Length() > CPU_SETSIZE) throw Napi::TypeError::New(o.Env(), "plan field 'cpus' holds more CPUs than a cpu_set_t");
  for (uint32_t i = 0; i < cpus.Length(); i++) {
    Napi::Value v = cpus.Get(i);
    const double n = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(n >= 0 && n < CPU_SETSIZE && n == static_cast<int>(n))) {
      throw Napi::TypeError::New(o.Env(), "plan field 'cpus' must hold CPU numbers below " + std::to_string(CPU_SETSIZE));
    }
    p.cpus.push_back(static_cast<uint16_t>(n));
  }
}

}  // namespace

JobPlan PlanFromJs(const Napi::Object& o) {
  JobPlan p;
  p.job_name = Str(o, "jobName");
  p.instance = U32(o, "instance");
  static void (*const kParts[])(const Napi::Object&, JobPlan&) = {
      EnginesFromJs, TargetFromJs, ExtentFromJs, BlockSizesFromJs, QueueFromJs, PatternFromJs,
      PaceFromJs,    DataFromJs,   StatsFromJs,  LogsFromJs,       CpusFromJs,
      FilesFromJs,   StatusFromJs,
  };
  for (auto part : kParts) part(o, p);
  if (p.MaxBs() == 0) throw Napi::RangeError::New(o.Env(), "plan has no block size");
  return p;
}

namespace {

// A job's result as JavaScript reads it: `r` its statistics (final, or a status report's), with
// `hist(kind, dir)` and `sync_hist` the histograms behind them.
template <class Hist>
Napi::Object ResultToJs(Napi::Env env, Job& job, const JobResult& r, Hist&& hist, const Histogram* sync_hist) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("jobName", job.plan().job_name);
  o.Set("instance", job.plan().instance);
  o.Set("engine", (r.engine ? r.engine : job.plan().engines.front().entry->ops)->name);
  o.Set("error", r.error);
  o.Set("errorSyscall", r.error_syscall);
  o.Set("errorMessage", r.error_message);
  o.Set("cancelled", r.cancelled);
  o.Set("stuckIos", static_cast<double>(r.stuck_ios));
  o.Set("bufferBytes", static_cast<double>(r.buffer_bytes));
  o.Set("hugePageBytes", static_cast<double>(r.huge_page_bytes));
  o.Set("registeredBuffers", r.registered_buffers);
  o.Set("registeredFiles", r.registered_files);
  o.Set("startedAtMs", static_cast<double>(r.started_at_ms));
  o.Set("runtimeNs", static_cast<double>(r.runtime_ns));
  o.Set("elapsedNs", static_cast<double>(r.elapsed_ns));
  o.Set("tid", r.tid);
  // The regular file the job opened (0n when none): a later stage must find the same there.
  o.Set("opened", IdentityToJs(env, job.opened_dev(), job.opened_ino(), 0));
  // The same for the job's other files, in their order.
  const size_t more = job.plan().more_files.size();
  Napi::Array more_opened = Napi::Array::New(env, more);
  for (size_t i = 0; i < more; i++)
    more_opened.Set(static_cast<uint32_t>(i), IdentityToJs(env, job.opened_dev(i + 1), job.opened_ino(i + 1), 0));
  o.Set("moreOpened", more_opened);
  Napi::Array dirs = Napi::Array::New(env, kDirs);
  for (int d = 0; d < kDirs; d++) {
    const DirResult& a = r.dirs[d];
    Napi::Object x = Napi::Object::New(env);
    x.Set("ioBytes", static_cast<double>(a.bytes));
    x.Set("totalIos", static_cast<double>(a.ios + a.failed_ios));
    x.Set("shortIos", static_cast<double>(a.short_ios));
    x.Set("dropIos", static_cast<double>(a.drop_ios));
    x.Set("runtimeNs", static_cast<double>(a.runtime_ns));
    x.Set("slat", LatToJs(env, a.slat));
    x.Set("clat", LatToJs(env, a.clat));
    x.Set("lat", LatToJs(env, a.lat));
    x.Set("slatHist", HistToJs(env, hist(kSlat, d)));
    x.Set("clatHist", HistToJs(env, hist(kClat, d)));
    x.Set("latHist", HistToJs(env, hist(kLat, d)));
    x.Set("bw", SampleToJs(env, a.bw));
    x.Set("iops", SampleToJs(env, a.iops));
    dirs.Set(static_cast<uint32_t>(d), x);
  }
  o.Set("dirs", dirs);
  Napi::Object sync = Napi::Object::New(env);
  sync.Set("totalIos", static_cast<double>(r.sync_ios));
  sync.Set("lat", LatToJs(env, r.sync_lat));
  sync.Set("latHist", HistToJs(env, sync_hist));
  o.Set("sync", sync);
  o.Set("usrNs", static_cast<double>(r.usr_ns));
  o.Set("sysNs", static_cast<double>(r.sys_ns));
  o.Set("ctx", static_cast<double>(r.ctx));
  o.Set("majf", static_cast<double>(r.majf));
  o.Set("minf", static_cast<double>(r.minf));
  o.Set("iodepthLevel", CountsToJs(env, r.depth_level, kDepthBuckets));
  o.Set("iodepthSubmit", CountsToJs(env, r.depth_submit, kDepthBuckets));
  o.Set("iodepthComplete", CountsToJs(env, r.depth_complete, kDepthBuckets));
  o.Set("latencyDepth", r.latency_depth);
  Napi::Array series = Napi::Array::New(env, r.series.size());
  for (size_t i = 0; i < r.series.size(); i++) series.Set(static_cast<uint32_t>(i), SeriesPointToJs(env, r.series[i]));
  o.Set("series", series);
  return o;
}

}  // namespace

Napi::Object JobResultToJs(Napi::Env env, Job& job) {
  Napi::Object o = ResultToJs(env, job, job.result(), [&job](LatKind k, int d) { return job.hist(k, d); }, job.sync_hist());
  if (const SteadyGroup* group = job.steady_group()) o.Set("steady", SteadyToJs(env, group->Snapshot()));
  return o;
}

Napi::Object StatusToJs(Napi::Env env, Job& job, const StatusSnapshot& s) {
  return ResultToJs(env, job, s.result, [&s](LatKind k, int d) { return s.hist(k, d); }, s.sync_hist());
}

Napi::Object TargetInfoToJs(Napi::Env env, const TargetInfo& info) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("path", info.path);
  o.Set("exists", info.exists);
  o.Set("isBlockDevice", info.is_block_device);
  o.Set("isRegularFile", info.is_regular_file);
  o.Set("sizeBytes", static_cast<double>(info.size_bytes));
  o.Set("logicalBlockSize", info.logical_block_size);
  o.Set("physicalBlockSize", info.physical_block_size);
  o.Set("devMajor", info.dev_major);
  o.Set("devMinor", info.dev_minor);
  o.Set("fsType", info.fs_type);
  o.Set("fsFreeBytes", static_cast<double>(info.fs_free_bytes));
  o.Set("directOk", info.direct_ok);
  o.Set("identity", IdentityToJs(env, info.file_dev, info.ino, info.rdev));
  o.Set("error", info.error);
  return o;
}

ProgressSnapshot SnapshotProgress(Job& job, uint64_t now) {
  ProgressSnapshot s;
  JobProgress& p = job.progress();
  s.job_name = job.plan().job_name;
  s.instance = job.plan().instance;
  s.phase = static_cast<Phase>(p.phase.load(std::memory_order_acquire));
  s.elapsed_ms = p.elapsed_ms.load(std::memory_order_relaxed);
  // The end of the runtime is known once the job has begun it: what is left of it is exact,
  // where the elapsed time above is as of the last sample.
  const uint64_t deadline = p.deadline_ns.load(std::memory_order_relaxed);
  if (deadline != 0 && s.phase != Phase::kDone) s.ends_in_ms = deadline > now ? static_cast<int64_t>((deadline - now) / 1000000) : 0;
  for (int d = 0; d < kDirs; d++) {
    s.ios[d] = p.ios[d].load(std::memory_order_relaxed);
    s.bytes[d] = p.bytes[d].load(std::memory_order_relaxed);
  }
  std::lock_guard<std::mutex> lock(p.last_mutex);
  s.has_last = p.has_last;
  s.last = p.last;
  return s;
}

Napi::Object StuckTotalsToJs(Napi::Env env, const StuckTotals& totals) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("limit", totals.limit);
  o.Set("threads", totals.threads);
  o.Set("memoryBytes", static_cast<double>(totals.memory_bytes));
  Napi::Array entries = Napi::Array::New(env, totals.entries.size());
  for (size_t i = 0; i < totals.entries.size(); i++) {
    const StuckEntry& e = totals.entries[i];
    Napi::Object x = Napi::Object::New(env);
    x.Set("kind", e.kind == StuckEntry::kJob ? "job" : "call");
    x.Set("anchor", e.anchor);
    x.Set("ios", e.ios);
    x.Set("threads", e.threads);
    x.Set("memoryBytes", static_cast<double>(e.memory_bytes));
    x.Set("stuck", e.stuck);
    entries.Set(static_cast<uint32_t>(i), x);
  }
  o.Set("entries", entries);
  return o;
}

Napi::Array CreatedToJs(Napi::Env env, const std::vector<CreatedFile>& created) {
  Napi::Array a = Napi::Array::New(env, created.size());
  for (size_t i = 0; i < created.size(); i++) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("job", created[i].job);
    o.Set("file", created[i].file);
    o.Set("dev", Napi::BigInt::New(env, created[i].dev));
    o.Set("ino", Napi::BigInt::New(env, created[i].ino));
    o.Set("stamp", created[i].stamp);
    a.Set(static_cast<uint32_t>(i), o);
  }
  return a;
}

Napi::Array ProgressToJs(Napi::Env env, const std::vector<ProgressSnapshot>& snaps) {
  Napi::Array a = Napi::Array::New(env, snaps.size());
  for (size_t i = 0; i < snaps.size(); i++) {
    const ProgressSnapshot& s = snaps[i];
    Napi::Object o = Napi::Object::New(env);
    o.Set("jobName", s.job_name);
    o.Set("instance", s.instance);
    o.Set("phase", PhaseName(s.phase));
    o.Set("elapsedMs", static_cast<double>(s.elapsed_ms));
    o.Set("ios", CountsToJs(env, s.ios, kDirs));
    o.Set("bytes", CountsToJs(env, s.bytes, kDirs));
    if (s.has_last) o.Set("last", SeriesPointToJs(env, s.last));
    if (s.ends_in_ms >= 0) o.Set("endsInMs", static_cast<double>(s.ends_in_ms));
    if (s.has_layout) {
      Napi::Object l = Napi::Object::New(env);
      l.Set("doneBytes", static_cast<double>(s.layout_done_bytes));
      l.Set("totalBytes", static_cast<double>(s.layout_total_bytes));
      l.Set("elapsedMs", static_cast<double>(s.layout_ms));
      l.Set("ended", s.layout_ended);
      o.Set("layout", l);
    }
    a.Set(static_cast<uint32_t>(i), o);
  }
  return a;
}

}  // namespace vb
