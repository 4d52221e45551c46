// One I/O slot. A job owns `iodepth` of these, allocated once; the hot loop only rewrites them.
#pragma once

#include <cstdint>

#include "phase.h"

namespace vb {

struct IoUnit {
  char* buf;
  uint64_t offset;
  // Monotonic ns: queued by the job, handed to the kernel (set by the engine), and the moment
  // the job saw it complete.
  uint64_t start_ns;
  uint64_t issue_ns;
  uint32_t len;
  // Bytes of this I/O already done by earlier submissions (a short read or write is resubmitted
  // for its remainder, as fio does).
  uint32_t done;
  int32_t res;
  uint16_t slot;
  uint8_t ddir;
  // Completed inside Queue() (sync engines, trims): no submission latency to report.
  bool inline_done;
  // The job's phase when the I/O was prepared: I/O of the ramp completes but is not counted,
  // and reads of the verify pass have their header checked.
  Phase phase;
  // Which of the job's files it goes to (0 for a job of one file).
  uint16_t file;
};

}  // namespace vb
