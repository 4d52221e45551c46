// What the engine writes: incompressible random data by default (as fio), zeros, or data that
// compresses to a chosen percentage; a per-write scramble that defeats deduplication; and the
// verify header that lets a later read prove a block holds what was written there.
#pragma once

#include <cstdint>
#include <cstring>

#include "plan.h"
#include "rng.h"

namespace vb {

void FillRandom(char* p, size_t n, Rng& rng);
// `pct` percent of every `chunk` bytes are zeros, the rest random: compresses to about
// (100 - pct) percent, like fio's buffer_compress_percentage.
void FillCompressible(char* p, size_t n, uint32_t pct, uint32_t chunk, Rng& rng);
void FillBuffer(char* p, size_t n, const JobPlan& plan, Rng& rng);

// How many of the `n` bytes from `p` the kernel backs with transparent huge pages, from
// /proc/self/smaps: the mappings lying wholly inside the range (a mapping of their own, as
// UnitPool makes); 0 when it cannot be read.
uint64_t HugePageBytes(const char* p, uint64_t n);

// Makes each write unique at every 4 KiB without rewriting the buffer: one 8-byte store per
// 4 KiB, away from the verify header.
inline void ScrambleBuffer(char* p, uint32_t len, uint64_t salt) {
  for (uint32_t at = 512; at < len; at += 4096) std::memcpy(p + at, &salt, sizeof(salt));
  if (len <= 512) std::memcpy(p + len - sizeof(salt), &salt, sizeof(salt));
}

constexpr uint32_t kVerifyMagic = 0x31764256;  // "VBv1"

struct VerifyHeader {
  uint32_t magic;
  uint32_t crc;
  uint64_t offset;
  uint32_t len;
  uint32_t reserved;
  uint64_t salt;
};
static_assert(sizeof(VerifyHeader) == 32, "verify header layout");

// Stamps the header for a block of `len` bytes written at `offset`.
void StampVerifyHeader(char* p, uint32_t len, uint64_t offset, uint64_t salt);

// Checks a block read from `offset`; on mismatch returns false and a message in `why`.
bool CheckVerifyHeader(const char* p, uint32_t len, uint64_t offset, char* why, size_t why_len);

}  // namespace vb
