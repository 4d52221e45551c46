// Targets: laying out files before a run, and what the kernel says about a path.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "plan.h"

namespace vb {

// A file to lay out: opened beneath its held directory, and checked to be what planning saw.
struct LayoutTarget {
  const PathRef* ref;
  const Expect* expect;
  const Forbidden* forbidden;
};

// How far a file's layout has got, for progress. LayoutFile fills it in on the calling thread
// and calls `tick` after each chunk it writes, so that the caller can report progress while a
// long layout runs (the coordinator posts from there, about once a second).
struct LayoutMeter {
  uint64_t done_bytes = 0;
  // What the layout writes or allocates: 0 when the file was already large enough.
  uint64_t total_bytes = 0;
  uint64_t started_ns = 0;
  // 0 while it runs.
  uint64_t ended_ns = 0;
  std::function<void()> tick;
};

// Creates or extends a regular file to `bytes`. With `fill`, the new part is written with
// incompressible data so reads return real blocks; otherwise space is allocated as `mode` says.
// A file already that large is left alone. Filling stops with ECANCELED once `cancel` is set.
// A file planning did not find (expect kNew) is created with O_EXCL. Returns 0 or an errno,
// with what failed in `what`; on success `laid_out` is the file the jobs must then open, and
// `stamp` its FileStamp when this call opened it. `meter` follows the layout.
int LayoutFile(const LayoutTarget& target, uint64_t bytes, bool fill, Fallocate mode, const std::atomic<bool>* cancel,
               std::string* what, Expect* laid_out, std::string* stamp, LayoutMeter* meter);

// A file a run created (a target its layout made, a log): the job (its index in the run), which
// of its files (0 the target, 1 to 5 its logs in LogKind order, 6 on its other files) and the file's identity, so that
// whoever removes it later removes it only while it is still that file.
struct CreatedFile {
  uint32_t job;
  uint32_t file;
  uint64_t dev, ino;
  std::string stamp;  // FileStamp, "" where the filesystem keeps neither birth time nor generation
};

struct TargetInfo {
  std::string path;
  bool exists = false;
  bool is_block_device = false;
  bool is_regular_file = false;
  uint64_t size_bytes = 0;
  uint32_t logical_block_size = 0;
  uint32_t physical_block_size = 0;
  uint32_t dev_major = 0, dev_minor = 0;
  std::string fs_type;
  uint64_t fs_free_bytes = 0;
  bool direct_ok = false;
  // What the probe looked at, for the planner to hold the engine to: st_dev and st_ino of an
  // existing target, st_rdev of a device (0 otherwise).
  uint64_t file_dev = 0, ino = 0, rdev = 0;
  int error = 0;  // errno of a failed stat/open, 0 otherwise
};

// What the kernel says of `path`; with `ref`, looked at beneath the held directory it names
// (the path is then for messages only).
TargetInfo ProbeTarget(const std::string& path, const PathRef* ref = nullptr);

}  // namespace vb
