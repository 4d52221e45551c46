// The only code that turns native structs into JS values and back. Runs on the JS thread.
#pragma once

#include <napi.h>

#include <string>
#include <vector>

#include "job.h"
#include "plan.h"
#include "stuck_tally.h"
#include "target.h"

namespace vb {

// Reads a plan the TypeScript planner produced. The planner validated it; a missing or
// mistyped field here is a programming error, reported as a TypeError naming the field.
JobPlan PlanFromJs(const Napi::Object& obj);
// {dirFd, name}, as in a plan; `name` names the argument in the TypeError.
PathRef PathRefFromJs(Napi::Value v, const char* name);

Napi::Object JobResultToJs(Napi::Env env, Job& job);
// A status report's statistics of `job`, in JobResultToJs's shape.
Napi::Object StatusToJs(Napi::Env env, Job& job, const StatusSnapshot& s);
Napi::Object TargetInfoToJs(Napi::Env env, const TargetInfo& info);
// {limit, threads, memoryBytes, entries: [{kind: 'job' | 'call', anchor, ios, threads, memoryBytes}]}.
Napi::Object StuckTotalsToJs(Napi::Env env, const StuckTotals& totals);

struct ProgressSnapshot {
  std::string job_name;
  uint32_t instance = 0;
  Phase phase = Phase::kPending;
  uint64_t elapsed_ms = 0;
  uint64_t ios[kDirs] = {}, bytes[kDirs] = {};
  bool has_last = false;
  SeriesPoint last;
};

// Called on the coordinator thread: reads only atomics and the mutex-guarded last point.
ProgressSnapshot SnapshotProgress(Job& job);
Napi::Array ProgressToJs(Napi::Env env, const std::vector<ProgressSnapshot>& snaps);
// [{job, file, dev, ino}] (dev and ino as bigints).
Napi::Array CreatedToJs(Napi::Env env, const std::vector<CreatedFile>& created);

}  // namespace vb
