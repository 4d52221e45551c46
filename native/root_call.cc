#include "root_call.h"

#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <system_error>
#include <thread>

#include "clock.h"
#include "stuck_tally.h"

namespace vb {
namespace {

struct Call {
  StuckEntry entry;
  int dir_fd = -1;
  std::function<void(int)> work;
  std::function<Napi::Value(Napi::Env)> to_js;
  Napi::Promise::Deferred deferred;
  Napi::ThreadSafeFunction tsfn;

  explicit Call(Napi::Env env) : deferred(Napi::Promise::Deferred::New(env)) {}
};

void Settle(Napi::Env env, Napi::Function, Call* call) {
  std::unique_ptr<Call> owned(call);
  if (env == nullptr) return;  // the environment is going away
  Napi::HandleScope scope(env);
  owned->deferred.Resolve(owned->to_js(env));
}

void RunCall(Call* call) {
  call->work(call->dir_fd);
  if (call->dir_fd >= 0) close(call->dir_fd);
  stuck_tally::Remove(&call->entry);
  Napi::ThreadSafeFunction tsfn = call->tsfn;
  // When the environment is closing, the call is never delivered: it is freed here.
  if (tsfn.NonBlockingCall(call, Settle) != napi_ok) delete call;
  tsfn.Release();
}

}  // namespace

Napi::Value CallOnRoot(Napi::Env env, const RootCallSpec& spec, std::function<void(int)> work,
                       std::function<Napi::Value(Napi::Env)> to_js) {
  auto call = std::make_unique<Call>(env);
  call->entry.kind = StuckEntry::kCall;
  call->entry.anchor = spec.anchor;
  call->entry.ios = 1;
  call->entry.threads = 1;
  call->entry.deadline_ns = NowNs() + spec.deadline_ms * 1000000ull;
  if (!stuck_tally::Add(&call->entry)) return env.Null();
  call->dir_fd = spec.dir_fd >= 0 ? fcntl(spec.dir_fd, F_DUPFD_CLOEXEC, 0) : -1;
  call->work = std::move(work);
  call->to_js = std::move(to_js);
  Napi::Function noop = Napi::Function::New(env, [](const Napi::CallbackInfo&) {});
  call->tsfn = Napi::ThreadSafeFunction::New(env, noop, spec.name, 0, 1);
  // A thread stuck in the kernel must not keep the process from exiting.
  call->tsfn.Unref(env);
  Napi::Promise promise = call->deferred.Promise();
  Call* raw = call.get();
  try {
    std::thread([raw] { RunCall(raw); }).detach();
  } catch (const std::system_error&) {
    stuck_tally::Remove(&raw->entry);
    if (raw->dir_fd >= 0) close(raw->dir_fd);
    raw->tsfn.Release();
    return env.Null();
  }
  call.release();
  return promise;
}

}  // namespace vb
