#include "verifier.h"

#include <cerrno>

namespace vb {

bool Verifier::Init(const JobPlan& plan, uint32_t bs, bool writes) {
  kind_ = plan.verify_kind;
  thread_ = static_cast<uint16_t>(plan.instance + 1);
  region_offset_ = plan.region_offset;
  pass_wanted_ = plan.do_verify;
  check_reads_ = plan.read_pct == 100;
  bs_ = bs;
  // fio's header and digest take the first 56 bytes of a block: there must be data after them.
  if (bs_ == 0 || (kind_ == VerifyKind::kMd5 && bs_ <= kFioMd5HeaderBytes)) return false;
  blocks_ = plan.region_bytes / bs_;
  if (writes && !plan.verify_only) written_.assign((blocks_ + 63) / 64, 0);
  return true;
}

int Verifier::CheckRead(const IoUnit* u, const std::string& path, std::string* message) const {
  char why[256];
  const bool ok = kind_ == VerifyKind::kMd5 ? CheckFioMd5Header(u->buf, u->len, u->offset, why, sizeof(why))
                                            : CheckVerifyHeader(u->buf, u->len, u->offset, why, sizeof(why));
  if (ok) return 0;
  *message = std::string(why) + " on " + path;
  return EILSEQ;
}

}  // namespace vb
