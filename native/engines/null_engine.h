// The null engine: every I/O completes at once without touching a device. It exists to measure
// the engine itself (fio keeps engines/null.c for the same reason), so it goes through the same
// staging, commit and reap steps as an asynchronous engine.
#pragma once

#include "../clock.h"
#include "engine.h"

namespace vb {

class NullEngine {
 public:
  static constexpr EngineOps kOps = {
      "null",
      "engine setup",  // setup (which cannot fail)
      "null",          // read
      "null",          // write
      false,           // needs a target: it touches no device
      nullptr,         // probe: always there
  };
  static constexpr bool kInline = false;
  using Options = NoOptions;
  static constexpr auto& kOptions = kNoOptions;

  int Setup(const EngineSetup& s, const Options&) {
    staged_.assign(s.unit_count, nullptr);
    done_.Init(s.unit_count);
    return 0;
  }
  EngineFacts Facts() const { return {}; }

  void Queue(IoUnit* u) {
    if (u->ddir == kTrim) {
      u->issue_ns = u->start_ns;
      u->inline_done = true;
      u->res = static_cast<int32_t>(u->len - u->done);
      done_.Push(u);
      return;
    }
    staged_[nstaged_++] = u;
  }

  int Commit(unsigned, uint64_t) {
    issued_ns_ = 0;
    if (nstaged_ == 0) return 0;
    const uint64_t t = NowNs();
    const unsigned n = nstaged_;
    for (unsigned i = 0; i < n; i++) {
      IoUnit* u = staged_[i];
      u->issue_ns = t;
      u->res = u->ddir <= kTrim ? static_cast<int32_t>(u->len - u->done) : 0;
      done_.Push(u);
    }
    nstaged_ = 0;
    issued_ns_ = t;
    return static_cast<int>(n);
  }

  // When the last Commit() stamped its I/Os as issued; 0 when it submitted none.
  uint64_t IssuedAt() const { return issued_ns_; }

  template <class F>
  unsigned Reap(F&& on_complete) {
    return done_.Drain(on_complete);
  }

  void Teardown() {}

 private:
  std::vector<IoUnit*> staged_;
  unsigned nstaged_ = 0;
  uint64_t issued_ns_ = 0;
  InlineQueue done_;
};

}  // namespace vb
