#include "beneath.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>

// glibc names SYS_openat2 from 2.32 on; on older ones (Debian 11's 2.31, which the prebuilt
// binaries are built against) the kernel headers' own number serves.
#ifndef SYS_openat2
#define SYS_openat2 __NR_openat2
#endif

namespace vb {
namespace {

constexpr uint64_t kResolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
constexpr int kOpenat2Retries = 128;

int SysOpenat2(int dir_fd, const char* name, int flags, mode_t mode, uint64_t resolve = kResolve) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags);
  how.mode = (flags & O_CREAT) ? mode : 0;
  how.resolve = resolve;
  // The kernel asks for a retry (EAGAIN) when a rename raced a lookup that must stay beneath;
  // renames in a loop could make that forever, so after a while the walk takes over.
  for (int attempt = 0; attempt < kOpenat2Retries; attempt++) {
    const long r = syscall(SYS_openat2, dir_fd, name, &how, sizeof(how));
    if (r >= 0) return static_cast<int>(r);
    if (errno != EAGAIN && errno != EINTR) return -errno;
  }
  return -EAGAIN;
}

// The pre-openat2 way: every component opened with O_NOFOLLOW relative to the one before, so a
// symlink anywhere in the name is refused (ELOOP) rather than followed.
int WalkBeneath(int dir_fd, const std::string& name, int flags, mode_t mode) {
  if (name.empty() || name[0] == '/') return -EXDEV;
  int cur = dir_fd;
  size_t at = 0;
  for (;;) {
    const size_t slash = name.find('/', at);
    const std::string part = name.substr(at, slash == std::string::npos ? std::string::npos : slash - at);
    if (part == "..") {
      if (cur != dir_fd) close(cur);
      return -EXDEV;
    }
    if (slash == std::string::npos) {
      const int fd = openat(cur, part.c_str(), flags | O_NOFOLLOW, mode);
      const int err = errno;
      if (cur != dir_fd) close(cur);
      return fd >= 0 ? fd : -err;
    }
    if (!part.empty() && part != ".") {
      const int next = openat(cur, part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      const int err = errno;
      if (cur != dir_fd) close(cur);
      if (next < 0) return -err;
      cur = next;
    }
    at = slash + 1;
  }
}

bool HaveOpenat2() {
  static const bool have = [] {
    open_how how{};
    how.flags = O_PATH | O_CLOEXEC;
    const long r = syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof(how));
    if (r >= 0) close(static_cast<int>(r));
    // ENOSYS: the kernel lacks it; EPERM: a seccomp filter (older container runtimes) refuses it.
    return r >= 0 || (errno != ENOSYS && errno != EPERM);
  }();
  return have;
}

bool IsForbidden(const struct stat& st, const Forbidden& forbidden) {
  for (size_t i = 0; i + 1 < forbidden.size(); i += 2)
    if (static_cast<uint64_t>(st.st_dev) == forbidden[i] && static_cast<uint64_t>(st.st_ino) == forbidden[i + 1]) return true;
  return false;
}

}  // namespace

int OpenBeneath(const PathRef& ref, int flags, mode_t mode) {
  if (!ref.set()) return -EBADF;
  // Never block in open: a FIFO put where a file was planned would hang the thread (and a
  // probe, the thread pool). O_NONBLOCK is cleared again unless the caller asked for it.
  const bool keep_nonblock = flags & (O_NONBLOCK | O_PATH);
  flags |= O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NONBLOCK);
  int fd = HaveOpenat2() ? SysOpenat2(ref.dir_fd, ref.name.c_str(), flags, mode) : -EAGAIN;
  if (fd == -EAGAIN) fd = WalkBeneath(ref.dir_fd, ref.name, flags, mode);
  if (fd >= 0 && !keep_nonblock) {
    const int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
      const int err = errno;
      close(fd);
      return -err;
    }
  }
  return fd;
}

