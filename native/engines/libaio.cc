#include "libaio.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>

namespace vb {

bool LibaioEngine::Probe() {
  aio_context_t ctx = 0;
  if (syscall(__NR_io_setup, 1, &ctx) < 0) return false;
  syscall(__NR_io_destroy, ctx);
  return true;
}

int LibaioEngine::Setup(const EngineSetup& s, const Options&) {
  fds_ = s.fds;
  aio_context_t ctx = 0;
  if (syscall(__NR_io_setup, s.depth, &ctx) < 0) return -errno;
  ctx_ = ctx;
  iocbs_.assign(s.unit_count, iocb{});
  submit_.assign(s.unit_count, nullptr);
  staged_.assign(s.unit_count, nullptr);
  events_.assign(s.unit_count, io_event{});
  nsubmit_ = nstaged_ = nevents_ = 0;
  reap_max_ = s.reap_max ? s.reap_max : 1;
  done_.Init(s.unit_count);
  return 0;
}

void LibaioEngine::Teardown() {
  if (ctx_ != 0) syscall(__NR_io_destroy, ctx_);
  ctx_ = 0;
}

int LibaioEngine::Commit(unsigned min_complete, uint64_t timeout_ns) {
  int submitted = 0;
  unsigned first = 0;
  while (first < nsubmit_) {
    const long r = syscall(__NR_io_submit, ctx_, static_cast<long>(nsubmit_ - first), submit_.data() + first);
    if (r < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      if (err == EAGAIN && first < nsubmit_) {
        // The context is full: wait for one completion to make room, then go on.
        const long g = syscall(__NR_io_getevents, ctx_, 1L, static_cast<long>(events_.size() - nevents_),
                               events_.data() + nevents_, nullptr);
        if (g > 0) nevents_ += static_cast<unsigned>(g);
        continue;
      }
      return -err;
    }
    first += static_cast<unsigned>(r);
    submitted += static_cast<int>(r);
  }
  if (nstaged_) {
    // io_submit() returned: these are in the kernel now.
    const uint64_t t = NowNs();
    for (unsigned i = 0; i < nstaged_; i++) staged_[i]->issue_ns = t;
    issued_ns_ = t;
  } else {
    issued_ns_ = 0;
  }
  nsubmit_ = nstaged_ = 0;

  // Trims completed inline count: waiting for them in the kernel would never return.
  const unsigned ready = nevents_ + done_.Size();
  if (min_complete == 0 || ready >= min_complete) return submitted;
  timespec ts;
  timespec* tsp = nullptr;
  if (timeout_ns) {
    ts.tv_sec = static_cast<time_t>(timeout_ns / 1000000000ull);
    ts.tv_nsec = static_cast<long>(timeout_ns % 1000000000ull);
    tsp = &ts;
  }
  // As many as one reap hands over (the rest stay in the ring), and at least what must be waited for.
  const unsigned want = std::min<unsigned>(std::max(min_complete, reap_max_), static_cast<unsigned>(events_.size()));
  for (;;) {
    const long g = syscall(__NR_io_getevents, ctx_, static_cast<long>(min_complete - nevents_),
                           static_cast<long>(want - nevents_), events_.data() + nevents_, tsp);
    if (g >= 0) {
      nevents_ += static_cast<unsigned>(g);
      return submitted;
    }
    if (errno != EINTR) return -errno;
  }
}

}  // namespace vb
