// What the front end accepts, for tools (qgpu coverage).
#pragma once

#include <string>
#include <vector>

namespace qgpu {

/// Mnemonics of the decoder's opcode table, sorted.
std::vector<std::string> supportedOpcodes();

}  // namespace qgpu
