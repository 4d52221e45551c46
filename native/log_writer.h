// fio's bandwidth, IOPS and latency log files: lines of "msec, value, ddir, bs, prio", or with
// log_offset "msec, value, ddir, bs, offset, prio", written through a large stdio buffer from the
// job's own thread.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>

#include "beneath.h"

namespace vb {

class LogWriter {
 public:
  LogWriter() = default;
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;
  ~LogWriter() { Close(); }

  // Opens `ref` (not set: no log) beneath its held directory; returns 0 or errno, with the
  // reason in `why`. It must be the file `expect` names (the run's layout created a new one), or
  // when nothing was laid out a regular file created here exclusively, and none of `forbidden`:
  // the check comes before the truncation, so a log name swapped for a link to another file
  // empties nothing.
  int Open(const PathRef& ref, const Expect& expect, const Forbidden& forbidden, bool with_offset, std::string* why) {
    if (!ref.set()) return 0;
    with_offset_ = with_offset;
    // O_NONBLOCK: a FIFO put in the log's place must not hang the open; it is refused below.
    const int create = expect.kind == Expect::kNew ? O_CREAT | O_EXCL : 0;
    const int fd = OpenBeneath(ref, O_WRONLY | O_NONBLOCK | create, 0644);
    if (fd < 0) return -fd;
    int err = VerifyOpened(fd, expect, forbidden, why);
    if (err == 0 && (fcntl(fd, F_SETFL, 0) < 0 || ftruncate(fd, 0) < 0)) err = errno;
    if (err == 0 && (file_ = fdopen(fd, "w")) == nullptr) err = errno;
    if (err != 0) {
      close(fd);
      return err;
    }
    std::setvbuf(file_, nullptr, _IOFBF, 1 << 18);
    return 0;
  }
  bool active() const { return file_ != nullptr; }

  // `offset` is printed only with log_offset (0 on averaged lines, as fio prints it).
  void Line(uint64_t ms, uint64_t value, unsigned ddir, uint64_t bs, uint64_t offset) {
    const auto ull = [](uint64_t v) { return static_cast<unsigned long long>(v); };
    const int n = with_offset_
        ? std::fprintf(file_, "%llu, %llu, %u, %llu, %llu, 0\n", ull(ms), ull(value), ddir, ull(bs), ull(offset))
        : std::fprintf(file_, "%llu, %llu, %u, %llu, 0\n", ull(ms), ull(value), ddir, ull(bs));
    if (n < 0 && error_ == 0) error_ = errno;
  }

  // Flushes and closes; returns 0 or the errno of a write that failed (a full disk), so a
  // truncated log is reported rather than left to be found.
  int Close() {
    if (file_ == nullptr) return 0;
    int err = error_;
    if (std::fclose(file_) != 0 && err == 0) err = errno;
    file_ = nullptr;
    error_ = 0;
    return err;
  }

 private:
  std::FILE* file_ = nullptr;
  bool with_offset_ = false;
  int error_ = 0;  // errno of the first line that could not be written
};

}  // namespace vb
