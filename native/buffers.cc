#include "buffers.h"

#include <cinttypes>
#include <cstdio>

#include "crc32c.h"

namespace vb {

void FillRandom(char* p, size_t n, Rng& rng) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t v = rng.Next();
    std::memcpy(p + i, &v, 8);
  }
  if (i < n) {
    const uint64_t v = rng.Next();
    std::memcpy(p + i, &v, n - i);
  }
}

void FillCompressible(char* p, size_t n, uint32_t pct, uint32_t chunk, Rng& rng) {
  if (chunk == 0) chunk = 512;
  for (size_t at = 0; at < n; at += chunk) {
    const size_t len = at + chunk <= n ? chunk : n - at;
    const size_t zeros = len * pct / 100;
    FillRandom(p + at, len - zeros, rng);
    std::memset(p + at + (len - zeros), 0, zeros);
  }
}

void FillBuffer(char* p, size_t n, const JobPlan& plan, Rng& rng) {
  switch (plan.buffer_fill) {
    case BufferFill::kZero:
      std::memset(p, 0, n);
      break;
    case BufferFill::kCompressible:
      FillCompressible(p, n, plan.compress_pct, plan.compress_chunk, rng);
      break;
    default:
      FillRandom(p, n, rng);
  }
}

uint64_t HugePageBytes(const char* p, uint64_t n) {
  FILE* f = std::fopen("/proc/self/smaps", "re");
  if (f == nullptr) return 0;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + n;
  uint64_t total = 0;
  uintptr_t vma_lo = 0, vma_hi = 0;
  char line[512];
  // A mapping's header line ("start-end perms ... path"), then its "Key: value kB" lines. A
  // long line (a path) is read in pieces, and only a line's first piece is parsed.
  bool at_line_start = true;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    const bool first_piece = at_line_start;
    at_line_start = std::strchr(line, '\n') != nullptr;
    if (!first_piece) continue;
    uintmax_t a = 0, b = 0, kb = 0;
    if (std::sscanf(line, "%jx-%jx ", &a, &b) == 2) {
      vma_lo = static_cast<uintptr_t>(a);
      vma_hi = static_cast<uintptr_t>(b);
      // Mappings are listed in address order: none after this one can hold the buffers.
      if (vma_lo >= hi) break;
    } else if (vma_lo >= lo && vma_hi <= hi && std::sscanf(line, "AnonHugePages: %ju kB", &kb) == 1) {
      // Only mappings inside the range count: the buffers have a mapping of their own (see
      // UnitPool), so nothing else's huge pages are counted as theirs.
      total += static_cast<uint64_t>(kb) << 10;
    }
  }
  std::fclose(f);
  return total < n ? total : n;
}

namespace {

uint32_t BlockCrc(const char* p, uint32_t len) {
  VerifyHeader h;
  std::memcpy(&h, p, sizeof(h));
  h.crc = 0;
  uint32_t crc = Crc32c(0, &h, sizeof(h));
  return Crc32c(crc, p + sizeof(h), len - sizeof(h));
}

}  // namespace

void StampVerifyHeader(char* p, uint32_t len, uint64_t offset, uint64_t salt) {
  VerifyHeader h{kVerifyMagic, 0, offset, len, 0, salt};
  std::memcpy(p, &h, sizeof(h));
  h.crc = BlockCrc(p, len);
  std::memcpy(p, &h, sizeof(h));
}

// The message says where and how a block failed, never what it holds: a verify job may read a
// file somebody else owns, and its error must not hand out that file's bytes (the header's
// fields are the block's first bytes). The checksum of what was read is a digest, not content.
bool CheckVerifyHeader(const char* p, uint32_t len, uint64_t offset, char* why, size_t why_len) {
  VerifyHeader h;
  std::memcpy(&h, p, sizeof(h));
  if (h.magic != kVerifyMagic) {
    std::snprintf(why, why_len, "verify: the block at offset %" PRIu64 " (len %u) has no verify header", offset, len);
    return false;
  }
  if (h.offset != offset || h.len != len) {
    std::snprintf(why, why_len, "verify: the block at offset %" PRIu64 " (len %u) holds the header of another block",
                  offset, len);
    return false;
  }
  const uint32_t crc = BlockCrc(p, len);
  if (crc != h.crc) {
    std::snprintf(why, why_len,
                  "verify: crc32c mismatch at offset %" PRIu64 " (len %u): the block read sums to 0x%08x, not to what "
                  "its header records",
                  offset, len, crc);
    return false;
  }
  return true;
}

}  // namespace vb
