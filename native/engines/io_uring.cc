#include "io_uring.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <csignal>

#ifndef IORING_SETUP_NO_SQARRAY
#define IORING_SETUP_NO_SQARRAY (1U << 16)
#endif

namespace vb {
namespace {

int SysSetup(unsigned entries, io_uring_params* p) {
  return static_cast<int>(syscall(__NR_io_uring_setup, entries, p));
}

int SysRegister(int fd, unsigned op, const void* arg, unsigned nr) {
  return static_cast<int>(syscall(__NR_io_uring_register, fd, op, arg, nr));
}

unsigned RoundUpPow2(unsigned v) {
  unsigned p = 1;
  while (p < v) p <<= 1;
  return p;
}

// Sets the ring up with `flags`, dropping the optional ones (in the order given) that this
// kernel refuses with EINVAL, as fio's engine does.
int SetupWithFallback(unsigned entries, unsigned flags, io_uring_params* out) {
  static const unsigned kOptional[] = {
      IORING_SETUP_NO_SQARRAY,    IORING_SETUP_DEFER_TASKRUN, IORING_SETUP_SINGLE_ISSUER,
      IORING_SETUP_TASKRUN_FLAG,  IORING_SETUP_COOP_TASKRUN,  IORING_SETUP_SUBMIT_ALL,
  };
  for (size_t drop = 0;; drop++) {
    std::memset(out, 0, sizeof(*out));
    out->flags = flags;
    const int fd = SysSetup(entries, out);
    if (fd >= 0) return fd;
    const int err = errno;
    if (err != EINVAL) return -err;
    // DEFER_TASKRUN needs SINGLE_ISSUER, so they go in that order.
    while (drop < sizeof(kOptional) / sizeof(kOptional[0]) && !(flags & kOptional[drop])) drop++;
    if (drop >= sizeof(kOptional) / sizeof(kOptional[0])) return -EINVAL;
    flags &= ~kOptional[drop];
  }
}

}  // namespace

bool IoUringEngine::Probe() {
  io_uring_params p;
  std::memset(&p, 0, sizeof(p));
  const int fd = SysSetup(1, &p);
  if (fd < 0) return false;
  close(fd);
  return true;
}

namespace {

// The ring's setup flags for the engine's options: a polling kernel thread (sqthread_poll) runs
// task work itself, so the cooperative and deferred task-run modes go with it.
unsigned SetupFlags(const IoUringOptions& o) {
  unsigned flags = IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG |
                   IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_NO_SQARRAY;
  if (o.sq_thread_poll) {
    flags |= IORING_SETUP_SQPOLL;
    flags &= ~(IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG);
  } else {
    flags |= IORING_SETUP_DEFER_TASKRUN;
  }
  if (o.hipri) flags |= IORING_SETUP_IOPOLL;
  return flags;
}

// One of the ring's regions mapped (populated), or null with errno set.
void* MapRegion(int ring, size_t bytes, off_t region) {
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, region);
  return m == MAP_FAILED ? nullptr : m;
}

}  // namespace

int IoUringEngine::Setup(const EngineSetup& s, const Options& o) {
  fds_ = s.fds;
  file_count_ = s.file_count;
  io_uring_params p;
  const int ring = SetupWithFallback(RoundUpPow2(s.depth), SetupFlags(o), &p);
  if (ring < 0) return ring;
  ring_fd_ = ring;
  enter_fd_ = ring;
  setup_flags_ = p.flags;
  ext_arg_ = p.features & IORING_FEAT_EXT_ARG;
  const int mapped = MapRings(p);
  if (mapped < 0) {
    Teardown();
    return mapped;
  }
  Register(s, o);
  staged_.assign(s.unit_count, nullptr);
  nstaged_ = 0;
  reap_max_ = s.reap_max ? s.reap_max : 1;
  unsubmitted_ = 0;
  done_.Init(s.unit_count);
  return 0;
}

