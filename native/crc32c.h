// CRC-32C (Castagnoli), with the SSE4.2 instruction when the CPU has it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vb {

uint32_t Crc32c(uint32_t crc, const void* data, size_t len);

}  // namespace vb
