#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "engine.h"

namespace vb {

const char* EngineName(EngineKind e) {
  switch (e) {
    case EngineKind::kIoUring: return "io_uring";
    case EngineKind::kLibaio: return "libaio";
    case EngineKind::kPsync: return "psync";
    case EngineKind::kSync: return "sync";
    case EngineKind::kNull: return "null";
  }
  return "unknown";
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
