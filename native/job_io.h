// The job's side of the hot loop: what to issue next and what a completion means. Inline, and
// included only where the loop is instantiated; nothing here allocates, locks or reads the
// clock (but for blocking engines, whose I/O is timed one by one).
#pragma once

#include <cerrno>

#include "buffers.h"
#include "clock.h"
#include "job.h"

namespace vb {

// A cancel stops the job once; one that stops for an error first is not marked cancelled.
inline void Job::PollCancel() {
  if (__builtin_expect(cancel_->load(std::memory_order_relaxed), 0) && !Stopping()) {
    EnterPhase(Phase::kStopping);
    result_.cancelled = true;
  }
  // Steady state reached (by this job or another of its group): the main phase ends as at the
  // end of its runtime.
  if (__builtin_expect(steady_.Attained(), 0) && phase_ == Phase::kRunning) EnterPhase(Phase::kDraining);
}

// In order: a short transfer's rest, the held (rate-limited) I/O once due, a new I/O. A new or
// held I/O's latency starts here: at the batch's clock reading, or at a fresh one when the
// engine performs each I/O as it is queued.
template <bool kClockPerIo>
inline bool Job::NextIo(uint64_t now, IoUnit*& u) {
  if (units_.HasResend()) {
    if (!Stopping()) {
      inflight_++;
      u = units_.TakeResend();
      return true;
    }
    // A stopping job drops what it would have sent again.
    while (units_.HasResend()) units_.Free(units_.TakeResend());
  }
  if (pacer_.held()) {
    // A held I/O is dropped when the job stops or its runtime has ended meanwhile.
    if (IssuingOver()) {
      units_.Free(pacer_.Release());
      return false;
    }
    if (pacer_.held_due() > now) return false;
    u = pacer_.Release();
  } else {
    if (!CanStartNew(now)) return false;
    u = units_.Take();
    if (!Prep(u, now)) {
      units_.Free(u);
      return false;
    }
    if (pacer_.Hold(u, now)) return false;
  }
  u->start_ns = kClockPerIo ? NowNs() : now;
  inflight_++;
  return true;
}

// Whether a new I/O may be prepared now; think time and fsync points hold new I/O back until
// everything in flight has completed.
inline bool Job::CanStartNew(uint64_t now) {
  if (Stopping()) return false;
  if (pacer_.Thinking(now, inflight_)) return false;
  if (sync_due_ && inflight_) return false;
  return !IssuingOver();
}

inline bool Job::Prep(IoUnit* u, uint64_t now) {
  u->done = 0;
  u->inline_done = false;
  u->phase = phase_;
  if (__builtin_expect(phase_ == Phase::kVerify, 0)) return verifier_.NextRead(u);
  if (__builtin_expect(sync_due_, 0)) {
    sync_due_ = false;
    // As fio: an fsync precedes the next write, so none follows the job's last one (end_fsync
    // is the option for that).
    if (!LastIoIssued()) {
      u->ddir = plan_.fsync_every ? kSync : kDataSync;
      u->len = 0;
      u->offset = 0;
      // fio syncs the file its service comes to next.
      if (several_files_) {
        const int f = files_.Pick();
        u->file = static_cast<uint16_t>(f < 0 ? 0 : f);
      }
      return true;
    }
  }
  // As fio: the loop's bytes first, then the direction, the offset, and the size.
  uint8_t d;
  uint64_t offset;
  uint32_t len;
  if (__builtin_expect(several_files_, 0)) {
    if (!PrepInFiles(u, now, &d, &offset, &len)) return false;
  } else {
    for (;;) {
      if (!LoopHasRoom()) return false;
      d = NextDir(now);
      if (__builtin_expect(offsets_.Next(d, sizes_, rng_, &offset, &len), 1)) break;
      if (!PassOver()) return false;
    }
  }
  loop_bytes_issued_ += len;
  u->offset = offset;
  u->ddir = d;
  u->len = len;
  pacer_.CountIssued(d, len);
  if (d == kWrite) PrepWrite(u, now);
  pacer_.CountThink();
  return true;
}

[[gnu::noinline]] inline bool Job::PrepInFiles(IoUnit* u, uint64_t now, uint8_t* d, uint64_t* offset, uint32_t* len) {
  for (;;) {
    if (!LoopHasRoom()) return false;
    const int f = files_.Pick();
    if (f < 0) {
      if (!PassOver()) return false;
      continue;
    }
    *d = NextDir(now);
    OffsetGen& gen = OffsetsOf(f);
    // The file draws from the job's one set of generators, as fio's files do.
    gen.draws() = files_.draws();
    const bool got = gen.Next(*d, sizes_, rng_, offset, len);
    files_.draws() = gen.draws();
    if (got) {
      u->file = static_cast<uint16_t>(f);
      return true;
    }
    files_.MarkDone(f);
  }
}

// fio's rwmix: a direction is drawn (from fio's own generator) while the one in use has caught
// up with its share of the other's I/Os, and kept until it has; a rate may then switch it.
inline uint8_t Job::NextDir(uint64_t now) {
  if (__builtin_expect(one_dir_ != kMixedDirs, 1)) return one_dir_;
  if (pacer_.issued(rwmix_dir_) >= rwmix_issues_) {
    const uint8_t d = rwmix_rand_.Percent() <= plan_.read_pct ? kRead : kWrite;
    if (d != rwmix_dir_) rwmix_issues_ = pacer_.issued(rwmix_dir_) * (d == kRead ? plan_.read_pct : 100 - plan_.read_pct) / 100;
    rwmix_dir_ = d;
  }
  rwmix_dir_ = pacer_.RateDir(rwmix_dir_, now, true);
  return rwmix_dir_;
}

// Size-based: a loop ends when its bytes are issued (time-based jobs just start over), and the
// main phase when its loops are. Ramp I/O counts toward size, as fio's: a size-based job moves
// `size` bytes in all and reports what it moved after the ramp. Like fio, a job of one block
// size issues whole blocks within the loop's bytes, and one that draws its sizes (or has a
// size per direction) issues while the loop has bytes left, its last I/O whole. False when the
// main phase ends here.
inline bool Job::LoopHasRoom() {
  if (__builtin_expect(static_cast<int64_t>(loop_bytes_issued_) <= loop_last_start_, 1)) return true;
  return NextLoop() && loop_last_start_ >= 0;
}

// A write's buffer is made unique (refill or scramble) and stamped for verify; every fsync
// interval of writes makes a sync due.
inline void Job::PrepWrite(IoUnit* u, uint64_t now) {
  if (plan_.refill_buffers) {
    FillBuffer(u->buf, u->len, plan_, buf_rng_);
  } else if (plan_.scramble_buffers) {
    ScrambleBuffer(u->buf, u->len, (write_salt_++ << 20) ^ u->offset);
  }
  if (plan_.verify) verifier_.StampWrite(u, buf_rng_.Next(), now, pacer_.issued(kWrite) - 1);
  const uint64_t every = plan_.fsync_every ? plan_.fsync_every : plan_.fdatasync_every;
  if (every && ++writes_since_sync_ >= every) {
    writes_since_sync_ = 0;
    sync_due_ = true;
  }
}

inline void Job::Complete(IoUnit* u, uint64_t now) {
  inflight_--;
  const int32_t res = u->res;
  const uint8_t d = u->ddir;
  if (__builtin_expect(d > kTrim, 0)) {
    CompleteSync(u, now);
    return;
  }
  const uint32_t want = u->len - u->done;
  if (__builtin_expect(res < 0 || static_cast<uint32_t>(res) < want, 0)) {
    if (res <= 0) {
      if (u->phase != Phase::kRamp) result_.dirs[d].failed_ios++;
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
  // Ramp I/O completes uncounted.
  if (u->phase != Phase::kRamp) Account(u, now);
  units_.Free(u);
}

inline void Job::CompleteSync(IoUnit* u, uint64_t now) {
  if (u->res < 0) {
    SetError(-u->res, u->ddir == kDataSync ? "fdatasync" : "fsync", "");
  } else if (u->phase != Phase::kRamp) {
    const uint64_t lat = now - u->start_ns;
    result_.sync_ios++;
    result_.sync_lat.Add(lat);
    if (Histogram* h = hists_.sync()) h->Add(lat);
  }
  units_.Free(u);
}

// A measured I/O's bytes and latencies, its verify check, and its log lines.
inline void Job::Account(const IoUnit* u, uint64_t now) {
  const uint8_t d = u->ddir;
  DirResult& a = result_.dirs[d];
  a.ios++;
  a.bytes += u->len;
  const uint64_t clat = now - u->issue_ns;
  const uint64_t lat = now - u->start_ns;
  // fio's defaults: every latency summed, clat's histogram alone.
  if (__builtin_expect(default_measures_, 1)) {
    a.clat.Add(clat);
    hists_.at(kClat, d)->Add(clat);
    a.lat.Add(lat);
    if (!u->inline_done) a.slat.Add(u->issue_ns - u->start_ns);
  } else {
    AccountAsAsked(u, a, clat, lat);
  }
  if (__builtin_expect(plan_.verify, 0) && verifier_.Checks(u)) VerifyRead(u);
  sampler_.LogIo(u, now, clat, lat);
}

// The latencies a job asked for otherwise (a kind disabled, a histogram of slat or lat).
inline void Job::AccountAsAsked(const IoUnit* u, DirResult& a, uint64_t clat, uint64_t lat) {
  const uint8_t d = u->ddir;
  if (!plan_.disable_clat) {
    a.clat.Add(clat);
    if (Histogram* h = hists_.at(kClat, d)) h->Add(clat);
  }
  if (!plan_.disable_lat) {
    a.lat.Add(lat);
    if (Histogram* h = hists_.at(kLat, d)) h->Add(lat);
    // As fio: the total latency, of the main phase's I/O, when it is measured.
    if (lat_target_.on() && u->phase == Phase::kRunning) LatencyCompleted(u, lat);
  }
  if (!plan_.disable_slat && !u->inline_done) {
    const uint64_t slat = u->issue_ns - u->start_ns;
    a.slat.Add(slat);
    if (Histogram* h = hists_.at(kSlat, d)) h->Add(slat);
  }
}

}  // namespace vb
