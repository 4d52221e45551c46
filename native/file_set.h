// The files of a job: each opened, with its own region and offsets, and which of them the next
// I/O goes to, as fio's file service picks it (io_u.c __get_next_file): round robin (by turns
// of `nr` I/Os), random (a file drawn from fio's generator for each turn) or sequential (one file
// until it is done). A file is done when its region has no block left for the pass; the pass is
// over when every file is. A job of one file never asks: its I/Os all go to file 0.
#pragma once

#include <cstdint>
#include <vector>

#include "fio_rand.h"
#include "offsets.h"
#include "plan.h"

namespace vb {

struct JobFile {
  FileTarget target;
  int fd = -1;
  // The regular file opened (0: none, or a device): what unlink may remove.
  uint64_t dev = 0, ino = 0;
  OffsetGen offsets;
  bool done = false;
};

class FileSet {
 public:
  // The plan's files, none opened yet.
  void Init(const JobPlan& plan) {
    files_.resize(plan.FileCount());
    for (size_t i = 0; i < files_.size(); i++) files_[i].target = plan.File(i);
    fds_.assign(files_.size(), -1);
    service_ = plan.file_service;
    nr_ = plan.file_service_nr ? plan.file_service_nr : 1;
    seed_ = plan.fio_seed_file;
    rand_.Seed(seed_);
    block_seed_ = plan.fio_seed_block;
    zone_seed_ = plan.fio_seed_zone;
    seq_rand_seed_ = plan.fio_seed_seq_rand;
    draws_.Seed(block_seed_, zone_seed_, seq_rand_seed_);
  }

  // fio's one set of offset draws for all the job's files (its td->random_state, zone_state and
  // seq_rand_state): blocks, zones and percentage_random's choices.
  OffsetDraws& draws() { return draws_; }

  size_t size() const { return files_.size(); }
  bool several() const { return files_.size() > 1; }
  JobFile& operator[](size_t i) { return files_[i]; }
  const JobFile& operator[](size_t i) const { return files_[i]; }
  std::vector<JobFile>& all() { return files_; }
  // The descriptors in file order, as the engines take them.
  const int* fds() const { return fds_.data(); }
  void SetFd(size_t i, int fd) { files_[i].fd = fds_[i] = fd; }

  // The file of the next I/O, or -1 when every file is done for this pass.
  int Pick() {
    if (done_count_ >= files_.size()) return -1;
    if (current_ >= 0 && !files_[current_].done) {
      if (service_ == FileService::kSequential) return current_;
      if (left_) {
        left_--;
        return current_;
      }
    }
    current_ = service_ == FileService::kRandom ? PickRandom() : PickNext();
    left_ = nr_ - 1;
    return current_;
  }

  // File `i` had no block left for an I/O: done until the next pass.
  void MarkDone(int i) {
    if (files_[i].done) return;
    files_[i].done = true;
    done_count_++;
  }

  // A new pass (a loop, or fio's restart of a time-based or io_size job): every file takes
  // I/O again. The round robin goes on from where it was, as fio's; `reseed` starts the random
  // choice over (randrepeat).
  void NewPass(bool reseed) {
    for (JobFile& f : files_) f.done = false;
    done_count_ = 0;
    current_ = -1;
    left_ = 0;
    if (reseed) {
      rand_.Seed(seed_);
      draws_.Seed(block_seed_, zone_seed_, seq_rand_seed_);
    }
  }

 private:
  // The next file in turn that is not done (fio's get_next_file_rr).
  int PickNext() {
    for (size_t tried = 0; tried < files_.size(); tried++) {
      const size_t i = next_;
      next_ = next_ + 1 == files_.size() ? 0 : next_ + 1;
      if (!files_[i].done) return static_cast<int>(i);
    }
    return -1;
  }
  // A file drawn as fio draws it, again until one is not done (fio's get_next_file_rand).
  int PickRandom() {
    for (;;) {
      const size_t i = static_cast<size_t>(rand_.Below(files_.size()));
      if (!files_[i].done) return static_cast<int>(i);
    }
  }

  std::vector<JobFile> files_;
  std::vector<int> fds_;
  FileService service_ = FileService::kRoundRobin;
  uint32_t nr_ = 1;
  uint64_t seed_ = 0;
  FioRand rand_;
  uint64_t block_seed_ = 0, zone_seed_ = 0, seq_rand_seed_ = 0;
  OffsetDraws draws_;
  size_t done_count_ = 0;
  size_t next_ = 0;
  int current_ = -1;
  uint32_t left_ = 0;
};

}  // namespace vb
