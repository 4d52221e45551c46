#include "runner.h"

#include <unistd.h>

#include <chrono>
#include <set>
#include <string>

#include "convert.h"
#include "target.h"

namespace vb {

struct Run::Message {
  std::vector<ProgressSnapshot> progress;
};

Run::Run(Registry* registry, uint32_t id, std::vector<JobPlan> plans) : registry_(registry), id_(id) {
  jobs_.reserve(plans.size());
  for (auto& p : plans) jobs_.push_back(std::make_unique<Job>(std::move(p), &cancel_));
}

Run::~Run() {
  Cancel();
  Join();
}

Napi::Promise Run::Start(Napi::Env env, Napi::Function on_progress) {
  deferred_ = std::make_unique<Napi::Promise::Deferred>(env);
  // An unbounded queue: calls from other threads never block, even while Node shuts down.
  tsfn_ = Napi::ThreadSafeFunction::New(env, on_progress, "volbench-run", 0, 1, this, Finalize,
                                        static_cast<void*>(nullptr));
  coordinator_ = std::thread([this] { Coordinate(); });
  return deferred_->Promise();
}

void Run::Join() {
  if (coordinator_.joinable()) coordinator_.join();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

void Run::LayOut() {
  // One layout per file, however many instances share it, before any of them starts.
  std::set<std::string> done;
  for (auto& job : jobs_) {
    const JobPlan& p = job->plan();
    if (p.is_block_device || p.layout_bytes == 0 || done.count(p.path)) continue;
    done.insert(p.path);
    uint64_t bytes = 0;
    bool fill = false;
    for (auto& other : jobs_) {
      if (other->plan().path != p.path) continue;
      bytes = std::max(bytes, other->plan().layout_bytes);
      fill |= other->plan().layout_fill;
      other->progress().phase.store(static_cast<int>(Phase::kLayout), std::memory_order_relaxed);
    }
    std::string what;
    const int err = LayoutFile(p.path, bytes, fill, p.fallocate, &what);
    if (err != 0) {
      for (auto& other : jobs_)
        if (other->plan().path == p.path) other->FailEarly(err, "layout", what + " " + p.path);
    }
  }
}

void Run::Coordinate() {
  LayOut();
  for (auto& job : jobs_) {
    Job* j = job.get();
    threads_.emplace_back([this, j] {
      j->Run();
      std::lock_guard<std::mutex> lock(done_mutex_);
      done_count_++;
      done_cv_.notify_all();
    });
  }
  {
    std::unique_lock<std::mutex> lock(done_mutex_);
    while (done_count_ < jobs_.size()) {
      if (done_cv_.wait_for(lock, std::chrono::seconds(1)) == std::cv_status::timeout) {
        lock.unlock();
        PostProgress();
        lock.lock();
      }
    }
  }
  for (auto& t : threads_) t.join();
  std::set<std::string> unlinked;
  for (auto& job : jobs_) {
    const JobPlan& p = job->plan();
    if (p.unlink_after && !p.is_block_device && unlinked.insert(p.path).second) unlink(p.path.c_str());
  }
  // The finalizer settles the promise once this release has drained the queue.
  tsfn_.Release();
}

void Run::PostProgress() {
  auto* msg = new Message{};
  msg->progress.reserve(jobs_.size());
  for (auto& job : jobs_) msg->progress.push_back(SnapshotProgress(*job));
  if (tsfn_.NonBlockingCall(msg, CallJs) != napi_ok) delete msg;
}

void Run::CallJs(Napi::Env env, Napi::Function fn, Message* msg) {
  std::unique_ptr<Message> owned(msg);
  if (env == nullptr) return;  // the environment is going away
  Napi::HandleScope scope(env);
  try {
    fn.Call({ProgressToJs(env, msg->progress)});
  } catch (const Napi::Error&) {
    // A throwing progress callback must not take the run down with it.
  }
}

void Run::Finalize(Napi::Env env, void*, Run* run) {
  // Every call has been delivered and the coordinator has released the function: settle the
  // promise from here, on the JS thread, then forget the run. When Node is exiting instead,
  // stop the I/O first so the join is quick.
  run->Cancel();
  run->Join();
  if (env != nullptr) run->Settle(env);
  {
    std::lock_guard<std::mutex> lock(run->registry_->mutex);
    run->registry_->runs.erase(run->id_);
  }
  delete run;
}

void Run::Settle(Napi::Env env) {
  Napi::HandleScope scope(env);
  Napi::Array results = Napi::Array::New(env, jobs_.size());
  for (size_t i = 0; i < jobs_.size(); i++) results.Set(static_cast<uint32_t>(i), JobResultToJs(env, *jobs_[i]));
  deferred_->Resolve(results);
}

}  // namespace vb
