// What an observer sees of one executed warp instruction, after it ran: the
// lanes, the register file the instruction wrote, and (through
// memoryWriteOf) the bytes a store or atomic put into memory. Only built when
// an observer is set, so an unobserved launch pays nothing for it.
#pragma once

#include <cstdint>
#include <optional>

#include "qgpu/interp/program.h"

namespace qgpu {

struct ExecStep {
  const Program* program = nullptr;
  uint32_t pc = 0;
  uint32_t blockLinear = 0;
  uint32_t warp = 0;
  uint32_t laneMask = 0;  // lanes that executed (guard true)
  uint32_t warpWidth = 4;
  uint32_t threadsPerBlock = 0;
  // regs[slot * warpWidth + lane] of the frame the instruction ran in; mutable
  // so that fault injection can corrupt a result before anyone reads it.
  uint64_t* regs = nullptr;
  // Stores and atomics: what each lane wrote (indexed by lane), captured lane
  // by lane as the instruction ran, so that several lanes writing one
  // address each show their own value. Null for other instructions.
  const struct MemoryWrite* writes = nullptr;

  const Instr& instr() const { return program->code[pc]; }
  uint64_t& reg(uint32_t slot, uint32_t lane) const { return regs[size_t{slot} * warpWidth + lane]; }
  /// Thread index within the block (x fastest), independent of warp width.
  uint32_t threadInBlock(uint32_t lane) const { return warp * warpWidth + lane; }
};

/// A store's or atomic's effect for one lane. `space` is resolved (a generic
/// address becomes Global/Shared/Local); `address` is the generic address for
/// Global and the space's own address otherwise.
struct MemoryWrite {
  MemSpace space = MemSpace::Global;
  uint64_t address = 0;
  uint32_t size = 0;  // bytes, at most 16
  uint8_t bytes[16] = {};
};

/// The memory written by `lane` in `step` (st, atom, red); nullopt for
/// instructions that write no memory (or lanes that did not run).
std::optional<MemoryWrite> memoryWriteOf(const ExecStep& step, uint32_t lane);

/// For a Global write: the launch buffer index and byte offset it falls in,
/// or nullopt for module globals.
std::optional<std::pair<uint32_t, uint64_t>> launchBufferOf(uint64_t globalAddress);

/// "st", "atom", "red" or "" (for memoryWriteOf and trace writers).
enum class StoreKind : uint8_t { None, Store, Atomic };
StoreKind storeKindOf(const Program& program, uint32_t pc);

}  // namespace qgpu
