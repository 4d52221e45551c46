// One job instance's plan: plain numbers, copied out of the JS object before any thread starts.
// TypeScript validated and normalised everything; the engine only asserts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "beneath.h"

namespace vb {

enum Ddir : uint8_t { kRead = 0, kWrite = 1, kTrim = 2, kSync = 3, kDataSync = 4 };
constexpr int kDirs = 3;

// An engine's entry in the registry (engines/registry.h).
struct EngineEntry;

// An engine to try, with its own options (its E::Options, which only it reads).
struct EngineChoice {
  const EngineEntry* entry = nullptr;
  std::shared_ptr<const void> options;
};

// A job's file beyond its first (filename=a:b, nrfiles): the first is the plan's own target
// fields; each of the others is opened, laid out, claimed and removed as that one is.
struct FileTarget {
  // For messages; the file is opened as `target` and must be what `expect` says.
  std::string path;
  PathRef target;
  PathRef unlink_ref;
  Expect expect;
  bool is_block_device = false;
  bool exclusive = false;
  uint64_t layout_bytes = 0;
  uint64_t region_offset = 0;
  uint64_t region_bytes = 0;
};

// How a job of several files picks the file of its next I/O (fio's file_service_type).
enum class FileService : uint8_t { kRoundRobin = 0, kSequential = 1, kRandom = 2 };

struct BsEntry {
  uint32_t bs;
  uint32_t pct;
};

enum class Fallocate : uint8_t { kNone, kNative, kPosix, kKeep, kTruncate };
enum class OSync : uint8_t { kNone, kSync, kDsync };
enum class Fadvise : uint8_t { kNone, kRandom, kSequential };
enum class Distribution : uint8_t { kUniform = 0, kZipf = 1, kPareto = 2, kNormal = 3, kZoned = 4 };
// What a verify header sums: volbench's own crc32c header, or fio's header with an MD5 digest.
enum class VerifyKind : uint8_t { kNone = 0, kCrc32c = 1, kMd5 = 2 };

// random_distribution=zoned: `access`% of the I/Os fall in the next `size`% of the region.
struct ZoneSplit {
  uint32_t access;
  uint32_t size;
};
enum class BufferFill : uint8_t { kRandom = 0, kZero = 1, kCompressible = 2 };

// fio's steady state (steady_state.h). dur_s 0: off.
struct SteadyPlan {
  uint32_t dur_s = 0;
  uint64_t ramp_ns = 0;
  // Watches bandwidth (else IOPS), by the slope (else the largest deviation from the mean).
  bool bw = false;
  bool slope = true;
  // The limit is a percentage of the window's mean (else IOPS or bytes/s).
  bool percent = true;
  double limit = 0;
  // Jobs of one run with the same group judge their summed samples together.
  uint32_t group = 0;
};

struct JobPlan {
  std::string job_name;
  uint32_t instance = 0;
  // The engines to try, in order: the next when the kernel refuses one.
  std::vector<EngineChoice> engines;
  // For messages only: the target is opened as `target` (beneath a held directory) and must be
  // what `expect` says, and none of the `forbidden` inodes.
  std::string path;
  // The root the job's files are opened beneath, as the caller names it: where its stuck I/O
  // is counted (stuck_tally.h).
  std::string anchor;
  // What the job's engine takes (buffers and the rest), as planning counted it against the
  // memory budget: counted there still while the job is stuck.
  uint64_t memory_bytes = 0;
  PathRef target;
  Expect expect;
  Forbidden forbidden;
  bool is_block_device = false;
  bool direct = false;
  OSync osync = OSync::kNone;
  bool needs_write = false;
  // The run claims this block device (O_EXCL, once per device) while its jobs run.
  bool exclusive = false;
  uint64_t layout_bytes = 0;
  bool layout_fill = false;
  Fallocate fallocate = Fallocate::kNative;
  bool invalidate = true;
  // The access pattern posix_fadvise announces once the target is open (fio's fadvise_hint).
  Fadvise fadvise = Fadvise::kNone;
  bool unlink_after = false;
  // unlink=1 removes this name: the target as the user named it (its last component not
  // followed, so a symlink goes and the file it points to stays, as in fio).
  PathRef unlink_ref;

  uint64_t region_offset = 0;
  uint64_t region_bytes = 0;
  uint64_t io_bytes_per_loop = 0;
  // io_size was given: fio goes on past a pass its random map ended early until it is done.
  bool io_size_given = false;
  uint64_t loops = 1;
  bool time_based = false;
  uint64_t runtime_ns = 0;
  uint64_t ramp_ns = 0;
  uint64_t start_delay_ns = 0;
  SteadyPlan steady;