int IoUringEngine::MapRings(const io_uring_params& p) {
  sq_ring_bytes_ = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  if (p.flags & IORING_SETUP_NO_SQARRAY) sq_ring_bytes_ = p.sq_off.array;
  cq_ring_bytes_ = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
  const bool single_mmap = p.features & IORING_FEAT_SINGLE_MMAP;
  if (single_mmap) sq_ring_bytes_ = cq_ring_bytes_ = std::max(sq_ring_bytes_, cq_ring_bytes_);

  sq_ring_ = MapRegion(ring_fd_, sq_ring_bytes_, IORING_OFF_SQ_RING);
  if (!sq_ring_) return -errno;
  cq_ring_ = single_mmap ? sq_ring_ : MapRegion(ring_fd_, cq_ring_bytes_, IORING_OFF_CQ_RING);
  if (!cq_ring_) return -errno;
  sqes_bytes_ = p.sq_entries * sizeof(io_uring_sqe);
  sqes_ = static_cast<io_uring_sqe*>(MapRegion(ring_fd_, sqes_bytes_, IORING_OFF_SQES));
  if (!sqes_) return -errno;

  char* sq = static_cast<char*>(sq_ring_);
  sq_ktail_ = reinterpret_cast<unsigned*>(sq + p.sq_off.tail);
  sq_kflags_ = reinterpret_cast<unsigned*>(sq + p.sq_off.flags);
  sq_mask_ = *reinterpret_cast<unsigned*>(sq + p.sq_off.ring_mask);
  sq_tail_ = *sq_ktail_;
  sq_array_ = (p.flags & IORING_SETUP_NO_SQARRAY) ? nullptr : reinterpret_cast<unsigned*>(sq + p.sq_off.array);

  char* cq = static_cast<char*>(cq_ring_);
  cq_khead_ = reinterpret_cast<unsigned*>(cq + p.cq_off.head);
  cq_ktail_ = reinterpret_cast<unsigned*>(cq + p.cq_off.tail);
  cq_mask_ = *reinterpret_cast<unsigned*>(cq + p.cq_off.ring_mask);
  cqes_ = reinterpret_cast<io_uring_cqe*>(cq + p.cq_off.cqes);
  cq_head_ = *cq_khead_;
  return 0;
}

void IoUringEngine::Register(const EngineSetup& s, const Options& o) {
  // Registered buffers and file save the kernel a page-pinning and an fd lookup per I/O. Both are
  // optimisations: when the kernel refuses (memlock limit), the I/O path works without them.
  if (o.fixed_bufs && s.buffers != nullptr) {
    iovec iov{s.buffers, static_cast<size_t>(s.buffer_bytes)};
    fixed_bufs_ = SysRegister(ring_fd_, IORING_REGISTER_BUFFERS, &iov, 1) == 0;
  }
  if (o.register_files) {
    fixed_file_ = SysRegister(ring_fd_, IORING_REGISTER_FILES, fds_, file_count_) == 0;
  }
  io_uring_rsrc_update reg{};
  reg.offset = static_cast<unsigned>(-1);
  reg.data = static_cast<uint64_t>(ring_fd_);
  if (SysRegister(ring_fd_, IORING_REGISTER_RING_FDS, &reg, 1) == 1) {
    enter_fd_ = static_cast<int>(reg.offset);
    enter_flags_ = IORING_ENTER_REGISTERED_RING;
  }
}

void IoUringEngine::Teardown() {
  // The kernel frees a closed ring later, from a work queue; until then a registered file stays
  // open (a deleted file keeps its space, a block device stays busy).
  // Unregistering drops those references now, before the run reports that it has ended.
  if (ring_fd_ >= 0) {
    if (fixed_file_) SysRegister(ring_fd_, IORING_UNREGISTER_FILES, nullptr, 0);
    if (fixed_bufs_) SysRegister(ring_fd_, IORING_UNREGISTER_BUFFERS, nullptr, 0);
    fixed_file_ = fixed_bufs_ = false;
    // The registered ring fd holds the ring for as long as this thread lives: drop it too.
    if (enter_fd_ >= 0 && enter_fd_ != ring_fd_) {
      io_uring_rsrc_update reg{};
      reg.offset = static_cast<unsigned>(enter_fd_);
      SysRegister(ring_fd_, IORING_UNREGISTER_RING_FDS, &reg, 1);
    }
  }
  if (sqes_) munmap(sqes_, sqes_bytes_);
  if (cq_ring_ && cq_ring_ != sq_ring_) munmap(cq_ring_, cq_ring_bytes_);
  if (sq_ring_) munmap(sq_ring_, sq_ring_bytes_);
  sqes_ = nullptr;
  cq_ring_ = sq_ring_ = nullptr;
  if (ring_fd_ >= 0) close(ring_fd_);
  ring_fd_ = enter_fd_ = -1;
  enter_flags_ = 0;
}

