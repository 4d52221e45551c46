#include "probe.h"

#include "engines/registry.h"

namespace vb {

const std::vector<std::string>& AvailableEngines() {
  static const std::vector<std::string> engines = [] {
    std::vector<std::string> names;
    for (const EngineEntry& e : AllEngines())
      if (e.ops->probe == nullptr || e.ops->probe()) names.push_back(e.ops->name);
    return names;
  }();
  return engines;
}

}  // namespace vb
