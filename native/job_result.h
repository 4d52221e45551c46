// What a job hands back: its result when it ends, and the progress the coordinator reads while
// it runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "phase.h"
#include "plan.h"
#include "stats.h"

namespace vb {

// fio's I/O depth distribution buckets (iodepth_level, iodepth_submit, iodepth_complete).
constexpr int kDepthBuckets = 7;

// The three latencies of an I/O, fio's names: submission, completion, and both together.
enum LatKind : int { kSlat, kClat, kLat, kLatKinds };

struct DirResult {
  uint64_t bytes = 0, ios = 0, short_ios = 0, drop_ios = 0, runtime_ns = 0;
  // I/Os that failed: the one the job ends on, and those in flight with it that fail too. fio
  // counts them as issued, not completed.
  uint64_t failed_ios = 0;
  LatStats slat, clat, lat;
  SampleStats bw, iops;
};

struct SeriesDir {
  uint64_t ios = 0, bytes = 0;
  double clat_mean_ns = 0;
  uint64_t clat_p99_ns = 0;
};

struct SeriesPoint {
  uint64_t t_ms = 0, dur_ms = 0;
  SeriesDir dirs[kDirs];
};

struct EngineOps;

struct JobResult {
  // The engine that ran, after any fallback; null until one is set up.
  const EngineOps* engine = nullptr;
  int error = 0;
  std::string error_syscall, error_message;
  bool cancelled = false;
  // I/Os still in flight when the run gave up waiting for them (a stalled device): the job was
  // abandoned, its result is what it had done until then.
  uint32_t stuck_ios = 0;
  // The I/O buffers: their bytes, how many of them the kernel backs with huge pages (looked at
  // where the plan asks), and whether the engine registered them with the kernel
  // (io_uring's fixedbufs).
  uint64_t buffer_bytes = 0, huge_page_bytes = 0;
  bool registered_buffers = false;
  // Whether the engine registered the target's file with the kernel (io_uring's registerfiles).
  bool registered_files = false;
  uint64_t started_at_ms = 0;
  uint64_t runtime_ns = 0, elapsed_ns = 0;
  // The thread's id (what fio prints as pid= for a job run as a thread).
  int32_t tid = 0;
  DirResult dirs[kDirs];
  uint64_t sync_ios = 0;
  LatStats sync_lat;
  uint64_t usr_ns = 0, sys_ns = 0, ctx = 0, majf = 0, minf = 0;
  uint64_t depth_level[kDepthBuckets] = {}, depth_submit[kDepthBuckets] = {}, depth_complete[kDepthBuckets] = {};
  std::vector<SeriesPoint> series;
  // The queue depth the job ended at: iodepth, or what fio's latency target found.
  uint32_t latency_depth = 0;
};

// What the progress reporter reads while the job runs (at most every sample window).
struct JobProgress {
  std::atomic<int> phase{static_cast<int>(Phase::kPending)};
  std::atomic<uint64_t> ios[kDirs] = {};
  std::atomic<uint64_t> bytes[kDirs] = {};
  std::atomic<uint64_t> elapsed_ms{0};
  // When the job's runtime ends (0: it has none, or has not begun measuring): past it, a call
  // that does not return marks the job stuck.
  std::atomic<uint64_t> deadline_ns{0};
  std::mutex last_mutex;
  bool has_last = false;
  SeriesPoint last;
};

}  // namespace vb
