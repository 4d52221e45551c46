// Sleeping until a moment, to within a few microseconds: think time and rate limits wait this
// way, and nanosleep alone wakes late by its timer slack (50 µs by default), which on a 1 ms
// think time is 5% more time between I/Os than asked.
#pragma once

#include <atomic>
#include <cstdint>

namespace vb {

// Returns at `deadline_ns` (CLOCK_MONOTONIC), or within 50 ms of `cancel` being set. Sleeps
// until the last stretch that nanosleep could overshoot, then spins, as fio's usec_sleep does.
void SleepUntil(uint64_t deadline_ns, const std::atomic<bool>& cancel);

}  // namespace vb
