// Which engines this kernel sets up, probed once per process.
#pragma once

#include <string>
#include <vector>

namespace vb {

const std::vector<std::string>& AvailableEngines();

}  // namespace vb
