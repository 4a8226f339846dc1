// Write attribution: the last instruction, block and thread that stored to each byte.
#include "qgpu/interp/write_attribution.h"

#include <algorithm>
#include <bit>

namespace qgpu {

WriteAttribution::WriteAttribution(const Launch& launch, ExecObserver* next) : next_(next) {
  for (const LaunchBuffer& b : launch.buffers) byteWriter_.emplace_back(b.data.size(), 0);
}

void WriteAttribution::onInstruction(uint32_t pc, uint32_t blockLinear, uint32_t warp,
                                     uint32_t laneMask) {
  if (next_) next_->onInstruction(pc, blockLinear, warp, laneMask);
}

void WriteAttribution::afterInstruction(const ExecStep& step) {
  if (storeKindOf(*step.program, step.pc) != StoreKind::None) {
    for (uint32_t m = step.laneMask; m; m &= m - 1) {
      uint32_t lane = static_cast<uint32_t>(std::countr_zero(m));
      std::optional<MemoryWrite> w = memoryWriteOf(step, lane);
      if (!w || w->space != MemSpace::Global) continue;
      auto where = launchBufferOf(w->address);
      if (!where || where->first >= byteWriter_.size()) continue;
      std::vector<uint32_t>& bytes = byteWriter_[where->first];
      if (where->second >= bytes.size()) continue;
      writers_.push_back({step.pc, step.blockLinear, step.threadInBlock(lane), step.warp, lane});
      uint64_t end = std::min<uint64_t>(where->second + w->size, bytes.size());
      std::fill(bytes.begin() + static_cast<long>(where->second), bytes.begin() + static_cast<long>(end),
                static_cast<uint32_t>(writers_.size()));
    }
  }
  if (next_) next_->afterInstruction(step);
}

std::optional<WriterInfo> WriteAttribution::lastWriter(uint32_t buffer, uint64_t offset,
                                                       uint64_t size) const {
  if (buffer >= byteWriter_.size()) return std::nullopt;
  const std::vector<uint32_t>& bytes = byteWriter_[buffer];
  uint32_t i = 0;  // writer indices grow with time: the largest is the last
  for (uint64_t b = offset; b < offset + size && b < bytes.size(); ++b) i = std::max(i, bytes[b]);
  if (i == 0) return std::nullopt;
  return writers_[i - 1];
}

}  // namespace qgpu
