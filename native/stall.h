// A job's stall: its thread inside a call that a stalled device may never answer (a sync engine's
// I/O, an asynchronous engine's submission or wait), and the run giving up on it. The whole
// life, in four operations between five states:
//
//   running --Enter--> blocked(since) --Leave: true--> running        the usual way
//                          |
//                       Abandon        the run's thread, once the run is cancelled or the job's
//                          |           runtime is well over: finishes the job's result from what
//                          v           it had done, takes a copy of the device's claim, and joins
//                      abandoned       the process's stuck tally (stuck_tally.h)
//                          |
//                      Leave: false    the call returned at last: the job's thread enters the
//                          v           stopping phase (Job::LeaveBlocking, through EnterPhase),
//                      returned        waits for its other I/Os and tears down, never touching
//                          |           the result again
//                         End          the thread's last act: closes the claim, leaves the tally
//                          v
//                        ended
//
// Who owns what: between Enter and Leave the job's thread touches nothing of the job, so the
// run's thread may finish the result. Abandon does that under the stall's lock, and a Leave that
// finds the job abandoned takes the lock once, so the thread goes on only after the result is
// final. Nobody waits on a timer, and the job's phase is only ever set by its own thread.
//
// The hot path is Enter (one store) and Leave (one compare-and-swap on the value Enter stored).
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "stuck_tally.h"

namespace vb {

class Stall {
 public:
  enum class State : uint8_t { kRunning, kBlocked, kAbandoned, kReturned, kEnded };

  Stall() = default;
  Stall(const Stall&) = delete;
  Stall& operator=(const Stall&) = delete;

  // The job's thread, before a call that may not return; `now` (never 0) is when it began.
  void Enter(uint64_t now) { word_.store(now, std::memory_order_release); }

  // The job's thread, once the call that began at `now` returned (`failed`: with an error, so
  // what it left in flight is unknown). True: the job goes on. False: the run gave up on it
  // meanwhile; its result is final and no longer this thread's.
  bool Leave(uint64_t now, bool failed) {
    uint64_t expected = now;
    if (__builtin_expect(word_.compare_exchange_strong(expected, 0, std::memory_order_acq_rel, std::memory_order_acquire), 1))
      return true;
    return Returned(failed);
  }

  // The run's thread: gives up on the job when it is still inside the call that began at
  // `since` and the tally has room for `bound` (the most the job may hold: its threads are
  // reserved before the job is given up on, so the tally never passes its limit). `finish` then
  // closes the job's result, the job's thread being parked, and says what it actually holds
  // (its `ios` and `threads`); the stall keeps `claim_fd` (-1: none) open until the thread
  // ends. False, having done nothing, when the call returned meanwhile or the process holds as
  // many stuck threads as it may.
  template <class Finish>
  bool Abandon(uint64_t since, const StuckEntry& bound, int claim_fd, Finish&& finish) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (since == 0 || state_ != State::kRunning) return false;
    entry_ = bound;
    if (!stuck_tally::Add(&entry_)) return false;
    uint64_t expected = since;
    if (!word_.compare_exchange_strong(expected, kAbandoned, std::memory_order_acq_rel)) {
      stuck_tally::Remove(&entry_);
      return false;
    }
    state_ = State::kAbandoned;
    claim_fd_ = claim_fd;
    StuckEntry held = bound;
    finish(held);
    stuck_tally::Settle(&entry_, held.ios, held.threads);
    return true;
  }

  // The job's thread, last, after an abandoned call returned: nothing it holds stays stuck.
  void End() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (state_ != State::kReturned) return;
    if (claim_fd_ >= 0) close(claim_fd_);
    claim_fd_ = -1;
    stuck_tally::Remove(&entry_);
    state_ = State::kEnded;
  }

  // When the call the thread is inside began; 0 when it is in none (or was given up on).
  uint64_t Since() const {
    const uint64_t w = word_.load(std::memory_order_acquire);
    return w == kAbandoned ? 0 : w;
  }
  // The run gave up on the job (it is abandoned, returned or ended).
  bool Abandoned() const { return word_.load(std::memory_order_acquire) == kAbandoned; }
  // The job's thread, once Leave returned false: the abandoned call had failed.
  bool call_failed() const { return call_failed_; }

 private:
  // Leave's rare way: waits for Abandon to be done with the result.
  bool Returned(bool failed) {
    std::lock_guard<std::mutex> lock(mutex_);
    state_ = State::kReturned;
    call_failed_ = failed;
    return false;
  }

  static constexpr uint64_t kAbandoned = UINT64_MAX;
  // 0: running; a time: blocked since then; kAbandoned: given up on (for good).
  std::atomic<uint64_t> word_{0};
  // Guards the rest; taken only by Abandon and by the thread after an abandoned call.
  std::mutex mutex_;
  State state_ = State::kRunning;
  StuckEntry entry_;
  int claim_fd_ = -1;
  bool call_failed_ = false;
};

}  // namespace vb
