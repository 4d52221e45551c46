#include "registry.h"

#include "../job_loop.h"
#include "io_uring.h"
#include "libaio.h"
#include "null_engine.h"
#include "sync_engines.h"

namespace vb {
namespace {

template <class E>
std::shared_ptr<const void> ReadOptions(const OptionSource& source) {
  auto options = std::make_shared<typename E::Options>();
  for (const auto& option : E::kOptions) (*options).*option.member = source.Flag(option.field);
  return options;
}

template <class E>
constexpr EngineEntry Entry() {
  return EngineEntry{&E::kOps, &ReadOptions<E>, &Job::RunWith<E>};
}

constexpr EngineEntry kEngines[] = {
    Entry<IoUringEngine>(),
    Entry<LibaioEngine>(),
    Entry<PsyncEngine>(),
    Entry<SyncEngine>(),
    Entry<NullEngine>(),
};

}  // namespace

EngineTable AllEngines() { return EngineTable{kEngines, sizeof(kEngines) / sizeof(kEngines[0])}; }

const EngineEntry* FindEngine(const std::string& name) {
  for (const EngineEntry& e : AllEngines())
    if (name == e.ops->name) return &e;
  return nullptr;
}

}  // namespace vb
