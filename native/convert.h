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
  // Until the job's runtime ends (-1: it has no runtime, or has not begun it).
  int64_t ends_in_ms = -1;
  // The layout of the job's file, when the run laid one out (set by the run, which owns it).
  bool has_layout = false;
  bool layout_ended = false;
  uint64_t layout_done_bytes = 0, layout_total_bytes = 0, layout_ms = 0;
};

// Called on the coordinator thread: reads only atomics and the mutex-guarded last point.
// `now`: NowNs() as the report is taken.
ProgressSnapshot SnapshotProgress(Job& job, uint64_t now);
Napi::Array ProgressToJs(Napi::Env env, const std::vector<ProgressSnapshot>& snaps);
// [{job, file, dev, ino}] (dev and ino as bigints).
Napi::Array CreatedToJs(Napi::Env env, const std::vector<CreatedFile>& created);

}  // namespace vb
