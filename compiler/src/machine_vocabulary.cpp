// The machine's token protocol as token classes (machine/tokens.h is the numbering).
#include "qgpu/compiler/machine_vocabulary.h"

#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {

TokenVocabulary machineVocabulary(int64_t base) {
  using machine::Ctl;
  auto at = [&](uint32_t machineId) { return static_cast<int64_t>(machineId) - machine::kTextVocab + base; };
  TokenVocabulary v;
  v.classes = {{"chunk_more", at(machine::kChunkMore), 16}, {"chunk_last", at(machine::kChunkEnd), 16},
               {"pack4", at(machine::kPack4), 16}};
  const std::pair<const char*, Ctl> controls[] = {
      {"halt", Ctl::Halt},       {"done", Ctl::Done},         {"lanes", Ctl::Lanes},     {"affine", Ctl::Affine},
      {"prompt", Ctl::Prompt},   {"code", Ctl::Code},         {"consts", Ctl::Consts},   {"launch", Ctl::Launch},
      {"segment", Ctl::Segment}, {"zero_segment", Ctl::ZeroSegment}, {"go", Ctl::Go}, {"lanes_high", Ctl::LanesHigh}};
  for (const auto& [name, c] : controls) v.classes.push_back({name, at(machine::ctl(c)), 0});
  v.classes.push_back({"branch", at(machine::ctl(Ctl::Branch)), 4});
  return v;
}

}  // namespace qgpu::compiler
