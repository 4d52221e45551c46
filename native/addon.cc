// volbench's native surface: eight functions, nothing else.
#include <napi.h>

#include "beneath.h"
#include "convert.h"
#include "nvme_log_page.h"
#include "probe.h"
#include "root_call.h"
#include "stuck_tally.h"
#include "runner.h"
#include "target.h"

namespace vb {
namespace {

Registry* GetRegistry(Napi::Env env) { return env.GetInstanceData<Registry>(); }

// How long a probe or a removal may take before its root counts as not answering.
constexpr uint64_t kRootCallDeadlineMs = 5000;

// runJobs(plans: object[], onProgress: fn, statPaths?: string[]) -> { id, promise }; the promise
// resolves to { jobs, afterLayout: { stats, ms } | null }.
Napi::Value RunJobs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsArray() || !info[1].IsFunction())
    throw Napi::TypeError::New(env, "runJobs(plans: object[], onProgress: function, statPaths?: string[])");
  std::vector<std::string> stat_paths;
  if (info.Length() > 2 && !info[2].IsUndefined()) {
    if (!info[2].IsArray()) throw Napi::TypeError::New(env, "runJobs: statPaths must be an array of strings");
    Napi::Array paths = info[2].As<Napi::Array>();
    // One per device behind the run's targets (slaves included): a handful.
    if (paths.Length() > 4096) throw Napi::TypeError::New(env, "runJobs: more than 4096 statPaths");
    for (uint32_t i = 0; i < paths.Length(); i++) {
      Napi::Value v = paths.Get(i);
      if (!v.IsString()) throw Napi::TypeError::New(env, "runJobs: statPaths must be an array of strings");
      stat_paths.push_back(v.As<Napi::String>().Utf8Value());
    }
  }
  Napi::Array arr = info[0].As<Napi::Array>();
  if (arr.Length() == 0) throw Napi::TypeError::New(env, "runJobs needs at least one plan");
  std::vector<JobPlan> plans;
  plans.reserve(arr.Length());
  for (uint32_t i = 0; i < arr.Length(); i++) {
    Napi::Value v = arr.Get(i);
    if (!v.IsObject()) throw Napi::TypeError::New(env, "each plan must be an object");
    plans.push_back(PlanFromJs(v.As<Napi::Object>()));
  }
  Registry* reg = GetRegistry(env);
  Run* run;
  {
    std::lock_guard<std::mutex> lock(reg->mutex);
    const uint32_t id = reg->next_id++;
    run = new Run(reg, id, std::move(plans), std::move(stat_paths));
    reg->runs[id] = run;
  }
  const uint32_t id = run->id();
  Napi::Promise promise = run->Start(env, info[1].As<Napi::Function>());
  Napi::Object out = Napi::Object::New(env);
  out.Set("id", id);
  out.Set("promise", promise);
  return out;
}

// cancel(id): stops a run's I/O. Unknown or finished ids are ignored (idempotent).
Napi::Value Cancel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "cancel(id: number)");
  const uint32_t id = info[0].As<Napi::Number>().Uint32Value();
  Registry* reg = GetRegistry(env);
  std::lock_guard<std::mutex> lock(reg->mutex);
  auto it = reg->runs.find(id);
  if (it != reg->runs.end()) it->second->Cancel();
  return env.Undefined();
}

// The root a call is made beneath and its deadline: arguments `at` and `at + 1` (optional).
RootCallSpec RootCallArgs(const Napi::CallbackInfo& info, size_t at, const char* name, int dir_fd) {
  RootCallSpec spec{name, "", kRootCallDeadlineMs, dir_fd};
  if (info.Length() > at && info[at].IsString()) spec.anchor = info[at].As<Napi::String>().Utf8Value();
  if (info.Length() > at + 1 && info[at + 1].IsNumber()) {
    const double ms = info[at + 1].As<Napi::Number>().DoubleValue();
    spec.deadline_ms = ms >= 1 && ms <= 3600000 ? static_cast<uint64_t>(ms) : kRootCallDeadlineMs;
  }
  return spec;
}

