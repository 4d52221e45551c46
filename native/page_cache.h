// Dropping a target's pages from the page cache, as fio does with invalidate=1 (its default):
// when the job opens its target, at every loop, each time a time-based job starts another
// pass over its region, and before a verify pass. Without it, a buffered job measures the page
// cache after its first pass rather than the device.
#pragma once

#include <cstdint>

namespace vb {

// Drops the cached pages of [offset, offset + bytes) of a file, or the whole buffer cache of a
// block device (BLKFLSBUF, as fio; only root may, so a refused flush drops the region's pages
// instead). Dirty pages are written back first, by the kernel. Returns 0 or an errno; a failure
// is not fatal (fio only says so), so callers may ignore it.
int DropPageCache(int fd, bool is_block_device, uint64_t offset, uint64_t bytes);

}  // namespace vb
