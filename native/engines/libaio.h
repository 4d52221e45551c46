// Linux native AIO through its system calls (io_setup, io_submit, io_getevents), without
// libaio.so. Completions are taken with io_getevents(), as fio takes them: read straight from
// the kernel's AIO ring instead (fio's userspace_reap), an I/O that completed while its own
// io_submit() was still returning (the device answering at once, or the thread preempted on
// its way out) was seen with nothing between its issue stamp and its completion stamp but a
// clock read, and reported a clat of 20-100 ns that no device has.
#pragma once

#include <linux/aio_abi.h>

#include "../clock.h"
#include "engine.h"

namespace vb {

class LibaioEngine {
 public:
  // Whether this kernel sets up an AIO context (CONFIG_AIO may be off).
  static bool Probe();
  static constexpr EngineOps kOps = {
      "libaio",
      "io_setup",   // setup
      "io_submit",  // read
      "io_submit",  // write
      true,         // needs a target
      &Probe,
  };
  static constexpr bool kInline = false;
  using Options = NoOptions;
  static constexpr auto& kOptions = kNoOptions;

  LibaioEngine() = default;
  LibaioEngine(const LibaioEngine&) = delete;
  LibaioEngine& operator=(const LibaioEngine&) = delete;
  ~LibaioEngine() { Teardown(); }

  int Setup(const EngineSetup& s, const Options&);
  void Teardown();
  EngineFacts Facts() const { return {}; }

  [[gnu::always_inline]] void Queue(IoUnit* u) {
    if (u->ddir == kTrim) {
      u->issue_ns = NowNs();
      u->inline_done = true;
      u->res = DiscardRange(fds_[u->file], u->offset + u->done, u->len - u->done);
      done_.Push(u);
      return;
    }
    iocb* cb = &iocbs_[u->slot];
    cb->aio_data = reinterpret_cast<uint64_t>(u);
    cb->aio_fildes = static_cast<uint32_t>(fds_[u->file]);
    if (u->ddir <= kWrite) {
      cb->aio_lio_opcode = u->ddir == kWrite ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
      cb->aio_buf = reinterpret_cast<uint64_t>(u->buf + u->done);
      cb->aio_nbytes = u->len - u->done;
      cb->aio_offset = static_cast<int64_t>(u->offset + u->done);
    } else {
      cb->aio_lio_opcode = u->ddir == kDataSync ? IOCB_CMD_FDSYNC : IOCB_CMD_FSYNC;
      cb->aio_buf = 0;
      cb->aio_nbytes = 0;
      cb->aio_offset = 0;
    }
    staged_[nstaged_++] = u;
    submit_[nsubmit_++] = cb;
  }

  int Commit(unsigned min_complete, uint64_t timeout_ns);

  // When the last Commit() stamped its I/Os as issued; 0 when it submitted none.
  uint64_t IssuedAt() const { return issued_ns_; }

  template <class F>
  unsigned Reap(F&& on_complete) {
    unsigned n = done_.Empty() ? 0 : done_.Drain(on_complete);
    for (unsigned i = 0; i < nevents_; i++) {
      IoUnit* u = reinterpret_cast<IoUnit*>(events_[i].data);
      u->res = static_cast<int32_t>(events_[i].res);
      on_complete(u);
    }
    n += nevents_;
    nevents_ = 0;
    return n;
  }

 private:
  const int* fds_ = nullptr;
  aio_context_t ctx_ = 0;
  std::vector<iocb> iocbs_;
  std::vector<iocb*> submit_;
  unsigned nsubmit_ = 0;
  std::vector<IoUnit*> staged_;
  unsigned nstaged_ = 0;
  std::vector<io_event> events_;
  unsigned nevents_ = 0;
  unsigned reap_max_ = 1;
  uint64_t issued_ns_ = 0;
  InlineQueue done_;
};

}  // namespace vb
