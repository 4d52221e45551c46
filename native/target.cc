#include "target.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "buffers.h"
#include "rng.h"

namespace vb {
namespace {

constexpr uint64_t kLayoutChunk = 1 << 20;

int FillRange(int fd, uint64_t from, uint64_t to, const std::atomic<bool>* cancel, std::string* what) {
  void* mem = nullptr;
  if (posix_memalign(&mem, 4096, kLayoutChunk) != 0) return ENOMEM;
  char* buf = static_cast<char*>(mem);
  Rng rng(Mix64(from ^ 0x6a09e667f3bcc909ull));
  int err = 0;
  for (uint64_t at = from; at < to && err == 0;) {
    if (cancel->load(std::memory_order_relaxed)) {
      err = ECANCELED;
      *what = "laying out (cancelled)";
      break;
    }
    const uint64_t n = to - at < kLayoutChunk ? to - at : kLayoutChunk;
    FillRandom(buf, n, rng);
    const ssize_t w = pwrite(fd, buf, n, static_cast<off_t>(at));
    if (w < 0) {
      if (errno == EINTR) continue;
      err = errno;
      *what = "writing the file's data";
    } else if (w == 0) {
      // No progress and no error: a full device that says so this way. Never spin on it.
      err = ENOSPC;
      *what = "writing the file's data";
    } else {
      at += static_cast<uint64_t>(w);
    }
  }
  std::free(mem);
  if (err == 0 && fsync(fd) < 0) {
    err = errno;
    *what = "fsync after laying out";
  }
  // The data was written through the page cache; a benchmark of buffered reads must not find it
  // there.
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  return err;
}

int Allocate(int fd, uint64_t from, uint64_t to, Fallocate mode, std::string* what) {
  int r = 0;
  switch (mode) {
    case Fallocate::kNative:
      r = fallocate(fd, 0, static_cast<off_t>(from), static_cast<off_t>(to - from)) < 0 ? errno : 0;
      break;
    case Fallocate::kPosix:
      r = posix_fallocate(fd, static_cast<off_t>(from), static_cast<off_t>(to - from));
      break;
    case Fallocate::kKeep:
      r = fallocate(fd, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(from), static_cast<off_t>(to - from)) < 0 ? errno : 0;
      break;
    default:
      break;
  }
  // Filesystems without fallocate get a sparse file, as with fallocate=none.
  if (r == EOPNOTSUPP) r = 0;
  if (r != 0) {
    *what = "allocating the file";
    return r;
  }
  if (ftruncate(fd, static_cast<off_t>(to)) < 0) {
    *what = "extending the file";
    return errno;
  }
  return 0;
}

std::string FsTypeName(unsigned long magic) {
  switch (magic) {
    case EXT4_SUPER_MAGIC: return "ext4";  // also ext2/ext3: the same magic
    case TMPFS_MAGIC: return "tmpfs";
    case XFS_SUPER_MAGIC: return "xfs";
    case BTRFS_SUPER_MAGIC: return "btrfs";
    case OVERLAYFS_SUPER_MAGIC: return "overlay";
    case NFS_SUPER_MAGIC: return "nfs";
    case F2FS_SUPER_MAGIC: return "f2fs";
    case 0x2fc12fc1: return "zfs";
    case 0x65735546: return "fuse";
    case RAMFS_MAGIC: return "ramfs";
    case 0x01021997: return "v9fs";
    default: {
      char hex[32];
      snprintf(hex, sizeof(hex), "0x%lx", magic);
      return hex;
    }
  }
}

std::string ParentDir(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

bool DirectOpenWorks(const std::string& path, bool exists) {
  if (exists) {
    const int fd = open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0) return false;
    close(fd);
    return true;
  }
  std::string probe = ParentDir(path) + "/.volbench-direct-probe-" + std::to_string(getpid());
  const int fd = open(probe.c_str(), O_RDWR | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  close(fd);
  unlink(probe.c_str());
  return true;
}

}  // namespace

int LayoutFile(const std::string& path, uint64_t bytes, bool fill, Fallocate mode, const std::atomic<bool>* cancel,
               std::string* what) {
  // A file that is already large enough is not touched: a read job on a read-only file (or on
  // someone else's data) never needs to open it for writing.
  struct stat existing;
  if (stat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode) && static_cast<uint64_t>(existing.st_size) >= bytes)
    return 0;
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    *what = "creating the file";
    return errno;
  }
  struct stat st;
  int err = 0;
  if (fstat(fd, &st) < 0) {
    err = errno;
    *what = "stat";
  } else if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) < bytes) {
    const uint64_t from = static_cast<uint64_t>(st.st_size);
    err = fill ? FillRange(fd, from, bytes, cancel, what) : Allocate(fd, from, bytes, mode, what);
  }
  close(fd);
  return err;
}

TargetInfo ProbeTarget(const std::string& path) {
  TargetInfo info;
  info.path = path;
  struct stat st;
  std::string stat_path = path;
  if (stat(path.c_str(), &st) == 0) {
    info.exists = true;
  } else {
    info.error = errno;
    stat_path = ParentDir(path);
    if (stat(stat_path.c_str(), &st) != 0) return info;
    info.error = 0;
  }
  info.is_block_device = info.exists && S_ISBLK(st.st_mode);
  info.is_regular_file = info.exists && S_ISREG(st.st_mode);
  if (info.is_block_device) {
    info.dev_major = major(st.st_rdev);
    info.dev_minor = minor(st.st_rdev);
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      info.error = errno;
      return info;
    }
    uint64_t size = 0;
    int lbs = 0;
    unsigned pbs = 0;
    if (ioctl(fd, BLKGETSIZE64, &size) == 0) info.size_bytes = size;
    if (ioctl(fd, BLKSSZGET, &lbs) == 0) info.logical_block_size = static_cast<uint32_t>(lbs);
    if (ioctl(fd, BLKPBSZGET, &pbs) == 0) info.physical_block_size = pbs;
    close(fd);
  } else {
    info.dev_major = major(st.st_dev);
    info.dev_minor = minor(st.st_dev);
    if (info.is_regular_file) info.size_bytes = static_cast<uint64_t>(st.st_size);
    struct statfs fs;
    if (statfs(stat_path.c_str(), &fs) == 0) {
      info.fs_type = FsTypeName(static_cast<unsigned long>(fs.f_type));
      info.fs_free_bytes = static_cast<uint64_t>(fs.f_bavail) * static_cast<uint64_t>(fs.f_bsize);
    }
  }
  info.direct_ok = DirectOpenWorks(path, info.exists);
  return info;
}

}  // namespace vb
