// Every engine the addon has, in the order engines() lists them and the JS side falls back
// through them (fastest first): fio's table of ioengine_ops. Adding an engine adds its own
// header, with its EngineOps, and one line in registry.cc.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "engine.h"

namespace vb {

class Job;

struct EngineEntry {
  const EngineOps* ops;
  // Reads the engine's options (an E::Options, held by the plan, read only by the engine).
  std::shared_ptr<const void> (*read_options)(const OptionSource& source);
  // Runs a job on the engine with those options: Job::RunWith<E>, the hot loop instantiated for it.
  bool (Job::*run)(const void* options, int* setup_err);
};

struct EngineTable {
  const EngineEntry* first;
  size_t count;
  const EngineEntry* begin() const { return first; }
  const EngineEntry* end() const { return first + count; }
};

EngineTable AllEngines();
// The engine `name` names, or null.
const EngineEntry* FindEngine(const std::string& name);

}  // namespace vb
