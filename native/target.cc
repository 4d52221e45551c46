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

#include "beneath.h"
#include "buffers.h"
#include "clock.h"
#include "rng.h"

namespace vb {
namespace {

constexpr uint64_t kLayoutChunk = 1 << 20;

int FillRange(int fd, uint64_t from, uint64_t to, const std::atomic<bool>* cancel, std::string* what, LayoutMeter* meter) {
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
      meter->done_bytes = at - from;
      if (meter->tick) meter->tick();
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

// Where a probe looks: by path (a directory the caller names), or beneath a held directory, so
// that a name swapped while the run is planned cannot send the probe (and the file it creates
// to test O_DIRECT) elsewhere.
struct Locator {
  const std::string& path;
  const PathRef* ref;

  int Open(int flags) const {
    if (ref != nullptr) return OpenBeneath(*ref, flags);
    const int fd = open(path.c_str(), flags | O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NONBLOCK));
    return fd >= 0 ? fd : -errno;
  }
  // Opens again what an O_PATH open found (`seen`), or fails with ESTALE when the name now
  // leads to something else: the probe reports on one file, not on whatever the name is.
  int Reopen(int flags, const struct stat& seen) const {
    const int fd = Open(flags);
    if (fd < 0) return fd;
    struct stat st;
    const bool same = fstat(fd, &st) == 0 && st.st_dev == seen.st_dev && st.st_ino == seen.st_ino &&
                      st.st_rdev == seen.st_rdev;
    if (same) return fd;
    close(fd);
    return -ESTALE;
  }
  // The directory the path is in, and the name in it.
  int OpenParent(std::string* last) const {
    if (ref != nullptr) return OpenParentBeneath(*ref, last);
    const size_t slash = path.find_last_of('/');
    *last = slash == std::string::npos ? path : path.substr(slash + 1);
    const std::string dir = ParentDir(path);
    const int fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
  }
};

bool DirectOpenWorks(const Locator& at, const struct stat* seen, int parent) {
  if (seen != nullptr) {
    const int fd = at.Reopen(O_RDONLY | O_DIRECT, *seen);
    if (fd < 0) return false;
    close(fd);
    return true;
  }
  const std::string probe = ".volbench-direct-probe-" + std::to_string(getpid());
  const int fd = openat(parent, probe.c_str(), O_RDWR | O_CREAT | O_EXCL | O_DIRECT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  close(fd);
  unlinkat(parent, probe.c_str(), 0);
  return true;
}

void ProbeBlockDevice(const Locator& at, const struct stat& st, TargetInfo* info) {
  info->dev_major = major(st.st_rdev);
  info->dev_minor = minor(st.st_rdev);
  const int fd = at.Reopen(O_RDONLY, st);
  if (fd < 0) {
    info->error = -fd;
    return;
  }
  uint64_t size = 0;
  int lbs = 0;
  unsigned pbs = 0;
  if (ioctl(fd, BLKGETSIZE64, &size) == 0) info->size_bytes = size;
  if (ioctl(fd, BLKSSZGET, &lbs) == 0) info->logical_block_size = static_cast<uint32_t>(lbs);
  if (ioctl(fd, BLKPBSZGET, &pbs) == 0) info->physical_block_size = pbs;
  close(fd);
}

int LayOutOnce(const LayoutTarget& t, uint64_t bytes, bool fill, Fallocate mode, const std::atomic<bool>* cancel,
               std::string* what, Expect* laid_out, std::string* stamp, LayoutMeter* meter) {
  const bool fresh = t.expect->kind == Expect::kNew;
  // A file that is already large enough is not touched: a read job on a read-only file (or on
  // someone else's data) never needs to open it for writing. Looked at through an O_PATH open
  // beneath the held directory, checked like any other open.
  if (!fresh) {
    const int look = OpenBeneath(*t.ref, O_PATH);
    if (look >= 0) {
      struct stat st;
      const bool large = VerifyOpened(look, *t.expect, *t.forbidden, what) == 0 && fstat(look, &st) == 0 &&
                         static_cast<uint64_t>(st.st_size) >= bytes;
      close(look);
      if (large) {
        *laid_out = *t.expect;
        return 0;
      }
    }
  }
  // A file planning did not find is created here and nowhere else (O_EXCL): a file put in its
  // place since (another file renamed there, say the image behind a mounted loop device) is
  // refused rather than taken for it.
  const int fd = OpenBeneath(*t.ref, O_RDWR | O_CREAT | (fresh ? O_EXCL : 0) | O_NONBLOCK, 0644);
  if (fd < 0) {
    *what = fd == -EEXIST ? "creating the file (one appeared there after the run was planned)"
                          : std::string("creating the file") + LeavesDirectory(-fd);
    return -fd;
  }
  struct stat st;
  int err = VerifyOpened(fd, *t.expect, *t.forbidden, what);
  if (err != 0) {
    *what = "opening the file: " + *what + ";";
  } else if (fstat(fd, &st) < 0) {
    err = errno;
    *what = "stat";
  } else {
    *laid_out = Expect{Expect::kFile, static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino), 0};
    *stamp = FileStamp(fd);
  }
  if (err == 0 && static_cast<uint64_t>(st.st_size) < bytes) {
    const uint64_t from = static_cast<uint64_t>(st.st_size);
    meter->total_bytes = bytes - from;
    err = fill ? FillRange(fd, from, bytes, cancel, what, meter) : Allocate(fd, from, bytes, mode, what);
    if (err == 0) meter->done_bytes = meter->total_bytes;
  }
  close(fd);
  return err;
}

}  // namespace

int LayoutFile(const LayoutTarget& t, uint64_t bytes, bool fill, Fallocate mode, const std::atomic<bool>* cancel,
               std::string* what, Expect* laid_out, std::string* stamp, LayoutMeter* meter) {
  meter->started_ns = NowNs();
  const int err = LayOutOnce(t, bytes, fill, mode, cancel, what, laid_out, stamp, meter);
  meter->ended_ns = NowNs();
  return err;
}

TargetInfo ProbeTarget(const std::string& path, const PathRef* ref) {
  TargetInfo info;
  info.path = path;
  const Locator at{path, ref};
  std::string last;
  const int target = at.Open(O_PATH);
  const int parent = at.OpenParent(&last);
  // The target itself when it exists, else the directory it would be made in.
  const int subject = target >= 0 ? target : parent;
  struct stat st;
  if (subject < 0 || fstat(subject, &st) != 0) {
    info.error = subject < 0 ? -parent : errno;
  } else {
    info.exists = target >= 0;
    info.is_block_device = info.exists && S_ISBLK(st.st_mode);
    info.is_regular_file = info.exists && S_ISREG(st.st_mode);
    if (info.is_block_device) {
      ProbeBlockDevice(at, st, &info);
    } else {
      info.dev_major = major(st.st_dev);
      info.dev_minor = minor(st.st_dev);
      if (info.is_regular_file) info.size_bytes = static_cast<uint64_t>(st.st_size);
      struct statfs fs;
      if (fstatfs(subject, &fs) == 0) {
        info.fs_type = FsTypeName(static_cast<unsigned long>(fs.f_type));
        info.fs_free_bytes = static_cast<uint64_t>(fs.f_bavail) * static_cast<uint64_t>(fs.f_bsize);
      }
    }
    info.ino = info.exists ? static_cast<uint64_t>(st.st_ino) : 0;
    info.file_dev = info.exists ? static_cast<uint64_t>(st.st_dev) : 0;
    info.rdev = info.is_block_device ? static_cast<uint64_t>(st.st_rdev) : 0;
    // Only a regular file or a device is opened to test O_DIRECT: opening a FIFO or a socket
    // means nothing here, and some would not return.
    const bool openable = info.is_regular_file || info.is_block_device;
    if (info.error == 0 && openable) info.direct_ok = DirectOpenWorks(at, &st, parent);
    if (info.error == 0 && !info.exists && parent >= 0) info.direct_ok = DirectOpenWorks(at, nullptr, parent);
  }
  if (target >= 0) close(target);
  if (parent >= 0) close(parent);
  return info;
}

}  // namespace vb
