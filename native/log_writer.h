// fio's bandwidth, IOPS and latency log files: lines of "msec, value, ddir, bs, prio", written
// through a large stdio buffer from the job's own thread.
#pragma once

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
    file_ = std::fopen(path.c_str(), "w");
    if (file_ == nullptr) return errno;
    std::setvbuf(file_, nullptr, _IOFBF, 1 << 18);
    return 0;
  }
  bool active() const { return file_ != nullptr; }

  void Line(uint64_t ms, uint64_t value, unsigned ddir, uint64_t bs) {
    std::fprintf(file_, "%llu, %llu, %u, %llu, 0\n", static_cast<unsigned long long>(ms),
                 static_cast<unsigned long long>(value), ddir, static_cast<unsigned long long>(bs));
  }

  void Close() {
    if (file_ != nullptr) std::fclose(file_);
    file_ = nullptr;
  }

 private:
  std::FILE* file_ = nullptr;
};

}  // namespace vb
