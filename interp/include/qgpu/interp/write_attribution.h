// Write attribution: for every byte of every launch buffer, the last
// instruction, block and thread that stored to it. An observer, so it costs
// nothing unless a launch asks for it (qgpu diff and the gate re-run the
// interpreter with it when they need to say who wrote a wrong element).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "qgpu/interp/launch.h"

namespace qgpu {

struct WriterInfo {
  uint32_t pc = 0;
  uint32_t blockLinear = 0;
  uint32_t threadInBlock = 0;  // x fastest; independent of warp width
  uint32_t warp = 0, lane = 0;  // at the launch's warp width
};

class WriteAttribution : public ExecObserver {
 public:
  /// Sized from the launch's buffers; `next` (if any) sees every call too.
  explicit WriteAttribution(const Launch& launch, ExecObserver* next = nullptr);

  void onInstruction(uint32_t pc, uint32_t blockLinear, uint32_t warp, uint32_t laneMask) override;
  void afterInstruction(const ExecStep& step) override;

  /// Last writer of any of bytes [offset, offset + size) of launch buffer
  /// `buffer`; nullopt if the launch never stored to them.
  std::optional<WriterInfo> lastWriter(uint32_t buffer, uint64_t offset, uint64_t size = 1) const;

 private:
  ExecObserver* next_;
  std::vector<std::vector<uint32_t>> byteWriter_;  // 1 + index into writers_, 0 = none
  std::vector<WriterInfo> writers_;
};

}  // namespace qgpu
