// fio's verify header (verify.h struct verify_header) with an MD5 digest (struct vhdr_md5), as
// fio 3.33 writes it at the start of every verify interval (here: every block) for verify=md5.
// Laid out as fio lays it out, so a file volbench wrote can be checked by fio's verify_only and
// one fio wrote by volbench's:
//
//   0  u16 magic 0xacca   2  u16 type (md5: 2)   4  u32 len      8  u64 rand_seed
//   16 u64 offset         24 u32 time_sec        28 u32 time_nsec
//   32 u16 thread         34 u16 numberio        36 u32 crc32c of bytes 0..35
//   40 u8[16] MD5 of the bytes from 56 to the block's end
#pragma once

#include <cstddef>
#include <cstdint>

namespace vb {

constexpr uint32_t kFioHeaderBytes = 40;
constexpr uint32_t kFioMd5HeaderBytes = kFioHeaderBytes + 16;

struct FioHeaderFields {
  uint64_t rand_seed;
  uint64_t time_ns;
  uint16_t thread;
  uint16_t numberio;
};

// Stamps the header of a block of `len` bytes (more than kFioMd5HeaderBytes) written at `offset`.
void StampFioMd5Header(char* p, uint32_t len, uint64_t offset, const FioHeaderFields& fields);

// Checks a block read from `offset` as fio's verify_header and verify_io_u_md5 do (the fields
// fio checks of every job: magic, type, length, offset, the header's crc32c and the digest); on
// a mismatch returns false and says where and how in `why`, never what the block holds.
bool CheckFioMd5Header(const char* p, uint32_t len, uint64_t offset, char* why, size_t why_len);

}  // namespace vb
