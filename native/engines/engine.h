// The engine interface. Engines are classes with these members, used through a template so
// the hot loop has no virtual calls; the job picks one engine once, before its first I/O.
//
//   static constexpr EngineOps kOps;  // what the rest of the addon knows of the engine
//   static constexpr bool kInline;    // Queue() performs the I/O before returning
//   using Options = ...;              // the engine's own options (NoOptions when it has none)
//   static constexpr std::array<EngineOption<Options>, N> kOptions;
//                                     // where each option is read from in the plan
//   int Setup(const EngineSetup&, const Options&);
//                                     // 0, or -errno: -ENOSYS/-EPERM/-EINVAL/-EOPNOTSUPP mean
//                                     // "this kernel refuses", so the job tries the next engine
//   EngineFacts Facts() const;        // what setup made of the options, for the result
//   void Queue(IoUnit*);              // stage one I/O (hot)
//   int Commit(unsigned min_complete, uint64_t timeout_ns);
//                                     // submit what is staged, stamping issue_ns, and wait until
//                                     // min_complete I/Os are done (or timeout_ns, if non-zero);
//                                     // returns the number submitted, or -errno
//   uint64_t IssuedAt() const;        // the last Commit()'s issue stamp, 0 if it submitted none
//   template <class F> unsigned Reap(F&& on_complete);
//                                     // on_complete(IoUnit*) for each finished I/O, res set, at
//                                     // most EngineSetup::reap_max of the asynchronous ones (hot)
//   void Teardown();                  // idempotent
#pragma once

#include <array>
#include <cerrno>
#include <cstdint>
#include <vector>

#include "../io_unit.h"
#include "../plan.h"

namespace vb {

// What generic code may need to know of an engine's behaviour, as fio's enum
// fio_ioengine_flags: asked as a flag, never by comparing the engine's name.
enum EngineFlag : uint32_t {
  // A request that cannot complete at once is handed to a kernel worker thread of this process
  // (io_uring's io-wq): each I/O stuck in the device holds one more thread.
  kWorkerPerStuckIo = 1u << 0,
};

// An engine as the rest of the addon knows it without running it, like fio's struct
// ioengine_ops: one constant per engine, kept in the engine's own header. registry.cc lists
// them.
struct EngineOps {
  // As fio's ioengine= names it, and the JS side.
  const char* name;
  // The system calls an error names: the engine's setup, and a read or write that failed (an
  // asynchronous engine names its submission call for both, and for a failed submission).
  const char* setup_syscall;
  const char* read_syscall;
  const char* write_syscall;
  // False for an engine that touches no device (null): a job that can only run on it opens
  // nothing.
  bool needs_target;
  // Whether this kernel sets the engine up; null when it always does.
  bool (*probe)();
  // EngineFlag bits.
  uint32_t flags = 0;

  bool Has(EngineFlag f) const { return (flags & f) != 0; }
};

// The system call to name when an I/O in direction `ddir` failed on `ops`'s engine.
const char* IoSyscallName(const EngineOps& ops, uint8_t ddir);

struct EngineSetup {
  int fd = -1;
  // Every file of the job, by IoUnit::file (fds[0] is fd); they stay open while the engine runs.
  const int* fds = nullptr;
  unsigned file_count = 1;
  bool is_block_device = false;
  unsigned depth = 1;
  IoUnit* units = nullptr;
  unsigned unit_count = 0;
  // One contiguous, page-aligned allocation holding every unit's buffer.
  char* buffers = nullptr;
  uint64_t buffer_bytes = 0;
  // At most this many asynchronous completions per Reap() (inline ones are all handed over).
  unsigned reap_max = 1;
};

// An engine's own options live with the engine, as fio's engines keep theirs (io_uring's struct
// and option table): the rest of the addon carries them unread, so an option of one engine is
// spelled nowhere else. Each option is a flag, read from the field of the engine's options object
// in the JS plan that `field` names.
template <class O>
struct EngineOption {
  const char* field;
  bool O::*member;
};

// The options of an engine that has none.
struct NoOptions {};
inline constexpr std::array<EngineOption<NoOptions>, 0> kNoOptions{};

// Where an engine's options are read from (the plan's JS object, convert.cc); throws on a field
// that is missing or of the wrong type.
class OptionSource {
 public:
  virtual bool Flag(const char* field) const = 0;

 protected:
  ~OptionSource() = default;
};

// What an engine made of its options once set up: the result reports it, since the kernel may
// refuse an optimisation the job asked for and the run goes on without it.
struct EngineFacts {
  bool registered_buffers = false;
  bool registered_files = false;
};

// Errors that mean the kernel does not offer an engine, rather than that the I/O failed.
inline bool IsUnsupportedEngineError(int err) {
  return err == ENOSYS || err == EPERM || err == EINVAL || err == EOPNOTSUPP || err == EACCES;
}

// Trim (discard) of a block device range. Done inline by every engine, as fio does.
int DiscardRange(int fd, uint64_t offset, uint64_t len);

// Completions that happened inside Queue() (every I/O of a sync engine, trims of the others),
// waiting for the next Reap(). Sized once to the depth.
class InlineQueue {
 public:
  void Init(unsigned depth) { items_.assign(depth, nullptr); count_ = 0; }
  void Push(IoUnit* u) { items_[count_++] = u; }
  bool Empty() const { return count_ == 0; }
  unsigned Size() const { return count_; }
  template <class F>
  unsigned Drain(F&& on_complete) {
    const unsigned n = count_;
    for (unsigned i = 0; i < n; i++) on_complete(items_[i]);
    count_ = 0;
    return n;
  }

 private:
  std::vector<IoUnit*> items_;
  unsigned count_ = 0;
};

}  // namespace vb
