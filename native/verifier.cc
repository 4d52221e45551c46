#include "verifier.h"

#include <cerrno>

namespace vb {

bool Verifier::Init(const JobPlan& plan, uint32_t bs, bool writes) {
  region_offset_ = plan.region_offset;
  pass_wanted_ = plan.do_verify;
  check_reads_ = plan.read_pct == 100;
  bs_ = bs;
  if (bs_ == 0) return false;
  blocks_ = plan.region_bytes / bs_;
  if (writes && !plan.verify_only) written_.assign((blocks_ + 63) / 64, 0);
  return true;
}

int Verifier::CheckRead(const IoUnit* u, const std::string& path, std::string* message) const {
  char why[256];
  if (CheckVerifyHeader(u->buf, u->len, u->offset, why, sizeof(why))) return 0;
  *message = std::string(why) + " on " + path;
  return EILSEQ;
}

}  // namespace vb
