#include "decode_state.h"
#include "qgpu/interp/isa.h"

namespace qgpu {

std::vector<std::string> supportedOpcodes() {
  std::vector<std::string> out;
  for (const auto& [name, fn] : opcodeTable()) out.push_back(name);
  return out;  // std::map: already sorted
}

}  // namespace qgpu
