// psync (pread/pwrite) and sync (lseek + read/write): one I/O at a time, done inside Queue().
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include "../clock.h"
#include "engine.h"

namespace vb {

int SyncFileOp(int fd, uint8_t ddir);

template <bool kPositional>
class BlockingEngine {
 public:
  // Name, setup, read and write calls, needs a target, no probe (always there).
  static constexpr EngineOps kOps = kPositional ? EngineOps{"psync", "engine setup", "pread", "pwrite", true, nullptr}
                                                : EngineOps{"sync", "engine setup", "read", "write", true, nullptr};
  static constexpr bool kInline = true;
  using Options = NoOptions;
  static constexpr auto& kOptions = kNoOptions;

  int Setup(const EngineSetup& s, const Options&) {
    fds_ = s.fds;
    done_.Init(s.unit_count);
    return 0;
  }
  EngineFacts Facts() const { return {}; }

  void Queue(IoUnit* u) {
    // As fio's td_io_queue: issued just before the call, so lat (from when the I/O was taken)
    // holds its preparation and clat does not.
    u->issue_ns = NowNs();
    u->inline_done = true;
    u->res = Perform(u);
    done_.Push(u);
  }

  int Commit(unsigned, uint64_t) { return 0; }

  template <class F>
  unsigned Reap(F&& on_complete) {
    return done_.Drain(on_complete);
  }

  void Teardown() {}

 private:
  int32_t Perform(IoUnit* u) {
    char* const p = u->buf + u->done;
    const uint64_t off = u->offset + u->done;
    const size_t n = u->len - u->done;
    const int fd = fds_[u->file];
    if (u->ddir == kTrim) return DiscardRange(fd, off, n);
    if (u->ddir != kRead && u->ddir != kWrite) return SyncFileOp(fd, u->ddir);
    ssize_t r;
    if (kPositional) {
      r = u->ddir == kRead ? pread(fd, p, n, static_cast<off_t>(off)) : pwrite(fd, p, n, static_cast<off_t>(off));
    } else {
      // The sync engine seeks only when the offset is not where the last I/O left the file.
      if ((off != pos_ || u->file != pos_file_) && lseek(fd, static_cast<off_t>(off), SEEK_SET) < 0) return -errno;
      r = u->ddir == kRead ? read(fd, p, n) : write(fd, p, n);
      pos_ = r > 0 ? off + static_cast<uint64_t>(r) : UINT64_MAX;
      pos_file_ = u->file;
    }
    return r < 0 ? -errno : static_cast<int32_t>(r);
  }

  const int* fds_ = nullptr;
  // Where the last I/O left the file it went to.
  uint64_t pos_ = UINT64_MAX;
  uint16_t pos_file_ = 0;
  InlineQueue done_;
};

using PsyncEngine = BlockingEngine<true>;
using SyncEngine = BlockingEngine<false>;

}  // namespace vb
