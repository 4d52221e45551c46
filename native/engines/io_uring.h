// io_uring through its system calls: SQEs written straight into the shared ring, completions
// read straight from the CQ ring. As fio's engine: one io_uring_enter() submits what is staged
// (asking for events, so that deferred completions get posted), the issue stamp follows it, and
// a second call waits only when nothing has completed meanwhile; so clat excludes the
// submission, which slat holds. Buffers, the file and the ring fd itself are registered once.
#pragma once

#include <linux/io_uring.h>

#include <atomic>
#include <cstring>

#include "../clock.h"
#include "engine.h"

namespace vb {

// io_uring's options, as fio's engine names them (fixedbufs, registerfiles, sqthread_poll,
// hipri); the plan's io_uring options object carries them by the names in kOptions.
struct IoUringOptions {
  // Register the I/O buffers (READ_FIXED/WRITE_FIXED): no page pinning per I/O.
  bool fixed_bufs = false;
  // Register the target's descriptor: no file lookup per I/O.
  bool register_files = false;
  // A kernel thread polls the submission ring (IORING_SETUP_SQPOLL).
  bool sq_thread_poll = false;
  // Completions are polled for, not interrupt-driven (IORING_SETUP_IOPOLL).
  bool hipri = false;
};

class IoUringEngine {
 public:
  using Options = IoUringOptions;
  static constexpr std::array<EngineOption<Options>, 4> kOptions = {{
      {"fixedBufs", &Options::fixed_bufs},
      {"registerFiles", &Options::register_files},
      {"sqThreadPoll", &Options::sq_thread_poll},
      {"hipri", &Options::hipri},
  }};
  // Whether this kernel sets up a ring at all (it may be too old, or io_uring disabled).
  static bool Probe();
  static constexpr EngineOps kOps = {
      "io_uring",
      "io_uring_setup",  // setup
      "io_uring_enter",  // read
      "io_uring_enter",  // write
      true,              // needs a target
      &Probe,
      kWorkerPerStuckIo,
  };
  static constexpr bool kInline = false;

  IoUringEngine() = default;
  IoUringEngine(const IoUringEngine&) = delete;
  IoUringEngine& operator=(const IoUringEngine&) = delete;
  ~IoUringEngine() { Teardown(); }

  int Setup(const EngineSetup& s, const Options& o);
  void Teardown();

  // Setup flags the ring got after dropping the ones this kernel refused.
  unsigned setup_flags() const { return setup_flags_; }
  EngineFacts Facts() const { return EngineFacts{fixed_bufs_, fixed_file_}; }

  [[gnu::always_inline]] void Queue(IoUnit* u) {
    if (u->ddir == kTrim) {
      u->issue_ns = NowNs();
      u->inline_done = true;
      u->res = DiscardRange(fds_[u->file], u->offset + u->done, u->len - u->done);
      done_.Push(u);
      return;
    }
    const unsigned idx = sq_tail_ & sq_mask_;
    io_uring_sqe* sqe = &sqes_[idx];
    std::memset(sqe, 0, sizeof(*sqe));
    if (u->ddir <= kWrite) {
      const bool write = u->ddir == kWrite;
      if (fixed_bufs_) {
        sqe->opcode = write ? IORING_OP_WRITE_FIXED : IORING_OP_READ_FIXED;
        sqe->buf_index = 0;
      } else {
        sqe->opcode = write ? IORING_OP_WRITE : IORING_OP_READ;
      }
      sqe->addr = reinterpret_cast<uint64_t>(u->buf + u->done);
      sqe->len = u->len - u->done;
      sqe->off = u->offset + u->done;
    } else {
      sqe->opcode = IORING_OP_FSYNC;
      sqe->fsync_flags = u->ddir == kDataSync ? IORING_FSYNC_DATASYNC : 0;
    }
    if (fixed_file_) {
      sqe->fd = u->file;
      sqe->flags = IOSQE_FIXED_FILE;
    } else {
      sqe->fd = fds_[u->file];
    }
    sqe->user_data = reinterpret_cast<uint64_t>(u);
    if (sq_array_) sq_array_[idx] = idx;
    sq_tail_++;
    staged_[nstaged_++] = u;
  }

  int Commit(unsigned min_complete, uint64_t timeout_ns);

  // When the last Commit() stamped its I/Os as issued; 0 when it submitted none.
  uint64_t IssuedAt() const { return issued_ns_; }

  template <class F>
  unsigned Reap(F&& on_complete) {
    unsigned n = done_.Empty() ? 0 : done_.Drain(on_complete);
    unsigned head = cq_head_;
    unsigned tail = reinterpret_cast<std::atomic<unsigned>*>(cq_ktail_)->load(std::memory_order_acquire);
    if (head == tail) return n;
    if (tail - head > reap_max_) tail = head + reap_max_;
    do {
      const io_uring_cqe* cqe = &cqes_[head & cq_mask_];
      IoUnit* u = reinterpret_cast<IoUnit*>(cqe->user_data);
      u->res = cqe->res;
      on_complete(u);
      head++;
    } while (head != tail);
    n += tail - cq_head_;
    cq_head_ = head;
    reinterpret_cast<std::atomic<unsigned>*>(cq_khead_)->store(head, std::memory_order_release);
    return n;
  }

 private:
  unsigned CqReady() const {
    return reinterpret_cast<std::atomic<unsigned>*>(cq_ktail_)->load(std::memory_order_acquire) - cq_head_;
  }
  int Enter(unsigned to_submit, unsigned min_complete, unsigned flags, uint64_t timeout_ns);
  int Submit();
  // Setup's steps: map the rings the kernel made (0 or -errno), then register what the options
  // ask for and the ring fd itself (each an optimisation the I/O path works without).
  int MapRings(const io_uring_params& p);
  void Register(const EngineSetup& s, const Options& o);

  // The job's files, by IoUnit::file (registered in this order when they are registered).
  const int* fds_ = nullptr;
  unsigned file_count_ = 1;
  int ring_fd_ = -1;
  // The fd to pass to io_uring_enter: the registered index when the ring fd is registered.
  int enter_fd_ = -1;
  unsigned enter_flags_ = 0;
  unsigned setup_flags_ = 0;
  unsigned reap_max_ = 1;
  uint64_t issued_ns_ = 0;
  bool fixed_bufs_ = false;
  bool fixed_file_ = false;
  // IORING_ENTER_EXT_ARG (a wait with a timeout) exists from Linux 5.11; before, waits are untimed.
  bool ext_arg_ = false;

  void* sq_ring_ = nullptr;
  size_t sq_ring_bytes_ = 0;
  void* cq_ring_ = nullptr;
  size_t cq_ring_bytes_ = 0;
  io_uring_sqe* sqes_ = nullptr;
  size_t sqes_bytes_ = 0;

  unsigned* sq_ktail_ = nullptr;
  unsigned* sq_kflags_ = nullptr;
  unsigned* sq_array_ = nullptr;
  unsigned sq_mask_ = 0;
  unsigned sq_tail_ = 0;
  // SQEs written but not yet accepted by the kernel.
  unsigned unsubmitted_ = 0;

  unsigned* cq_khead_ = nullptr;
  unsigned* cq_ktail_ = nullptr;
  io_uring_cqe* cqes_ = nullptr;
  unsigned cq_mask_ = 0;
  unsigned cq_head_ = 0;

  std::vector<IoUnit*> staged_;
  unsigned nstaged_ = 0;
  InlineQueue done_;
};

}  // namespace vb