int VerifyOpened(int fd, const Expect& expect, const Forbidden& forbidden, std::string* why) {
  struct stat st;
  if (fstat(fd, &st) < 0) {
    *why = "stat of what was opened failed";
    return errno;
  }
  if (IsForbidden(st, forbidden)) {
    *why = "it is a file the run must not touch";
    return EPERM;
  }
  char text[160];
  switch (expect.kind) {
    case Expect::kDevice:
      if (S_ISBLK(st.st_mode) && static_cast<uint64_t>(st.st_rdev) == expect.rdev) return 0;
      *why = "it is no longer the block device it was when the run was planned";
      return ESTALE;
    case Expect::kFile:
      if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_dev) == expect.dev && static_cast<uint64_t>(st.st_ino) == expect.ino)
        return 0;
      std::snprintf(text, sizeof(text), "it is no longer the file it was when the run was planned (inode %" PRIu64 ")",
                    expect.ino);
      *why = text;
      return ESTALE;
    case Expect::kNew:
      if (S_ISREG(st.st_mode)) return 0;
      *why = "it is not a regular file";
      return ESTALE;
  }
  return 0;
}

int OpenParentBeneath(const PathRef& ref, std::string* last) {
  const size_t slash = ref.name.find_last_of('/');
  if (slash == std::string::npos) {
    *last = ref.name;
    const int fd = fcntl(ref.dir_fd, F_DUPFD_CLOEXEC, 0);
    return fd >= 0 ? fd : -errno;
  }
  *last = ref.name.substr(slash + 1);
  return OpenBeneath(PathRef{ref.dir_fd, ref.name.substr(0, slash)}, O_PATH | O_DIRECTORY);
}

// The directory part of `ref` opened without following any link, even one that stays beneath
// (the walk never follows a link): for a removal, which must reach the directory the file was
// made in or nothing.
int OpenParentNoLinks(const PathRef& ref, std::string* last) {
  const size_t slash = ref.name.find_last_of('/');
  if (slash == std::string::npos) return OpenParentBeneath(ref, last);
  *last = ref.name.substr(slash + 1);
  const std::string dir = ref.name.substr(0, slash);
  const int flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  int fd = HaveOpenat2() ? SysOpenat2(ref.dir_fd, dir.c_str(), flags, 0, kResolve | RESOLVE_NO_SYMLINKS) : -EAGAIN;
  if (fd == -EAGAIN) fd = WalkBeneath(ref.dir_fd, dir, flags, 0);
  return fd;
}

std::string FileStamp(int fd) {
  std::string stamp;
  struct statx stx{};
  if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT, STATX_BTIME, &stx) == 0 && (stx.stx_mask & STATX_BTIME)) {
    stamp = "b" + std::to_string(stx.stx_btime.tv_sec) + "." + std::to_string(stx.stx_btime.tv_nsec);
  }
  // The kernel's FS_IOC_GETVERSION writes an int, whatever its _IOR says.
  int generation = 0;
  if (ioctl(fd, FS_IOC_GETVERSION, &generation) == 0) {
    stamp += (stamp.empty() ? "g" : ";g") + std::to_string(static_cast<uint32_t>(generation));
  }
  return stamp;
}

namespace {

// Whether the regular file `last` in `parent`, (dev, ino) by its stat, has `stamp`. Opened
// without following a link, never blocking (a FIFO put there meanwhile), for reading only.
bool HasStamp(int parent, const std::string& last, uint64_t dev, uint64_t ino, const std::string& stamp) {
  const int fd = openat(parent, last.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  const bool same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_dev) == dev &&
                    static_cast<uint64_t>(st.st_ino) == ino && FileStamp(fd) == stamp;
  close(fd);
  return same;
}

}  // namespace

int UnlinkBeneath(const PathRef& ref, uint64_t dev, uint64_t ino, bool links_too, const std::string& stamp) {
  std::string last;
  const int parent = OpenParentNoLinks(ref, &last);
  if (parent < 0) return -parent;
  struct stat st;
  int err = 0;
  if (fstatat(parent, last.c_str(), &st, AT_SYMLINK_NOFOLLOW) < 0) {
    err = errno;
  } else if (S_ISLNK(st.st_mode) && links_too) {
    // The name the user gave is a link to the file: as fio, the link goes, the file stays.
    if (unlinkat(parent, last.c_str(), 0) < 0) err = errno;
  } else if (!S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_dev) != dev || static_cast<uint64_t>(st.st_ino) != ino) {
    err = ESTALE;
  } else if (!stamp.empty() && !HasStamp(parent, last, dev, ino, stamp)) {
    // The inode number is the one recorded, but the file is a later one given it.
    err = ESTALE;
  } else if (unlinkat(parent, last.c_str(), 0) < 0) {
    err = errno;
  }
  close(parent);
  return err;
}

}  // namespace vb
