// MD5 (RFC 1321), for fio's verify=md5 digest. Not for anything secret: fio uses it to tell a
// block that holds what was written from one that does not, and so does volbench.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vb {

constexpr size_t kMd5Bytes = 16;

// The digest of `len` bytes at `data`, in RFC 1321's byte order (fio's on little-endian hosts).
void Md5(const void* data, size_t len, uint8_t out[kMd5Bytes]);

}  // namespace vb
