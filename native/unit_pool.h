// A job's I/O slots: `iodepth` units, each with a buffer of its own carved out of one
// page-aligned mapping (so that an engine can register them all at once), made before the
// first I/O. The loop only moves units between free, in flight and waiting to be sent again.
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <vector>

#include "io_unit.h"

namespace vb {

class UnitPool {
 public:
  UnitPool() = default;
  UnitPool(const UnitPool&) = delete;
  UnitPool& operator=(const UnitPool&) = delete;
  ~UnitPool() {
    if (buffers_ != nullptr) munmap(buffers_ - kGuard, buffer_bytes_ + 2 * kGuard);
  }
  // The kernel may still write into the buffers: they are never freed.
  void Abandon() { buffers_ = nullptr; }

  // `depth` units with buffers of `max_bs` bytes rounded up to a page (O_DIRECT's alignment
  // for any device). False when the memory is not there.
  //
  // A mapping of their own, as a fio job process gets from malloc for its buffers: fresh pages
  // that the first touch (a write job's fill, a read job's first I/O) faults in, never memory a
  // previous job of the process had, so that their physical layout, which decides whether a
  // large I/O reaches the device whole, comes about as under fio. An inaccessible page either
  // side keeps the kernel from merging the mapping with a neighbour, so that /proc/self/smaps
  // describes the buffers alone (HugePageBytes).
  bool Allocate(unsigned depth, uint32_t max_bs) {
    const uint32_t unit_bytes = (max_bs + 4095) & ~4095u;
    buffer_bytes_ = static_cast<uint64_t>(unit_bytes) * depth;
    void* mem = mmap(nullptr, buffer_bytes_ + 2 * kGuard, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return false;
    char* inner = static_cast<char*>(mem) + kGuard;
    if (mprotect(inner, buffer_bytes_, PROT_READ | PROT_WRITE) != 0) {
      munmap(mem, buffer_bytes_ + 2 * kGuard);
      return false;
    }
    buffers_ = inner;
    units_.assign(depth, IoUnit{});
    free_.assign(depth, nullptr);
    resend_.assign(depth, nullptr);
    for (unsigned i = 0; i < depth; i++) {
      units_[i].buf = buffers_ + static_cast<uint64_t>(i) * unit_bytes;
      units_[i].slot = static_cast<uint16_t>(i);
      free_[i] = &units_[i];
    }
    nfree_ = depth;
    return true;
  }

  char* buffers() const { return buffers_; }
  uint64_t buffer_bytes() const { return buffer_bytes_; }
  IoUnit* units() { return units_.data(); }
  unsigned size() const { return static_cast<unsigned>(units_.size()); }

  // Callers keep count: a unit is taken only when fewer than `depth` are in flight.
  IoUnit* Take() { return free_[--nfree_]; }
  void Free(IoUnit* u) { free_[nfree_++] = u; }
  // A short transfer: sent again, for the rest of its bytes, before any new I/O.
  void Resend(IoUnit* u) { resend_[nresend_++] = u; }
  bool HasResend() const { return nresend_ != 0; }
  IoUnit* TakeResend() { return resend_[--nresend_]; }

 private:
  static constexpr uint64_t kGuard = 4096;
  char* buffers_ = nullptr;
  uint64_t buffer_bytes_ = 0;
  std::vector<IoUnit> units_;
  std::vector<IoUnit*> free_;
  unsigned nfree_ = 0;
  std::vector<IoUnit*> resend_;
  unsigned nresend_ = 0;
};

}  // namespace vb
