#include "stuck_tally.h"

#include <algorithm>
#include <mutex>

#include "clock.h"

namespace vb {
namespace stuck_tally {
namespace {

struct Tally {
  std::mutex mutex;
  uint32_t limit = 64;
  std::vector<StuckEntry*> entries;
};

Tally& TheTally() {
  // Never destroyed: a stuck thread may still leave the tally while the process exits.
  static Tally* tally = new Tally();
  return *tally;
}

bool StuckNow(const StuckEntry& e, uint64_t now) { return e.kind == StuckEntry::kJob || now >= e.deadline_ns; }

uint32_t ThreadsStuck(const Tally& t, uint64_t now) {
  uint32_t n = 0;
  for (const StuckEntry* e : t.entries) n += StuckNow(*e, now) ? e->threads : 0;
  return n;
}

}  // namespace

void SetLimit(uint32_t limit) {
  Tally& t = TheTally();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.limit = limit;
}

// A call is admitted against the threads stuck now and the calls still within their deadline
// (each may become stuck), so that the tally never holds more than the limit.
bool Add(StuckEntry* e) {
  Tally& t = TheTally();
  std::lock_guard<std::mutex> lock(t.mutex);
  uint32_t held = 0;
  for (const StuckEntry* other : t.entries) held += other->threads;
  if (held + e->threads > t.limit) return false;
  t.entries.push_back(e);
  return true;
}

void Settle(StuckEntry* e, uint32_t ios, uint32_t threads) {
  Tally& t = TheTally();
  std::lock_guard<std::mutex> lock(t.mutex);
  e->ios = ios;
  e->threads = std::min(threads, e->threads);
}

void Remove(const StuckEntry* e) {
  Tally& t = TheTally();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.entries.erase(std::remove(t.entries.begin(), t.entries.end(), e), t.entries.end());
}

StuckTotals Snapshot() {
  Tally& t = TheTally();
  const uint64_t now = NowNs();
  std::lock_guard<std::mutex> lock(t.mutex);
  StuckTotals totals;
  totals.limit = t.limit;
  totals.threads = ThreadsStuck(t, now);
  for (const StuckEntry* e : t.entries) {
    totals.entries.push_back(*e);
    totals.entries.back().stuck = StuckNow(*e, now);
    if (totals.entries.back().stuck) totals.memory_bytes += e->memory_bytes;
  }
  return totals;
}

}  // namespace stuck_tally
}  // namespace vb
