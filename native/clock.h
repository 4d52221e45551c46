// Monotonic nanoseconds, read once or twice per I/O. Where the kernel itself keeps time by the
// CPU's timestamp counter (an invariant TSC, its clocksource "tsc"), the counter is read and
// scaled here, as fio reads its CPU clock: clock_gettime through the vDSO costs 37 ns on a
// 2-vCPU VM, most of a null-engine I/O, and the counter 14 ns. Elsewhere, clock_gettime.
#pragma once

#include <atomic>
#include <cstdint>
#include <ctime>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace vb {

// The counter's scale, set once (ClockInit) before any job starts and never changed after.
struct TscScale {
  uint64_t tsc0 = 0;
  uint64_t ns0 = 0;
  // Nanoseconds per tick, as a fraction of 2^32.
  uint64_t mult = 0;
};
extern TscScale g_tsc_scale;
extern std::atomic<bool> g_tsc_on;

// Calibrates the counter against CLOCK_MONOTONIC (about 2 ms, once per process) when it can be
// trusted; until then, and where it cannot, NowNs() is clock_gettime. Any thread, any number
// of times.
void ClockInit();

inline uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t NowNs() {
#if defined(__x86_64__)
  if (__builtin_expect(g_tsc_on.load(std::memory_order_acquire), 1)) {
    const uint64_t ticks = __rdtsc() - g_tsc_scale.tsc0;
    return g_tsc_scale.ns0 + static_cast<uint64_t>((static_cast<unsigned __int128>(ticks) * g_tsc_scale.mult) >> 32);
  }
#endif
  return MonotonicNs();
}

inline uint64_t WallMs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000ull + static_cast<uint64_t>(ts.tv_nsec) / 1000000ull;
}

}  // namespace vb
