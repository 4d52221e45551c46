// fio's bandwidth, IOPS and latency log files: lines of "msec, value, ddir, bs, prio", written
// through a large stdio buffer from the job's own thread.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>

namespace vb {

class LogWriter {
 public:
  LogWriter() = default;
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;
  ~LogWriter() { Close(); }

  // Returns 0 or errno.
  int Open(const std::string& path) {
    if (path.empty()) return 0;
    file_ = std::fopen(path.c_str(), "we");  // close-on-exec, as every other fd of the engine
    if (file_ == nullptr) return errno;
    std::setvbuf(file_, nullptr, _IOFBF, 1 << 18);
    return 0;
  }
  bool active() const { return file_ != nullptr; }

  void Line(uint64_t ms, uint64_t value, unsigned ddir, uint64_t bs) {
    if (std::fprintf(file_, "%llu, %llu, %u, %llu, 0\n", static_cast<unsigned long long>(ms),
                     static_cast<unsigned long long>(value), ddir, static_cast<unsigned long long>(bs)) < 0 &&
        error_ == 0)
      error_ = errno;
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
  int error_ = 0;  // errno of the first line that could not be written
};

}  // namespace vb