// probeTarget(path, ref?, anchor?, deadlineMs?): what the kernel says of a path, on a thread of
// its own (root_call.h). With ref ({dirFd, name}) it looks beneath that directory. Null when the
// process holds as many stuck threads as it may.
Napi::Value ProbeTargetJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString())
    throw Napi::TypeError::New(env, "probeTarget(path: string, ref?: {dirFd, name}, anchor?: string, deadlineMs?: number)");
  const bool has_ref = info.Length() > 1 && !info[1].IsUndefined() && !info[1].IsNull();
  const PathRef ref = has_ref ? PathRefFromJs(info[1], "ref") : PathRef{};
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  auto result = std::make_shared<TargetInfo>();
  return CallOnRoot(
      env, RootCallArgs(info, 2, "volbench-probe", has_ref ? ref.dir_fd : -1),
      [path, ref, has_ref, result](int dir_fd) {
        const PathRef own{dir_fd, ref.name};
        *result = ProbeTarget(path, has_ref ? &own : nullptr);
      },
      [result](Napi::Env e) -> Napi::Value { return TargetInfoToJs(e, *result); });
}

// removeFile(ref, dev, ino, anchor?, deadlineMs?, stamp?): unlinks a regular file beneath a
// held directory, only while it is still that file (and, with a stamp, has that FileStamp), its
// directories walked without following links, on a thread of its own. Resolves to 0 or an
// errno; null as probeTarget.
Napi::Value RemoveFileJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[1].IsBigInt() || !info[2].IsBigInt() || (info.Length() > 5 && !info[5].IsString()))
    throw Napi::TypeError::New(
        env, "removeFile(ref: {dirFd, name}, dev: bigint, ino: bigint, anchor?: string, deadlineMs?: number, stamp?: string)");
  const PathRef ref = PathRefFromJs(info[0], "ref");
  bool lossless = true;
  const uint64_t dev = info[1].As<Napi::BigInt>().Uint64Value(&lossless);
  const uint64_t ino = info[2].As<Napi::BigInt>().Uint64Value(&lossless);
  const std::string stamp = info.Length() > 5 ? info[5].As<Napi::String>().Utf8Value() : "";
  auto err = std::make_shared<int>(0);
  return CallOnRoot(
      env, RootCallArgs(info, 3, "volbench-remove", ref.dir_fd),
      [ref, dev, ino, stamp, err](int dir_fd) { *err = UnlinkBeneath(PathRef{dir_fd, ref.name}, dev, ino, false, stamp); },
      [err](Napi::Env e) -> Napi::Value { return Napi::Number::New(e, *err); });
}

// The request of readNvmeLogPage: {path, charDevice, rdev, lid, nsid, bytes, timeoutMs}.
NvmeLogPageRequest NvmeRequestFromJs(Napi::Env env, Napi::Value v) {
  const char* usage = "readNvmeLogPage({path, charDevice, rdev: bigint, lid, nsid, bytes, timeoutMs}, anchor?, deadlineMs?)";
  if (!v.IsObject()) throw Napi::TypeError::New(env, usage);
  Napi::Object o = v.As<Napi::Object>();
  if (!o.Get("path").IsString() || !o.Get("charDevice").IsBoolean() || !o.Get("rdev").IsBigInt() || !o.Get("lid").IsNumber() ||
      !o.Get("nsid").IsNumber() || !o.Get("bytes").IsNumber() || !o.Get("timeoutMs").IsNumber())
    throw Napi::TypeError::New(env, usage);
  NvmeLogPageRequest r;
  r.path = o.Get("path").As<Napi::String>().Utf8Value();
  r.char_device = o.Get("charDevice").As<Napi::Boolean>().Value();
  bool lossless = true;
  r.rdev = o.Get("rdev").As<Napi::BigInt>().Uint64Value(&lossless);
  const double lid = o.Get("lid").As<Napi::Number>().DoubleValue();
  const double nsid = o.Get("nsid").As<Napi::Number>().DoubleValue();
  const double bytes = o.Get("bytes").As<Napi::Number>().DoubleValue();
  const double timeout = o.Get("timeoutMs").As<Napi::Number>().DoubleValue();
  if (!(lid >= 0 && lid <= 255) || !(nsid >= 0 && nsid <= 4294967295.0) || !(bytes >= 4 && bytes <= kMaxNvmeLogPageBytes) ||
      !(timeout >= 0 && timeout <= 3600000) || !lossless)
    throw Napi::RangeError::New(env, "readNvmeLogPage: lid 0-255, nsid 32 bits, bytes 4-65536, timeoutMs 0-3600000");
  r.lid = static_cast<uint8_t>(lid);
  r.nsid = static_cast<uint32_t>(nsid);
  r.bytes = static_cast<uint32_t>(bytes);
  if (r.bytes % 4 != 0) throw Napi::RangeError::New(env, "readNvmeLogPage: bytes must be a multiple of 4");
  r.timeout_ms = static_cast<uint32_t>(timeout);
  return r;
}

