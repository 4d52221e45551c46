#include "fio_header.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "crc32c.h"
#include "md5.h"

namespace vb {
namespace {

constexpr uint16_t kFioMagic = 0xacca;
constexpr uint16_t kFioTypeMd5 = 2;
constexpr size_t kCrcAt = 36;
constexpr size_t kDigestAt = kFioHeaderBytes;

// fio's crc32c (crc/crc32c.c) starts from all ones and, unlike the usual CRC-32C, is not
// inverted at the end.
uint32_t FioCrc32c(const char* p, size_t len) { return ~Crc32c(0, p, len); }

// The header's fields are little-endian, as fio writes them on the hosts volbench runs on.
template <class T>
void Put(char* p, size_t at, T v) {
  std::memcpy(p + at, &v, sizeof(v));
}
template <class T>
T Get(const char* p, size_t at) {
  T v;
  std::memcpy(&v, p + at, sizeof(v));
  return v;
}

}  // namespace

void StampFioMd5Header(char* p, uint32_t len, uint64_t offset, const FioHeaderFields& fields) {
  Put<uint16_t>(p, 0, kFioMagic);
  Put<uint16_t>(p, 2, kFioTypeMd5);
  Put<uint32_t>(p, 4, len);
  Put<uint64_t>(p, 8, fields.rand_seed);
  Put<uint64_t>(p, 16, offset);
  Put<uint32_t>(p, 24, static_cast<uint32_t>(fields.time_ns / 1000000000u));
  Put<uint32_t>(p, 28, static_cast<uint32_t>(fields.time_ns % 1000000000u));
  Put<uint16_t>(p, 32, fields.thread);
  Put<uint16_t>(p, 34, fields.numberio);
  Put<uint32_t>(p, kCrcAt, FioCrc32c(p, kCrcAt));
  uint8_t digest[kMd5Bytes];
  Md5(p + kFioMd5HeaderBytes, len - kFioMd5HeaderBytes, digest);
  std::memcpy(p + kDigestAt, digest, kMd5Bytes);
}

bool CheckFioMd5Header(const char* p, uint32_t len, uint64_t offset, char* why, size_t why_len) {
  const auto fail = [&](const char* what) {
    std::snprintf(why, why_len, "verify: %s at offset %" PRIu64 " (len %u)", what, offset, len);
    return false;
  };
  if (Get<uint16_t>(p, 0) != kFioMagic) return fail("bad magic header (no fio verify header)");
  if (Get<uint16_t>(p, 2) != kFioTypeMd5) return fail("verify type mismatch (the header is not md5's)");
  if (Get<uint32_t>(p, 4) != len) return fail("bad header length");
  if (Get<uint64_t>(p, 16) != offset) return fail("bad header offset (the header of another block)");
  if (Get<uint32_t>(p, kCrcAt) != FioCrc32c(p, kCrcAt)) return fail("bad header crc");
  uint8_t digest[kMd5Bytes];
  Md5(p + kFioMd5HeaderBytes, len - kFioMd5HeaderBytes, digest);
  if (std::memcmp(digest, p + kDigestAt, kMd5Bytes) != 0) return fail("md5 mismatch: the block read does not sum to what its header records");
  return true;
}

}  // namespace vb
