#include "page_cache.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

#include <cerrno>

namespace vb {

int DropPageCache(int fd, bool is_block_device, uint64_t offset, uint64_t bytes) {
  if (is_block_device && ioctl(fd, BLKFLSBUF, 0) == 0) return 0;
  return posix_fadvise(fd, static_cast<off_t>(offset), static_cast<off_t>(bytes), POSIX_FADV_DONTNEED);
}

}  // namespace vb
