// One NVMe log page, read with the kernel's admin passthrough (NVME_IOCTL_ADMIN_CMD, a Get Log
// Page command) from a namespace's block device or a controller's character device. The caller
// has decided the device is an NVMe one (sysfs) and hands over the device number it saw, so what
// is opened is checked to be that device before any command is sent to it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vb {

struct NvmeLogPageRequest {
  std::string path;
  // The device the path must be once opened: a block or a character device with this st_rdev.
  bool char_device = false;
  uint64_t rdev = 0;
  uint8_t lid = 0;
  uint32_t nsid = 0;
  // A multiple of 4, at most kMaxNvmeLogPageBytes.
  uint32_t bytes = 0;
  // The command's own timeout in the kernel (0: the driver's default).
  uint32_t timeout_ms = 0;
};

struct NvmeLogPageResult {
  // errno of the call that failed (0: none), and which: "open", "fstat", "ioctl".
  int err = 0;
  const char* syscall = "";
  // Why an opened path was refused (not the device the caller saw).
  std::string why;
  // The controller's status for the command (0: success; NVMe status otherwise).
  uint32_t status = 0;
  std::vector<uint8_t> data;
};

constexpr uint32_t kMaxNvmeLogPageBytes = 65536;

// Runs on a thread of its own (root_call.h): the ioctl can wait on the device.
NvmeLogPageResult ReadNvmeLogPage(const NvmeLogPageRequest& request);

}  // namespace vb
