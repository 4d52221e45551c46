#include "probe.h"

#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace vb {
namespace {

bool IoUringWorks() {
  io_uring_params p;
  std::memset(&p, 0, sizeof(p));
  const long fd = syscall(__NR_io_uring_setup, 1, &p);
  if (fd < 0) return false;
  close(static_cast<int>(fd));
  return true;
}

bool LibaioWorks() {
  aio_context_t ctx = 0;
  if (syscall(__NR_io_setup, 1, &ctx) < 0) return false;
  syscall(__NR_io_destroy, ctx);
  return true;
}

}  // namespace

const std::vector<std::string>& AvailableEngines() {
  static const std::vector<std::string> engines = [] {
    std::vector<std::string> e;
    if (IoUringWorks()) e.push_back("io_uring");
    if (LibaioWorks()) e.push_back("libaio");
    e.push_back("psync");
    e.push_back("sync");
    e.push_back("null");
    return e;
  }();
  return engines;
}

}  // namespace vb
