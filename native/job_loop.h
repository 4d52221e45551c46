// The hot loop: prepare I/Os into free slots, hand the batch to the engine, account completions.
// Instantiated once per engine so that engine calls inline; nothing here allocates, locks or
// reads the clock per I/O (asynchronous engines read it twice per batch).
#pragma once

#include <cerrno>

#include "buffers.h"
#include "clock.h"
#include "job.h"

namespace vb {

// fio's depth buckets: 1, 2-3, 4-7, ... 32-63, >=64.
constexpr int DepthLevelBucket(unsigned depth) {
  const int b = 31 - __builtin_clz(depth | 1);
  return b < kDepthBuckets - 1 ? b : kDepthBuckets - 1;
}

// fio's submit/complete buckets: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64.
constexpr int BatchBucket(unsigned n) {
  if (n == 0) return 0;
  if (n <= 4) return 1;
  const int b = 32 - __builtin_clz(n - 1);  // ceil(log2(n))
  return b - 1 < kDepthBuckets - 1 ? b - 1 : kDepthBuckets - 1;
}

const char* IoSyscallName(EngineKind engine, uint8_t ddir);

inline bool Job::Prep(IoUnit* u) {
  u->done = 0;
  u->inline_done = false;
  u->verify_read = false;
  u->ramp = phase_ == Phase::kRamp;
  if (__builtin_expect(phase_ == Phase::kVerify, 0)) return verifier_.NextRead(u);
  if (__builtin_expect(sync_due_, 0)) {
    sync_due_ = false;
    // As fio: an fsync precedes the next write, so none follows the job's last one (end_fsync
    // is the option for that).
    if (!LastIoIssued()) {
      u->ddir = plan_.fsync_every ? kSync : kDataSync;
      u->len = 0;
      u->offset = 0;
      return true;
    }
  }
  uint8_t d;
  if (plan_.read_pct == 100) {
    d = kRead;
  } else if (plan_.trim_pct == 100) {
    d = kTrim;
  } else if (plan_.read_pct == 0) {
    d = kWrite;
  } else {
    d = rng_.Below(100) < plan_.read_pct ? kRead : kWrite;
  }
  uint32_t bs = sizes_.Pick(d, rng_);
  if (!plan_.time_based || plan_.io_bytes_per_loop) {
    // Size-based: a loop ends when its bytes are issued (time-based jobs just start over).
    // With bssplit, a size too big for the rest of the loop gives way to the largest one that
    // fits, as fio does, so that a loop transfers exactly its bytes.
    if (!sizes_.fixed(d) && loop_bytes_issued_ + bs > plan_.io_bytes_per_loop) {
      if (const uint32_t fit = sizes_.LargestWithin(d, plan_.io_bytes_per_loop - loop_bytes_issued_)) bs = fit;
    }
    if (loop_bytes_issued_ + bs > plan_.io_bytes_per_loop) {
      loops_done_++;
      if (!plan_.time_based && loops_done_ >= plan_.loops) {
        EnterPhase(Phase::kDraining);
        return false;
      }
      loop_bytes_issued_ = 0;
      offsets_.Rewind();
      if (bs > plan_.io_bytes_per_loop) {
        EnterPhase(Phase::kDraining);
        return false;
      }
    }
    // Ramp I/O counts toward size, as fio's: a size-based job moves `size` bytes in all and
    // reports what it moved after the ramp.
    loop_bytes_issued_ += bs;
  }
  u->ddir = d;
  u->len = bs;
  u->offset = offsets_.Next(d, bs, rng_);
  pacer_.CountIssued(d, bs);
  if (d == kWrite) {
    if (plan_.refill_buffers) {
      FillBuffer(u->buf, bs, plan_, rng_);
    } else if (plan_.scramble_buffers) {
      ScrambleBuffer(u->buf, bs, (write_salt_++ << 20) ^ u->offset);
    }
    if (plan_.verify_crc32c) verifier_.StampWrite(u, rng_.Next());
    const uint64_t every = plan_.fsync_every ? plan_.fsync_every : plan_.fdatasync_every;
    if (every && ++writes_since_sync_ >= every) {
      writes_since_sync_ = 0;
      sync_due_ = true;
    }
  }
  pacer_.CountThink();
  return true;
}

inline void Job::Complete(IoUnit* u, uint64_t now) {
  inflight_--;
  const int32_t res = u->res;
  const uint8_t d = u->ddir;
  if (__builtin_expect(d > kTrim, 0)) {
    if (res < 0) {
      SetError(-res, d == kDataSync ? "fdatasync" : "fsync", "");
    } else if (!u->ramp) {
      const uint64_t lat = now - u->start_ns;
      result_.sync_ios++;
      result_.sync_lat.Add(lat);
      if (Histogram* h = hists_.sync()) h->Add(lat);
    }
    units_.Free(u);
    return;
  }
  const uint32_t want = u->len - u->done;
  if (__builtin_expect(res < 0 || static_cast<uint32_t>(res) < want, 0)) {
    if (res <= 0) {
      FailIo(u, res < 0 ? -res : EIO);
      units_.Free(u);
      return;
    }
    // A short transfer: count it and send the rest again, as fio does.
    result_.dirs[d].short_ios++;
    u->done += static_cast<uint32_t>(res);
    units_.Resend(u);
    return;
  }
  if (u->ramp) {
    units_.Free(u);
    return;
  }
  DirResult& a = result_.dirs[d];
  a.ios++;
  a.bytes += u->len;
  const uint64_t clat = now - u->issue_ns;
  const uint64_t lat = now - u->start_ns;
  if (!plan_.disable_clat) {
    a.clat.Add(clat);
    if (Histogram* h = hists_.at(kClat, d)) h->Add(clat);
  }
  if (!plan_.disable_lat) {
    a.lat.Add(lat);
    if (Histogram* h = hists_.at(kLat, d)) h->Add(lat);
  }
  if (!plan_.disable_slat && !u->inline_done) {
    const uint64_t slat = u->issue_ns - u->start_ns;
    a.slat.Add(slat);
    if (Histogram* h = hists_.at(kSlat, d)) h->Add(slat);
  }
  if (__builtin_expect(verifier_.Checks(u), 0)) VerifyRead(u);
  sampler_.LogIo(u, now, clat, lat);
  units_.Free(u);
}

// Whether a new I/O may be prepared now; think time and fsync points hold new I/O back until
// everything in flight has completed.
inline bool Job::CanStartNew(uint64_t now) {
  if (Stopping()) return false;
  if (pacer_.Thinking(now, inflight_)) return false;
  if (sync_due_ && inflight_) return false;
  return !IssuingOver();
}

// A cancel stops the job once; one that stops for an error first is not marked cancelled.
inline void Job::PollCancel() {
  if (__builtin_expect(cancel_->load(std::memory_order_relaxed), 0) && !Stopping()) {
    EnterPhase(Phase::kStopping);
    result_.cancelled = true;
  }
}

template <class E>
class JobLoop {
 public:
  static void Run(Job& j, E& eng) {
    uint64_t now = NowNs();
    const unsigned depth = j.plan_.io_depth;
    const unsigned batch_submit = j.plan_.batch_submit;
    auto complete = [&j, &now](IoUnit* u) { j.Complete(u, now); };
    for (;;) {
      j.PollCancel();
      unsigned staged = 0;
      bool batch_full = false;
      while (j.inflight_ < depth) {
        IoUnit* u;
        if (j.units_.HasResend()) {
          u = j.units_.TakeResend();
          if (j.Stopping()) {
            j.units_.Free(u);
            continue;
          }
        } else if (j.pacer_.held()) {
          // A held I/O is dropped when the job stops or its runtime has ended meanwhile.
          if (j.IssuingOver()) {
            j.units_.Free(j.pacer_.Release());
            break;
          }
          if (j.pacer_.held_due() > now) break;
          u = j.pacer_.Release();
          u->start_ns = E::kInline ? NowNs() : now;
        } else {
          if (!j.CanStartNew(now)) break;
          u = j.units_.Take();
          if (!j.Prep(u)) {
            j.units_.Free(u);
            break;
          }
          if (j.pacer_.Hold(u, now)) break;
          u->start_ns = E::kInline ? NowNs() : now;
        }
        j.inflight_++;
        if constexpr (E::kInline) {
          eng.Queue(u);
          now = NowNs();
          j.PollCancel();
          // One I/O at a time: a depth of one, submitted and completed in batches of one.
          j.result_.depth_level[DepthLevelBucket(1)]++;
          j.result_.depth_submit[BatchBucket(1)]++;
          j.result_.depth_complete[BatchBucket(1)]++;
          eng.Reap(complete);
          if (now >= j.next_event_ns_) j.HandleEvents(now);
        } else {
          eng.Queue(u);
          staged++;
          if (batch_submit && staged >= batch_submit) {
            batch_full = true;
            break;
          }
        }
      }
      if constexpr (!E::kInline) {
        if (staged) {
          j.result_.depth_level[DepthLevelBucket(j.inflight_)] += staged;
          j.result_.depth_submit[BatchBucket(staged)]++;
        }
        if (j.inflight_) {
          // Wait for completions unless we stopped filling only to honour iodepth_batch_submit
          // with room left in the queue.
          unsigned min_complete = 0;
          if (!batch_full || j.inflight_ >= depth) {
            min_complete = j.plan_.batch_complete_min ? j.plan_.batch_complete_min : 1;
            if (min_complete > j.inflight_) min_complete = j.inflight_;
          }
          const uint64_t wake = j.WakeTime();
          const uint64_t timeout = wake ? (wake > now ? wake - now : 1) : 0;
          const int r = eng.Commit(min_complete, timeout);
          if (__builtin_expect(r < 0, 0)) {
            j.SetError(-r, IoSyscallName(E::kKind, 0), "submitting I/O");
            // The engine's teardown waits for or cancels whatever is still in flight.
            j.inflight_ = 0;
            break;
          }
          now = NowNs();
          const unsigned n = eng.Reap(complete);
          if (n) j.result_.depth_complete[BatchBucket(n)]++;
          if (now >= j.next_event_ns_) j.HandleEvents(now);
          continue;
        }
      }
      if (j.inflight_ == 0 && !j.units_.HasResend()) {
        // Nothing in flight and nothing was started: wait for a due time, start the verify
        // pass, or end.
        const uint64_t wake = j.WakeTime();
        if (wake && !j.Stopping()) {
          j.SleepCancellable(wake > now ? wake - now : 0);
        } else if (!j.StartVerifyIfDue()) {
          break;
        }
        now = NowNs();
        if (now >= j.next_event_ns_) j.HandleEvents(now);
      }
    }
  }
};

}  // namespace vb
