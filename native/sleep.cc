#include "sleep.h"

#include <algorithm>
#include <ctime>

#include "clock.h"

namespace vb {
namespace {

// A cancel is seen at least this often.
constexpr uint64_t kMaxNapNs = 50000000;
// Spinning longer than this would cost more CPU than a late wake-up costs accuracy.
constexpr uint64_t kMaxSpinNs = 200000;

// How late nanosleep wakes at worst: the longest of ten of its shortest sleeps (timer slack and
// wake-up latency), measured once per process, as fio measures its granularity.
uint64_t WakeLatencyNs() {
  static const uint64_t latency = [] {
    uint64_t worst = 0;
    for (int i = 0; i < 10; i++) {
      const uint64_t start = NowNs();
      const timespec shortest{0, 1000};
      nanosleep(&shortest, nullptr);
      worst = std::max(worst, NowNs() - start);
    }
    return std::min(worst, kMaxSpinNs);
  }();
  return latency;
}

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

void SleepUntil(uint64_t deadline_ns, const std::atomic<bool>& cancel) {
  const uint64_t margin = WakeLatencyNs();
  for (;;) {
    if (cancel.load(std::memory_order_relaxed)) return;
    const uint64_t now = NowNs();
    if (now >= deadline_ns) return;
    const uint64_t left = deadline_ns - now;
    if (left <= margin) {
      while (NowNs() < deadline_ns) CpuRelax();
      return;
    }
    const uint64_t nap = std::min(left - margin, kMaxNapNs);
    const timespec ts{static_cast<time_t>(nap / 1000000000ull), static_cast<long>(nap % 1000000000ull)};
    nanosleep(&ts, nullptr);
  }
}

}  // namespace vb
