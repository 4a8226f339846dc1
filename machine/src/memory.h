// The machine's flat memory (docs/machine.md §1.3): kernel parameters, the const bank,
// shared memory of the running block, per-thread local memory, module globals and the
// launch buffers, each a segment at a fixed base of the 32-bit address map.
#pragma once

#include <cstdint>
#include <vector>

#include "qgpu/machine/isa.h"

namespace qgpu::machine {

class MachineMemory {
 public:
  MachineMemory(const MachineProgram& program, const std::vector<uint8_t>& params,
                std::vector<std::vector<uint8_t>> buffers, std::vector<uint64_t> bufferAddr);

  /// Resets shared and local memory for a new block of `threads` threads.
  void startBlock(uint32_t threads, uint32_t dynamicSharedBytes);

  /// Bytes at flat address `flat` (an access of `space`: it must lie in the space's window)
  /// for `thread`; throws qgpu::Error(Memory) when out of bounds, misaligned, or a write to
  /// read-only memory.
  uint8_t* at(MSpace space, uint64_t flat, uint32_t size, uint32_t thread, bool write);

  std::vector<std::vector<uint8_t>>& buffers() { return buffers_; }

 private:
  std::vector<uint8_t> params_, const_, shared_;
  std::vector<std::vector<uint8_t>> local_, globals_, buffers_;
  std::vector<uint64_t> globalAddr_, bufferAddr_;
  WindowLayout windows_;
  uint32_t localBytes_ = 0, sharedBytes_ = 0;
};

// Memory banks (docs/machine.md §5.3): each of the four per-lane memory copies is 64
// DeltaNet heads ("banks") of 128 one-byte slots, byte x in bank x mod 64 (kMemoryBanks and
// kBankBytes: qgpu/machine/isa.h, where the compiler reads them). Stores and atomics commit
// one lane a position, so no bank takes two bytes at once.

}  // namespace qgpu::machine
