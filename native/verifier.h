// verify=crc32c and verify=md5. Every write carries a header naming its block: volbench's own
// with a CRC-32C (buffers.h), or fio's with an MD5 digest (fio_header.h, so that fio can check
// what volbench wrote and the other way round); a bitmap keeps which blocks the job wrote, and
// after the main phase a verify pass reads those blocks back in order. A read whose header does
// not match ends the job with EILSEQ. The parts the loop calls per I/O are inline.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "buffers.h"
#include "fio_header.h"
#include "io_unit.h"
#include "plan.h"

namespace vb {

class Verifier {
 public:
  // For a job with verify set, `bs` its one block size and `writes` whether it writes. False
  // when there is no single block size, which the headers need.
  bool Init(const JobPlan& plan, uint32_t bs, bool writes);

  // Stamps a write's header and marks its block written; `numberio` counts the job's writes
  // before this one, as fio's header does.
  void StampWrite(IoUnit* u, uint64_t salt, uint64_t now, uint64_t numberio) {
    if (kind_ == VerifyKind::kMd5) {
      StampFioMd5Header(u->buf, u->len, u->offset, FioHeaderFields{salt, now, thread_, static_cast<uint16_t>(numberio)});
    } else {
      StampVerifyHeader(u->buf, u->len, u->offset, salt);
    }
    const uint64_t block = (u->offset - region_offset_) / bs_;
    written_[block >> 6] |= uint64_t{1} << (block & 63);
  }

  // Whether the job wrote blocks that a verify pass should read back.
  bool PassDue() const { return pass_wanted_ && !written_.empty(); }
  void StartPass() { block_ = 0; }
  // Turns `u` into the verify pass's next read: the next written block (every block when the
  // job wrote none, as verify_only checks what an earlier run wrote). False when none is left.
  bool NextRead(IoUnit* u) {
    while (block_ < blocks_ && !written_.empty() && !(written_[block_ >> 6] & (uint64_t{1} << (block_ & 63))))
      block_++;
    if (block_ >= blocks_) return false;
    u->ddir = kRead;
    u->len = bs_;
    u->offset = region_offset_ + block_ * bs_;
    block_++;
    return true;
  }

  // Whether a completed read must have its header checked: every read of the verify pass, and
  // main-phase reads only in a job that does not write, where every block read was written
  // earlier (by another job or run). A mixed job checks what it wrote in its verify pass
  // instead, as a read may reach a block it has not written yet.
  bool Checks(const IoUnit* u) const { return u->phase == Phase::kVerify || (u->ddir == kRead && check_reads_); }
  // 0, or EILSEQ with `message` saying which block of `path` is wrong and how.
  int CheckRead(const IoUnit* u, const std::string& path, std::string* message) const;

 private:
  VerifyKind kind_ = VerifyKind::kCrc32c;
  // What fio's header calls the job's thread: its instance, from 1.
  uint16_t thread_ = 1;
  uint64_t region_offset_ = 0;
  uint32_t bs_ = 0;
  uint64_t blocks_ = 0;
  // The verify pass's next block.
  uint64_t block_ = 0;
  // One bit per block, set when the job writes it; empty when the job does not write.
  std::vector<uint64_t> written_;
  bool pass_wanted_ = false;
  bool check_reads_ = false;
};

}  // namespace vb
