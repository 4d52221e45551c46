// volbench's native surface: five functions, nothing else.
#include <napi.h>

#include "beneath.h"
#include "convert.h"
#include "probe.h"
#include "runner.h"
#include "target.h"

namespace vb {
namespace {

Registry* GetRegistry(Napi::Env env) { return env.GetInstanceData<Registry>(); }

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

// probeTarget(path, ref?): what the kernel says of a path, off the JS thread: a stat, an open
// and a few ioctls can take long on a network filesystem or an ailing device, and the event
// loop must never wait on I/O. With ref ({dirFd, name}) it looks beneath that directory.
class ProbeWorker : public Napi::AsyncWorker {
 public:
  ProbeWorker(Napi::Env env, std::string path, PathRef ref, bool has_ref)
      : Napi::AsyncWorker(env, "volbench-probe"), path_(std::move(path)), ref_(std::move(ref)), has_ref_(has_ref),
        deferred_(Napi::Promise::Deferred::New(env)) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }
  void Execute() override { info_ = ProbeTarget(path_, has_ref_ ? &ref_ : nullptr); }
  void OnOK() override { deferred_.Resolve(TargetInfoToJs(Env(), info_)); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  std::string path_;
  PathRef ref_;
  bool has_ref_;
  TargetInfo info_;
  Napi::Promise::Deferred deferred_;
};

Napi::Value ProbeTargetJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "probeTarget(path: string, ref?: {dirFd, name})");
  const bool has_ref = info.Length() > 1 && !info[1].IsUndefined();
  PathRef ref = has_ref ? PathRefFromJs(info[1], "ref") : PathRef{};
  auto* worker = new ProbeWorker(env, info[0].As<Napi::String>().Utf8Value(), std::move(ref), has_ref);
  Napi::Promise promise = worker->Promise();
  worker->Queue();  // deletes itself once settled
  return promise;
}

// removeFile(ref, dev, ino): unlinks a regular file beneath a held directory, only while it is
// still that file (ino 0n: any regular file there), off the JS thread (freeing a large file's
// blocks takes time). Resolves to 0 or an errno.
class RemoveWorker : public Napi::AsyncWorker {
 public:
  RemoveWorker(Napi::Env env, PathRef ref, uint64_t dev, uint64_t ino)
      : Napi::AsyncWorker(env, "volbench-remove"), ref_(std::move(ref)), dev_(dev), ino_(ino),
        deferred_(Napi::Promise::Deferred::New(env)) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }
  void Execute() override { err_ = UnlinkBeneath(ref_, dev_, ino_); }
  void OnOK() override { deferred_.Resolve(Napi::Number::New(Env(), err_)); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  PathRef ref_;
  uint64_t dev_, ino_;
  int err_ = 0;
  Napi::Promise::Deferred deferred_;
};

Napi::Value RemoveFileJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[1].IsBigInt() || !info[2].IsBigInt())
    throw Napi::TypeError::New(env, "removeFile(ref: {dirFd, name}, dev: bigint, ino: bigint)");
  PathRef ref = PathRefFromJs(info[0], "ref");
  bool lossless = true;
  const uint64_t dev = info[1].As<Napi::BigInt>().Uint64Value(&lossless);
  const uint64_t ino = info[2].As<Napi::BigInt>().Uint64Value(&lossless);
  auto* worker = new RemoveWorker(env, std::move(ref), dev, ino);
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
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
  env.AddCleanupHook(Cleanup, static_cast<void*>(reg));
  exports.Set("runJobs", Napi::Function::New(env, RunJobs, "runJobs"));
  exports.Set("cancel", Napi::Function::New(env, Cancel, "cancel"));
  exports.Set("probeTarget", Napi::Function::New(env, ProbeTargetJs, "probeTarget"));
  exports.Set("removeFile", Napi::Function::New(env, RemoveFileJs, "removeFile"));
  exports.Set("engines", Napi::Function::New(env, Engines, "engines"));
  return exports;
}

}  // namespace vb

static Napi::Object InitVolbench(Napi::Env env, Napi::Object exports) { return vb::Init(env, exports); }

NODE_API_MODULE(volbench, InitVolbench)
