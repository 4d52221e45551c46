// Monotonic nanoseconds. clock_gettime goes through the vDSO (no syscall) on every kernel and
// clocksource we run on; the engine reads it once per batch, not once per I/O.
#pragma once

#include <cstdint>
#include <ctime>

namespace vb {

inline uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t WallMs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000ull + static_cast<uint64_t>(ts.tv_nsec) / 1000000ull;
}

}  // namespace vb