// readNvmeLogPage(request, anchor?, deadlineMs?): one NVMe log page (nvme_log_page.h), on a
// thread of its own with a deadline (root_call.h): resolves to {errno, syscall, why, status,
// data: Buffer | null}; null as probeTarget.
Napi::Value ReadNvmeLogPageJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const NvmeLogPageRequest request = NvmeRequestFromJs(env, info.Length() > 0 ? info[0] : env.Undefined());
  auto result = std::make_shared<NvmeLogPageResult>();
  return CallOnRoot(
      env, RootCallArgs(info, 1, "volbench-nvme-log", -1),
      [request, result](int) { *result = ReadNvmeLogPage(request); },
      [result](Napi::Env e) -> Napi::Value {
        Napi::Object out = Napi::Object::New(e);
        out.Set("errno", result->err);
        out.Set("syscall", result->syscall);
        out.Set("why", result->why);
        out.Set("status", result->status);
        if (result->data.empty()) out.Set("data", e.Null());
        else out.Set("data", Napi::Buffer<uint8_t>::Copy(e, result->data.data(), result->data.size()));
        return out;
      });
}

// stuck(): the process's stuck threads (stuck_tally.h): {limit, threads, memoryBytes, entries}.
Napi::Value StuckJs(const Napi::CallbackInfo& info) { return StuckTotalsToJs(info.Env(), stuck_tally::Snapshot()); }

// setStuckLimit(n): the most stuck threads the process keeps.
Napi::Value SetStuckLimitJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "setStuckLimit(limit: number)");
  const double n = info[0].As<Napi::Number>().DoubleValue();
  if (!(n >= 1 && n <= 65536)) throw Napi::RangeError::New(env, "setStuckLimit takes 1 to 65536");
  stuck_tally::SetLimit(static_cast<uint32_t>(n));
  return env.Undefined();
}

Napi::Value Engines(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::vector<std::string>& names = AvailableEngines();
  Napi::Array a = Napi::Array::New(env, names.size());
  for (size_t i = 0; i < names.size(); i++) a.Set(static_cast<uint32_t>(i), names[i]);
  return a;
}

// When Node exits with runs still going: stop their I/O and join their threads, so no thread
// outlives the environment it reports to.
void Cleanup(void* data) {
  Registry* reg = static_cast<Registry*>(data);
  std::vector<Run*> runs;
  {
    std::lock_guard<std::mutex> lock(reg->mutex);
    for (auto& kv : reg->runs) runs.push_back(kv.second);
  }
  for (Run* r : runs) r->Cancel();
  for (Run* r : runs) r->Join();
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* reg = new Registry();
  env.SetInstanceData<Registry>(reg);
  // The registry is the hook's argument itself. node-addon-api's AddCleanupHook would allocate a
  // holder for the pair, freed only when the hook runs: process.exit() skips cleanup hooks, and
  // Node 24.22 no longer keeps a pointer to that holder once it exits, so LeakSanitizer counted
  // it as the addon's leak.
  if (napi_add_env_cleanup_hook(env, Cleanup, reg) != napi_ok) {
    throw Napi::Error::New(env, "volbench: cannot register the cleanup hook that joins runs at exit");
  }
  exports.Set("runJobs", Napi::Function::New(env, RunJobs, "runJobs"));
  exports.Set("cancel", Napi::Function::New(env, Cancel, "cancel"));
  exports.Set("probeTarget", Napi::Function::New(env, ProbeTargetJs, "probeTarget"));
  exports.Set("removeFile", Napi::Function::New(env, RemoveFileJs, "removeFile"));
  exports.Set("readNvmeLogPage", Napi::Function::New(env, ReadNvmeLogPageJs, "readNvmeLogPage"));
  exports.Set("engines", Napi::Function::New(env, Engines, "engines"));
  exports.Set("stuck", Napi::Function::New(env, StuckJs, "stuck"));
  exports.Set("setStuckLimit", Napi::Function::New(env, SetStuckLimitJs, "setStuckLimit"));
  return exports;
}

}  // namespace vb

static Napi::Object InitVolbench(Napi::Env env, Napi::Object exports) { return vb::Init(env, exports); }

NODE_API_MODULE(volbench, InitVolbench)
