// The machine's token protocol as token classes (machine/tokens.h is the numbering).
#include "qgpu/compiler/machine_vocabulary.h"

#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {

TokenVocabulary machineVocabulary(int64_t base) {
  using machine::Ctl;
  auto at = [&](uint32_t machineId) { return static_cast<int64_t>(machineId) - machine::kTextVocab + base; };
  TokenVocabulary v;
  v.classes = {{"chunk_more", at(machine::kChunkMore), 16},
               {"chunk_last", at(machine::kChunkLast), 16},
               {"pack4", at(machine::kPack4), 16},
               {"top_depth1", at(machine::topToken(0, 0, 1)), 14},  // (pc, mask) at SIMT depth 1
               {"top_depth2", at(machine::topToken(0, 0, 2)), 14},
               {"top_deeper", at(machine::topToken(0, 0, 3)), 14},  // the depth of the last DEPTH
               {"goto", at(machine::kGoto), 10},
               {"block", at(machine::kBlock), 12},
               {"warp_start", at(machine::kWarpStart), 8},
               {"warp", at(machine::kWarpResume), 8},
               {"depth", at(machine::kDepth), 5},
               {"lanes", at(machine::ctl(Ctl::Lanes)), 2},
               {"lanes_high", at(machine::ctl(Ctl::LanesHigh)), 2}};
  const std::pair<const char*, Ctl> controls[] = {
      {"halt", Ctl::Halt},       {"done", Ctl::Done},         {"affine", Ctl::Affine},   {"prompt", Ctl::Prompt},
      {"code", Ctl::Code},       {"consts", Ctl::Consts},     {"launch", Ctl::Launch},   {"segment", Ctl::Segment},
      {"zero_segment", Ctl::ZeroSegment}, {"go", Ctl::Go},    {"wait", Ctl::Wait},       {"fall", Ctl::Fall},
      {"atomic", Ctl::Atomic},   {"inner_lanes", Ctl::InnerLanes}, {"inner_affine", Ctl::InnerAffine},
      {"inner_lanes_high", Ctl::InnerLanesHigh}};
  for (const auto& [name, c] : controls) v.classes.push_back({name, at(machine::ctl(c)), 0});
  v.classes.push_back({"at", at(machine::kAt), 12});  // j = 0 does not occur
  v.classes.push_back({"active", at(machine::kActive), 4});  // m = 0 does not occur
  return v;
}

}  // namespace qgpu::compiler
