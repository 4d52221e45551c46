#include "root_call.h"

#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <mutex>
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
  napi_env env;
  // Whether the environment the call answers to still exists: a worker thread's environment can
  // end while the call is stuck, taking the thread-safe function with it.
  std::mutex mutex;
  bool env_alive = true;

  explicit Call(Napi::Env e) : deferred(Napi::Promise::Deferred::New(e)), env(e) {}
};

// An environment cleanup hook, added after the thread-safe function was made, so it runs before
// that function is torn down: from here on the thread leaves the function alone.
void EnvGone(void* arg) {
  Call* call = static_cast<Call*>(arg);
  std::lock_guard<std::mutex> lock(call->mutex);
  call->env_alive = false;
}

void Settle(Napi::Env env, Napi::Function, Call* call) {
  // The thread may still be inside its last calls on the function, under the lock.
  { std::lock_guard<std::mutex> wait(call->mutex); }
  std::unique_ptr<Call> owned(call);
  if (env == nullptr) return;  // the environment is going away
  napi_remove_env_cleanup_hook(env, EnvGone, call);
  // Called from the thread-safe function's queue, where a C++ exception would end the process:
  // an environment that is shutting down refuses the promise's settlement, and that is all.
  try {
    Napi::HandleScope scope(env);
    owned->deferred.Resolve(owned->to_js(env));
  } catch (const Napi::Error&) {
  }
}

void RunCall(Call* call) {
  call->work(call->dir_fd);
  if (call->dir_fd >= 0) close(call->dir_fd);
  stuck_tally::Remove(&call->entry);
  std::unique_lock<std::mutex> lock(call->mutex);
  if (!call->env_alive) {
    // Nobody to answer: the environment has ended, and its cleanup is done with the call.
    lock.unlock();
    delete call;
    return;
  }
  // Queued, the call is the queue's: Settle frees it, with or without an environment, once
  // this thread has let go of the lock (and with it of the call).
  Napi::ThreadSafeFunction tsfn = call->tsfn;
  const bool queued = tsfn.NonBlockingCall(call, Settle) == napi_ok;
  tsfn.Release();
  lock.unlock();
  if (!queued) delete call;
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
  napi_add_env_cleanup_hook(env, EnvGone, raw);
  try {
    std::thread([raw] { RunCall(raw); }).detach();
  } catch (const std::system_error&) {
    napi_remove_env_cleanup_hook(env, EnvGone, raw);
    stuck_tally::Remove(&raw->entry);
    if (raw->dir_fd >= 0) close(raw->dir_fd);
    raw->tsfn.Release();
    return env.Null();
  }
  call.release();
  return promise;
}

}  // namespace vb
