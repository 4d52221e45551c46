// A call on a root's filesystem (a target probe, the removal of a run's file) on a thread of its
// own, with a deadline. A stat, an open or an unlink on a frozen filesystem or an ailing device
// can take forever; on libuv's thread pool four of them took every other file operation of the
// process with them. Here each call has its thread, which joins the stuck tally (stuck_tally.h)
// for its life, stuck once its deadline has passed: a full tally refuses the call before it
// starts. The thread works on a copy of the directory descriptor it is given, and its result
// settles a promise on the JS thread; a thread that never returns keeps nothing else alive.
#pragma once

#include <napi.h>

#include <cstdint>
#include <functional>
#include <string>

namespace vb {

struct RootCallSpec {
  // Names the thread's resources in diagnostics.
  const char* name;
  // The root the call is made beneath (the caller's name for it), for the tally.
  std::string anchor;
  uint64_t deadline_ms;
  // The directory descriptor the call works beneath: copied for the thread, which closes it.
  int dir_fd;
};

// Starts `work(dir_fd)` on its own thread; its promise resolves to `to_js(env)` once it has
// returned. Null (no promise) when the tally holds as many stuck threads as it may, or no thread
// can be started.
Napi::Value CallOnRoot(Napi::Env env, const RootCallSpec& spec, std::function<void(int dir_fd)> work,
                       std::function<Napi::Value(Napi::Env)> to_js);

}  // namespace vb
