// Where a job is in its life. Progress reports the first seven by name; draining and stopping
// are the job's own, and progress goes on showing the phase before them. A byte, as every I/O
// unit records the phase it was prepared in.
#pragma once

#include <cstdint>

namespace vb {

enum class Phase : uint8_t {
  kPending,
  kLayout,
  kStartDelay,
  kRamp,
  kRunning,
  kVerify,
  kDone,
  // Internal phases, kept last (see Job::IssuingOver).
  // The main phase has ended (its size or runtime reached): what is in flight completes, nothing
  // new starts, and a verify pass may follow.
  kDraining,
  // Cancelled, or failed: what is in flight completes, nothing new starts, no verify pass.
  kStopping,
};
const char* PhaseName(Phase p);

}  // namespace vb
