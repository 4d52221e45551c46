// The process's stuck threads: threads of ours inside a call that a device or filesystem has
// not answered, which nothing can take back (a thread in the kernel cannot be cancelled). Two
// kinds join the tally: a job the run gave up on (its Stall, from abandonment until its thread
// ends) and a call on a root's filesystem run on a thread of its own with a deadline (a target
// probe or a removal, from its start until it returns, stuck once its deadline has passed).
//
// The tally bounds what such threads may hold: at most `limit` of them at once (a job past it is
// not given up on: its run waits for the device), their buffers counted in the service's memory
// budget until they end, and per root (the directory a call is made beneath) how many I/Os are
// stuck there, so that a root with a stuck job takes no new run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vb {

struct StuckEntry {
  enum Kind : uint8_t { kJob, kCall };
  Kind kind = kJob;
  // The root the thread is stuck beneath (as the caller named it; empty: none).
  std::string anchor;
  // A job's I/Os in flight when it was given up on, or 1 for a call.
  uint32_t ios = 0;
  // Threads of the process it holds: a job's own, and for io_uring one kernel worker per
  // blocked request; 1 for a call.
  uint32_t threads = 1;
  // Memory it keeps until its thread ends (a job's buffers as the plan counted them).
  uint64_t memory_bytes = 0;
  // A call: when its deadline passes (CLOCK_MONOTONIC ns); before that it is not stuck.
  uint64_t deadline_ns = 0;
  // In a snapshot: stuck now (a job always, a call once past its deadline).
  bool stuck = false;
};

struct StuckTotals {
  uint32_t limit = 0;
  // Threads stuck now, and the memory they hold.
  uint32_t threads = 0;
  uint64_t memory_bytes = 0;
  // Every entry, calls still within their deadline too (stuck false).
  std::vector<StuckEntry> entries;
};

namespace stuck_tally {

// The most stuck threads the process keeps (default 64).
void SetLimit(uint32_t limit);
// Adds `e` when its threads fit under the limit beside those held now; false otherwise. The
// caller keeps the entry alive and removes it with Remove().
bool Add(StuckEntry* e);
// What an entry added with a bound turned out to hold (at most the bound).
void Settle(StuckEntry* e, uint32_t ios, uint32_t threads);
void Remove(const StuckEntry* e);
StuckTotals Snapshot();

}  // namespace stuck_tally
}  // namespace vb
