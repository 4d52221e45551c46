// Linux native AIO through its system calls (io_setup, io_submit, io_getevents), without
// libaio.so. Completions already in the kernel's AIO ring are read from user space, which saves
// the io_getevents() call whenever enough are ready.
#pragma once

#include <linux/aio_abi.h>

#include <atomic>

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

  void Queue(IoUnit* u) {
    if (u->ddir == kTrim) {
      u->issue_ns = NowNs();
      u->inline_done = true;
      u->res = DiscardRange(fd_, u->offset + u->done, u->len - u->done);
      done_.Push(u);
      return;
    }
    iocb* cb = &iocbs_[u->slot];
    cb->aio_data = reinterpret_cast<uint64_t>(u);
    cb->aio_fildes = static_cast<uint32_t>(fd_);
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
    unsigned budget = reap_max_ > nevents_ ? reap_max_ - nevents_ : 0;
    nevents_ = 0;
    if (ring_ == nullptr || budget == 0) return n;
    unsigned head = ring_->head;
    const unsigned tail = reinterpret_cast<std::atomic<unsigned>*>(&ring_->tail)->load(std::memory_order_acquire);
    while (head != tail && budget) {
      budget--;
      const io_event& ev = ring_->events[head];
      IoUnit* u = reinterpret_cast<IoUnit*>(ev.data);
      u->res = static_cast<int32_t>(ev.res);
      on_complete(u);
      n++;
      head = head + 1 == ring_->nr ? 0 : head + 1;
    }
    reinterpret_cast<std::atomic<unsigned>*>(&ring_->head)->store(head, std::memory_order_release);
    return n;
  }

 private:
  // The kernel's completion ring, mapped at the context's address (a stable kernel ABI).
  struct AioRing {
    unsigned id, nr, head, tail, magic, compat_features, incompat_features, header_length;
    io_event events[];
  };

  unsigned RingReady() const {
    if (ring_ == nullptr) return 0;
    const unsigned tail = reinterpret_cast<std::atomic<unsigned>*>(&ring_->tail)->load(std::memory_order_acquire);
    const unsigned head = ring_->head;
    return tail >= head ? tail - head : ring_->nr - head + tail;
  }

  int fd_ = -1;
  aio_context_t ctx_ = 0;
  AioRing* ring_ = nullptr;
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
