// Opening beneath a held directory. A path checked by name and opened by name later can be
// redirected in between (a directory swapped for a symlink out of its root). The engine never
// opens a target, a log or a probe file by its full name: it opens a name relative to a
// directory descriptor the caller holds, with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS),
// so no "..", absolute symlink or /proc magic link leads out of that directory; then it checks
// what it opened against what planning saw.
#pragma once

#include <sys/types.h>

#include <cerrno>

#include <cstdint>
#include <string>
#include <vector>

namespace vb {

// `name` relative to `dir_fd`; dir_fd < 0 means no path (the null engine opens nothing).
struct PathRef {
  int dir_fd = -1;
  std::string name;
  bool set() const { return dir_fd >= 0 && !name.empty(); }
};

// What planning saw at a target: nothing yet, that regular file, or that block device.
struct Expect {
  enum Kind : uint8_t { kNew, kFile, kDevice };
  Kind kind = kNew;
  uint64_t dev = 0, ino = 0;  // an existing file
  uint64_t rdev = 0;          // a device
};

// Files no open may land on, whatever they are called there: (dev, ino) pairs.
using Forbidden = std::vector<uint64_t>;

// Opens `ref` beneath its directory; returns the fd or -errno. EXDEV means the name tried to
// leave the directory. On kernels without openat2 (before 5.6) it walks the name component by
// component with O_NOFOLLOW instead, which refuses any symlink. O_CLOEXEC is always added.
int OpenBeneath(const PathRef& ref, int flags, mode_t mode = 0);

// Words for an OpenBeneath error that means the name tried to leave its directory, else "".
inline const char* LeavesDirectory(int err) {
  return err == EXDEV || err == ELOOP ? " (it leads out of its directory)" : "";
}

// Checks an opened fd: the kind and identity planning saw (a new file must be a regular one),
// and none of the forbidden inodes. Returns 0, or an errno with the reason in `why`.
int VerifyOpened(int fd, const Expect& expect, const Forbidden& forbidden, std::string* why);

// What tells a file from a later one given its inode number once it is freed (ext4 hands a
// freed number out again at once): its birth time (statx STATX_BTIME) and its inode generation
// (FS_IOC_GETVERSION), "b<sec>.<nsec>" and "g<n>" joined by ';', each where the filesystem has
// it; "" where it has neither (ramfs, older tmpfs). `fd` must be opened for reading or writing
// (an O_PATH descriptor answers no ioctl).
std::string FileStamp(int fd);

// Removes `ref` from its directory with unlinkat: a regular file only while it is still the
// file (dev, ino) and, when `stamp` is not empty, has that FileStamp; or with `links_too` a
// symlink (the link only: unlink=1 removes the name it was given, as fio). The directories on
// the way are walked without following any link. Returns 0 or an errno (ESTALE: another file).
int UnlinkBeneath(const PathRef& ref, uint64_t dev, uint64_t ino, bool links_too, const std::string& stamp = "");

// The directory part of `ref` opened beneath its directory (O_PATH), and the last component.
// Returns the fd (the caller closes it) or -errno.
int OpenParentBeneath(const PathRef& ref, std::string* last);

}  // namespace vb
