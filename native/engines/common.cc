#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "engine.h"

namespace vb {

const char* IoSyscallName(const EngineOps& ops, uint8_t ddir) {
  // Every engine trims and syncs the same way, whatever it does with reads and writes.
  if (ddir == kTrim) return "ioctl(BLKDISCARD)";
  if (ddir == kSync) return "fsync";
  if (ddir == kDataSync) return "fdatasync";
  return ddir == kRead ? ops.read_syscall : ops.write_syscall;
}

int DiscardRange(int fd, uint64_t offset, uint64_t len) {
  uint64_t range[2] = {offset, len};
  if (ioctl(fd, BLKDISCARD, range) < 0) return -errno;
  return static_cast<int>(len);
}

int SyncFileOp(int fd, uint8_t ddir) {
  const int r = ddir == kDataSync ? fdatasync(fd) : fsync(fd);
  return r < 0 ? -errno : 0;
}

}  // namespace vb
