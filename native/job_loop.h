// The hot loop: take the job's next I/Os, hand them to the engine (one per submission by default,
// as fio), and give each completion back to the job. Instantiated once per engine so that engine
// calls inline; nothing here allocates or locks, and an asynchronous engine's I/O costs one clock
// read (its issue stamp) plus one per wait.
#pragma once

#include "clock.h"
#include "engines/engine.h"
#include "job.h"
#include "job_io.h"

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

template <class E>
class JobLoop {
  // Engines whose Queue() performs the I/O on a device (the null engine touches none).
  static constexpr bool kQueueMayBlock = E::kInline && E::kOps.needs_target;

 public:
  static void Run(Job& j, E& eng) {
    uint64_t now = NowNs();
    const unsigned batch_submit = j.plan().batch_submit;
    // fio counts I/Os into iodepth_level where it commits a full batch (td_io_commit), each at
    // the depth of that moment; a commit made to wait for completions counts none, and its I/Os
    // go with the next full batch. So with iodepth_batch_submit the depths spread as fio's do.
    // The batch is the option's, as fio's, whatever depth a latency target allows.
    const unsigned depth = j.plan().io_depth;
    const unsigned mark_at = batch_submit && batch_submit < depth ? batch_submit : depth;
    unsigned unmarked = 0;
    JobResult& r = j.result();
    auto complete = [&j, &now](IoUnit* u) { j.Complete(u, now); };
    for (;;) {
      j.PollCancel();
      unsigned staged = 0;
      bool batch_full = false;
      while (!j.QueueFull()) {
        IoUnit* u;
        if (!j.NextIo<E::kInline>(now, u)) break;
        // A sync engine's I/O happens here, and may never return.
        if constexpr (kQueueMayBlock) j.EnterBlocking(now);
        eng.Queue(u);
        if constexpr (kQueueMayBlock) {
          if (__builtin_expect(!j.LeaveBlocking(now, false), 0)) return;
        }
        if constexpr (E::kInline) {
          now = NowNs();
          j.PollCancel();
          // One I/O at a time: a depth of one, submitted and completed in batches of one.
          r.depth_level[DepthLevelBucket(1)]++;
          r.depth_submit[BatchBucket(1)]++;
          r.depth_complete[BatchBucket(1)]++;
          eng.Reap(complete);
          j.Tick(now);
        } else {
          staged++;
          if (batch_submit && staged >= batch_submit) {
            batch_full = true;
            break;
          }
        }
      }
      if constexpr (!E::kInline) {
        if (staged) {
          r.depth_submit[BatchBucket(staged)]++;
          // Batches of one (the default): each I/O counts at the depth it made.
          if (__builtin_expect(mark_at == 1, 1)) r.depth_level[DepthLevelBucket(j.inflight())] += staged;
          else MarkDepths(r, j.inflight() - staged, staged, mark_at, &unmarked);
        }
        if (j.inflight()) {
          const unsigned min_complete = MinComplete(j, batch_full);
          const int err = Commit(j, eng, now, min_complete);
          if (__builtin_expect(err == kAbandonedCall, 0)) return;
          if (__builtin_expect(err < 0, 0)) break;
          // Submitted without waiting: the issue stamp, taken as the submission returned, is the
          // time (one clock read per I/O rather than two).
          const uint64_t issued = min_complete == 0 ? eng.IssuedAt() : 0;
          now = issued ? issued : NowNs();
          // As fio: completions are handled once the queue is full or nothing else can go out,
          // not between submissions with room left, so an I/O's clat runs until then.
          if (min_complete) {
            const unsigned n = eng.Reap(complete);
            if (n) r.depth_complete[BatchBucket(n)]++;
          }
          j.Tick(now);
          continue;
        }
      }
      if (j.Idle()) {
        if (!j.AwaitNext(now)) break;
        now = NowNs();
        j.Tick(now);
      }
    }
  }