int IoUringEngine::Submit() {
  // GETEVENTS with nothing to wait for, as fio submits: under DEFER_TASKRUN the kernel posts
  // the completions it has deferred (an I/O finished by an io-wq worker, say) only inside an
  // io_uring_enter that asks for events. Submitted without it, those completions stayed
  // unposted, the CQ read empty, and the loop made a second call just to wait for them: 1.05
  // calls per I/O on a tmpfs file where fio makes 1.00.
  while (unsubmitted_ && !(setup_flags_ & IORING_SETUP_SQPOLL)) {
    const int r = Enter(unsubmitted_, 0, IORING_ENTER_GETEVENTS, 0);
    if (r >= 0) {
      unsubmitted_ -= static_cast<unsigned>(r) < unsubmitted_ ? static_cast<unsigned>(r) : unsubmitted_;
      if (r == 0) break;
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EBUSY) break;
    return -errno;
  }
  return 0;
}

int IoUringEngine::Enter(unsigned to_submit, unsigned min_complete, unsigned flags, uint64_t timeout_ns) {
  flags |= enter_flags_;
  // Without EXT_ARG the wait ends at the next completion instead: a held (rate-limited) I/O then
  // goes out a little late, never not at all, as something is in flight whenever this waits.
  if (timeout_ns == 0 || min_complete == 0 || !ext_arg_) {
    return static_cast<int>(
        syscall(__NR_io_uring_enter, enter_fd_, to_submit, min_complete, flags, nullptr, 0));
  }
  __kernel_timespec ts;
  ts.tv_sec = static_cast<long long>(timeout_ns / 1000000000ull);
  ts.tv_nsec = static_cast<long long>(timeout_ns % 1000000000ull);
  io_uring_getevents_arg arg{};
  arg.sigmask_sz = _NSIG / 8;
  arg.ts = reinterpret_cast<uint64_t>(&ts);
  return static_cast<int>(syscall(__NR_io_uring_enter, enter_fd_, to_submit, min_complete,
                                  flags | IORING_ENTER_EXT_ARG, &arg, sizeof(arg)));
}

int IoUringEngine::Commit(unsigned min_complete, uint64_t timeout_ns) {
  const unsigned staged = nstaged_;
  if (staged) {
    reinterpret_cast<std::atomic<unsigned>*>(sq_ktail_)->store(sq_tail_, std::memory_order_release);
    unsubmitted_ += staged;
    nstaged_ = 0;
    // Submit, stamp, then wait, as fio does: clat starts after the submission returned and
    // excludes the kernel's submission path, which slat holds. (One io_uring_enter could submit
    // and wait, but would leave no moment between "submitted" and "completing" to stamp: slat
    // would read ~0 and clat would carry the submission of the whole batch.)
    const int r = Submit();
    const uint64_t t = NowNs();
    for (unsigned i = 0; i < staged; i++) staged_[i]->issue_ns = t;
    issued_ns_ = t;
    if (r < 0) return r;
  } else {
    issued_ns_ = 0;
  }
  // Trims completed inline count: waiting for them in the kernel would never return.
  if (min_complete && CqReady() + done_.Size() >= min_complete) min_complete = 0;
  unsigned flags = min_complete ? IORING_ENTER_GETEVENTS : 0;
  unsigned to_submit = unsubmitted_;
  if (setup_flags_ & IORING_SETUP_SQPOLL) {
    // The kernel's poll thread picks SQEs up; enter only to wake it or to wait. The full fence
    // orders the tail store above before the flags load: otherwise this thread could miss
    // NEED_WAKEUP while the sleeping poll thread misses the new tail, and the I/O would sit.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (to_submit && (reinterpret_cast<std::atomic<unsigned>*>(sq_kflags_)->load(std::memory_order_acquire) &
                      IORING_SQ_NEED_WAKEUP))
      flags |= IORING_ENTER_SQ_WAKEUP;
    unsubmitted_ = 0;
    if (!(flags & (IORING_ENTER_SQ_WAKEUP | IORING_ENTER_GETEVENTS))) return static_cast<int>(staged);
  } else if (to_submit == 0 && min_complete == 0) {
    // With DEFER_TASKRUN completions are only posted from io_uring_enter; ask for what is ready,
    // unless the submission just made did (it asked for events).
    if (!(setup_flags_ & IORING_SETUP_DEFER_TASKRUN) || CqReady() > 0 || staged) return 0;
    flags = IORING_ENTER_GETEVENTS;
  }
  for (;;) {
    const int r = Enter(to_submit, min_complete, flags, timeout_ns);
    if (r >= 0) {
      if (!(setup_flags_ & IORING_SETUP_SQPOLL)) unsubmitted_ -= static_cast<unsigned>(r) < to_submit ? r : to_submit;
      return r;
    }
    const int err = errno;
    if (err == EINTR) continue;
    // Timeout, or the CQ is full: the caller reaps and comes back.
    if (err == ETIME || err == EAGAIN || err == EBUSY) return 0;
    return -err;
  }
}

}  // namespace vb
