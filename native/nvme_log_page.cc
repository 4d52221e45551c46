#include "nvme_log_page.h"

#include <fcntl.h>
#include <linux/nvme_ioctl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vb {
namespace {

constexpr uint8_t kGetLogPage = 0x02;

// The opened descriptor is the device the caller saw: a name swapped between the caller's look
// and this open (for a FIFO, a watchdog, another disk) gets no command.
bool IsExpectedDevice(int fd, const NvmeLogPageRequest& request, NvmeLogPageResult* out) {
  struct stat st;
  if (fstat(fd, &st) < 0) {
    out->err = errno;
    out->syscall = "fstat";
    return false;
  }
  const bool kind_ok = request.char_device ? S_ISCHR(st.st_mode) : S_ISBLK(st.st_mode);
  if (!kind_ok || static_cast<uint64_t>(st.st_rdev) != request.rdev) {
    out->err = ENODEV;
    out->syscall = "open";
    out->why = "it is no longer the device it was when looked at";
    return false;
  }
  return true;
}

}  // namespace

NvmeLogPageResult ReadNvmeLogPage(const NvmeLogPageRequest& request) {
  NvmeLogPageResult out;
  // Non-blocking and without a controlling terminal: whatever the name has become, the open
  // itself neither waits nor takes a terminal; the check below refuses it before any command.
  const int fd = open(request.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    out.err = errno;
    out.syscall = "open";
    return out;
  }
  if (!IsExpectedDevice(fd, request, &out)) {
    close(fd);
    return out;
  }
  out.data.assign(request.bytes, 0);
  struct nvme_admin_cmd cmd;
  std::memset(&cmd, 0, sizeof(cmd));
  cmd.opcode = kGetLogPage;
  cmd.nsid = request.nsid;
  cmd.addr = reinterpret_cast<uintptr_t>(out.data.data());
  cmd.data_len = request.bytes;
  // The page id in bits 0-7; the number of dwords, 0-based, from bit 16 (NUMDL).
  cmd.cdw10 = request.lid | (((request.bytes / 4) - 1) << 16);
  cmd.timeout_ms = request.timeout_ms;
  const int rc = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
  if (rc < 0) {
    out.err = errno;
    out.syscall = "ioctl";
    out.data.clear();
  } else if (rc > 0) {
    out.status = static_cast<uint32_t>(rc);
    out.data.clear();
  }
  close(fd);
  return out;
}

}  // namespace vb