 private:
  // The depth rose by one with each of the `staged` I/Os from `base`: each full batch of
  // `mark_at` counts at the depth where it filled, as fio's td_io_commit counts it; `unmarked`
  // carries the I/Os of a batch not yet full.
  [[gnu::noinline]] static void MarkDepths(JobResult& r, unsigned base, unsigned staged, unsigned mark_at, unsigned* unmarked) {
    unsigned k = mark_at - *unmarked;
    for (; k <= staged; k += mark_at) r.depth_level[DepthLevelBucket(base + k)] += mark_at;
    *unmarked = staged - (k - mark_at);
  }

  // Completions to wait for: none when filling stopped only to honour iodepth_batch_submit with
  // room left in the queue, else iodepth_batch_complete_min (at least one, at most all).
  static unsigned MinComplete(const Job& j, bool batch_full) {
    if (batch_full && j.inflight() < j.depth_limit()) return 0;
    const unsigned min = j.plan().batch_complete_min ? j.plan().batch_complete_min : 1;
    return min < j.inflight() ? min : j.inflight();
  }

  // What Commit() returns when the run gave up on the job inside the engine's call.
  static constexpr int kAbandonedCall = INT32_MIN;

  // Submits what is staged and waits, no longer than the job's next due time; the engine's
  // result, after failing the job when it is an error (named by the call that submits reads).
  // The engine's call alone is bracketed as one that may never return (the null engine touches
  // no device, and cannot block): nothing of the job's is touched between the brackets, as the
  // run may be finishing the job's result meanwhile.
  static int Commit(Job& j, E& eng, uint64_t now, unsigned min_complete) {
    // Only a wait needs its end; the null engine never waits.
    uint64_t timeout = 0;
    if constexpr (E::kOps.needs_target) {
      const uint64_t wake = min_complete ? j.WakeTime() : 0;
      timeout = wake ? (wake > now ? wake - now : 1) : 0;
    }
    if constexpr (E::kOps.needs_target) j.EnterBlocking(now);
    const int r = eng.Commit(min_complete, timeout);
    if constexpr (E::kOps.needs_target) {
      if (__builtin_expect(!j.LeaveBlocking(now, r < 0), 0)) return kAbandonedCall;
    }
    if (__builtin_expect(r < 0, 0)) j.FailSubmit(-r, IoSyscallName(E::kOps, kRead));
    return r;
  }
};

// `options` is the E::Options the registry read for E (EngineEntry::read_options).
template <class E>
bool Job::RunWith(const void* options, int* setup_err) {
  E engine;
  const int r = engine.Setup(SetupFor(), *static_cast<const typename E::Options*>(options));
  if (r < 0) {
    *setup_err = -r;
    return false;
  }
  result_.engine = &E::kOps;
  const EngineFacts facts = engine.Facts();
  result_.registered_buffers = facts.registered_buffers;
  result_.registered_files = facts.registered_files;
  Start();
  if (!Stopping()) JobLoop<E>::Run(*this, engine);
  if (stall_.Abandoned()) {
    DrainAbandoned(engine);
  } else {
    Finish(0);
  }
  engine.Teardown();
  return true;
}

template <class E>
void Job::DrainAbandoned([[maybe_unused]] E& eng) {
  // A sync engine's one I/O has returned. An asynchronous engine's others may still be in the
  // kernel, writing into buffers this job owns: wait for each (however long the device takes)
  // before they can go. Local count: the run reads the job's state, this thread no longer
  // writes it. When that cannot be known (the abandoned call or a wait failed), the buffers
  // are never freed: a leak, rather than the kernel writing into memory reused meanwhile.
  if constexpr (!E::kInline) {
    bool drained = !stall_.call_failed();
    for (unsigned left = inflight_; drained && left;) {
      drained = eng.Commit(1, 0) >= 0;
      const unsigned n = drained ? eng.Reap([](IoUnit*) {}) : 0;
      left = n < left ? left - n : 0;
    }
    if (!drained) units_.Abandon();
  }
}

}  // namespace vb