  bool random[kDirs] = {false, false, false};
  uint32_t read_pct = 100;
  uint32_t trim_pct = 0;
  std::vector<BsEntry> bs[kDirs];
  // fio's bsrange: a direction draws each size between its table's smallest and largest.
  bool bs_range[kDirs] = {false, false, false};
  uint64_t block_align[kDirs] = {0, 0, 0};
  uint32_t io_depth = 1;
  uint32_t batch_submit = 1;
  uint32_t batch_complete_min = 1;
  // Completions handled per reap (the rest wait for the next one), as fio's
  // iodepth_batch_complete_max: the queue is topped up after each, so it stays at iodepth.
  uint32_t batch_complete_max = 1;
  uint64_t rand_seed = 0;
  // fio's seeds for the draws made as fio makes them (fio_rand.h): bssplit sizes per direction,
  // rwmix directions and offsets; and whether each loop seeds them again (randrepeat).
  uint64_t fio_seed_bs[kDirs] = {0, 0, 0};
  uint64_t fio_seed_mix = 0;
  uint64_t fio_seed_block = 0;
  bool fio_reseed = true;
  bool random_map = true;
  // Keep fio's map even for one block size, where the order of the offsets shows (the kernel
  // reading ahead for a buffered job).
  bool fio_map = false;
  Distribution distribution = Distribution::kUniform;
  double distribution_param = 0;
  // kZoned's zones per direction (empty: the whole region, uniformly).
  std::vector<ZoneSplit> zones[kDirs];
  // fio's percentage_random: per direction, the percent of a random job's I/Os that draw an
  // offset; the others go on from where the direction's last I/O ended.
  uint32_t perc_random[kDirs] = {100, 100, 100};
  uint64_t fio_seed_seq_rand = 0;
  uint64_t fio_seed_zone = 0;
  // fio's rate_process=poisson: rated I/Os spaced by exponential gaps drawn from these.
  bool rate_poisson = false;
  uint64_t fio_seed_poisson[kDirs] = {0, 0, 0};
  // fio's latency target (0: off): the deepest queue up to io_depth at which latency_percentile
  // percent of each window's I/Os complete within latency_target_ns.
  uint64_t latency_target_ns = 0;
  uint64_t latency_window_ns = 0;
  double latency_percentile = 100;
  uint64_t rate_bytes[kDirs] = {0, 0, 0};
  uint64_t rate_iops[kDirs] = {0, 0, 0};
  uint64_t thinktime_ns = 0;
  uint64_t thinktime_blocks = 1;

  BufferFill buffer_fill = BufferFill::kRandom;
  uint32_t compress_pct = 0;
  uint32_t compress_chunk = 512;
  bool refill_buffers = false;
  bool scramble_buffers = true;

  // Writes carry a verify header (of verify_kind), read back in a verify pass.
  bool verify = false;
  VerifyKind verify_kind = VerifyKind::kNone;
  bool do_verify = true;
  bool verify_only = false;
  uint64_t fsync_every = 0;
  uint64_t fdatasync_every = 0;
  bool end_fsync = false;

  bool disable_slat = false;
  bool disable_clat = false;
  bool disable_lat = false;
  bool hist_slat = false;
  bool hist_clat = true;
  bool hist_lat = false;

  uint64_t sample_window_ms = 500;
  uint64_t series_interval_ms = 1000;
  std::string bw_log_path, iops_log_path, lat_log_path, clat_log_path, slat_log_path;
  // How each log is opened (not set: not written), in LogKind order, and what it must be: a
  // log planning did not find is created by the run's layout (exclusively), then held to that.
  PathRef log_refs[5];
  Expect log_expects[5];
  uint64_t log_avg_ms = 0;
  // Log lines carry the I/O's offset column (fio's log_offset).
  bool log_offset = false;

  // Whether the result says how much of the buffers the kernel backs with huge pages: decided by
  // the plan (src/plan/native-plan.ts), from the block size where a buffer's physical layout
  // starts to decide whether an I/O reaches the device whole.
  bool measure_huge_pages = false;
  // The CPUs the job's thread is pinned to (fio's cpus_allowed, split or shared); empty: any.
  std::vector<uint16_t> cpus;

  // The path of log `kind` (LogKind order: bw, iops, lat, clat, slat), for messages.
  const std::string& LogPath(int kind) const {
    static constexpr std::string JobPlan::*kPaths[5] = {&JobPlan::bw_log_path, &JobPlan::iops_log_path,
                                                        &JobPlan::lat_log_path, &JobPlan::clat_log_path,
                                                        &JobPlan::slat_log_path};
    return this->*kPaths[kind];
  }

  // The job's other files, and how its I/Os are spread over them: in turns of
  // `file_service_nr` I/Os (round robin or random), or one file after another (sequential). The
  // random choice is drawn as fio draws it, from `fio_seed_file`.
  std::vector<FileTarget> more_files;
  FileService file_service = FileService::kRoundRobin;
  uint32_t file_service_nr = 1;
  uint64_t fio_seed_file = 0;
  // fio's --status-interval: a report of the statistics every this often (0: none).
  uint64_t status_interval_ns = 0;

  size_t FileCount() const { return 1 + more_files.size(); }
  // File `i` of the job: 0 is the plan's own target, the others are more_files.
  FileTarget File(size_t i) const {
    if (i > 0) return more_files[i - 1];
    FileTarget f;
    f.path = path;
    f.target = target;
    f.unlink_ref = unlink_ref;
    f.expect = expect;
    f.is_block_device = is_block_device;
    f.exclusive = exclusive;
    f.layout_bytes = layout_bytes;
    f.region_offset = region_offset;
    f.region_bytes = region_bytes;
    return f;
  }

  uint32_t MaxBs() const {
    uint32_t m = 0;
    for (const auto& dir : bs)
      for (const auto& e : dir) m = e.bs > m ? e.bs : m;
    return m;
  }
};

}  // namespace vb
