// The machine's flat memory (docs/machine.md §1.3): segments, bounds and alignment checks.
#include "memory.h"

#include <algorithm>

#include <fmt/format.h>

#include "qgpu/interp/error.h"

namespace qgpu::machine {

MachineMemory::MachineMemory(const MachineProgram& program, const std::vector<uint8_t>& params,
                             std::vector<std::vector<uint8_t>> buffers, std::vector<uint64_t> bufferAddr)
    : params_(params), const_(program.constBank), globals_(program.moduleGlobals),
      buffers_(std::move(buffers)), globalAddr_(program.moduleGlobalAddr),
      bufferAddr_(std::move(bufferAddr)), windows_(program.windows), localBytes_(program.localBytes),
      sharedBytes_(program.staticSharedBytes) {}

void MachineMemory::startBlock(uint32_t threads, uint32_t dynamicSharedBytes) {
  shared_.assign(size_t{sharedBytes_} + dynamicSharedBytes, 0);  // dynamic at sharedBytes_, as in the oracle
  local_.assign(threads, std::vector<uint8_t>(localBytes_, 0));
}

uint8_t* MachineMemory::at(MSpace space, uint64_t flat, uint32_t size, uint32_t thread, bool write) {
  auto fault = [&](const char* why) -> uint8_t* {
    throw Error(ErrorKind::Memory, fmt::format("machine: {}-byte {} of {} address {:#x} (thread {}): {}",
                                               size, write ? "store" : "load", spaceName(space), flat,
                                               thread, why));
  };
  if (size && flat % size) return fault("misaligned");
  if (const uint64_t window = windowOf(space)) {
    if (flat < window || flat >= window + kWindowBytes) return fault("beyond the state space");
  } else if (space == MSpace::Global && flat >= kGlobalLimit) {
    return fault("not a global address");
  }
  auto in = [&](std::vector<uint8_t>& seg, uint64_t base, bool readOnly = false) -> uint8_t* {
    if (flat < base) return fault("out of bounds");
    uint64_t off = flat - base;
    if (off + size > seg.size()) return fault("out of bounds");
    if (write && readOnly) return fault("read-only memory");
    return seg.data() + off;
  };
  if (flat < kGlobalLimit) {
    for (size_t i = 0; i < buffers_.size(); ++i)
      if (flat >= bufferAddr_[i] && flat < bufferAddr_[i] + std::max<size_t>(buffers_[i].size(), 1))
        return in(buffers_[i], bufferAddr_[i]);
    for (size_t i = 0; i < globals_.size(); ++i)
      if (flat >= globalAddr_[i] && flat < globalAddr_[i] + std::max<size_t>(globals_[i].size(), 1))
        return in(globals_[i], globalAddr_[i]);
    return fault("no global allocation there");
  }
  if (flat >= kParamWindow && flat < kParamWindow + kWindowBytes) return in(params_, windowBase(windows_, MSpace::Param), true);
  if (flat >= kConstWindow && flat < kConstWindow + kWindowBytes) return in(const_, windowBase(windows_, MSpace::Const), true);
  if (flat >= kLocalWindow && flat < kLocalWindow + kWindowBytes) {
    if (thread >= local_.size()) return fault("no such thread");
    return in(local_[thread], windowBase(windows_, MSpace::Local), false);
  }
  if (flat >= kSharedWindow && flat < kSharedWindow + kWindowBytes) return in(shared_, windowBase(windows_, MSpace::Shared), false);
  return fault("unmapped address");
}

}  // namespace qgpu::machine
