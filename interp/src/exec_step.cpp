// Memory effects of an executed instruction, recomputed from its operands
// after it ran (the handlers themselves stay free of observer code).
#include "qgpu/interp/exec_step.h"

#include <cstring>

#include "exec_context.h"
#include "exec_step_capture.h"

namespace qgpu {

StoreKind storeKindOf(const Program& program, uint32_t pc) {
  const std::string& op = program.opcodeText[pc];
  auto is = [&](const char* name) {
    size_t n = std::strlen(name);
    return op.compare(0, n, name) == 0 && (op.size() == n || op[n] == '.');
  };
  if (is("st")) return StoreKind::Store;
  if (is("atom") || is("red")) return StoreKind::Atomic;
  return StoreKind::None;
}

std::optional<std::pair<uint32_t, uint64_t>> launchBufferOf(uint64_t globalAddress) {
  if (globalAddress < kGlobalBase) return std::nullopt;
  uint64_t region = (globalAddress - kGlobalBase) / kGlobalRegionBytes;
  if (region < kFirstLaunchBufferRegion) return std::nullopt;
  return std::make_pair(static_cast<uint32_t>(region - kFirstLaunchBufferRegion),
                        (globalAddress - kGlobalBase) % kGlobalRegionBytes);
}

namespace {

// The same window split as resolveAddress, kept here for reporting only.
std::pair<MemSpace, uint64_t> resolveSpace(MemSpace space, uint64_t addr) {
  if (space != MemSpace::Generic) return {space, addr};
  if (addr >= kSharedWindowBase && addr < kSharedWindowBase + kWindowBytes)
    return {MemSpace::Shared, addr - kSharedWindowBase};
  if (addr >= kLocalWindowBase && addr < kLocalWindowBase + kWindowBytes)
    return {MemSpace::Local, addr - kLocalWindowBase};
  return {MemSpace::Global, addr};
}

}  // namespace

std::optional<MemoryWrite> memoryWriteOf(const ExecStep& step, uint32_t lane) {
  if (!step.writes || lane >= 32 || !((step.laneMask >> lane) & 1)) return std::nullopt;
  return step.writes[lane];
}

uint64_t storeAddress(const ExecContext& c, const Instr& in, StoreKind kind, uint32_t lane) {
  uint32_t baseSlot = kind == StoreKind::Store ? in.s[4] : in.s[0];
  return c.reg(baseSlot)[lane] + static_cast<uint64_t>(in.imm);
}

MemoryWrite capturedWrite(ExecContext& c, const Instr& in, StoreKind kind, uint32_t lane, uint64_t addr) {
  uint32_t size = kind == StoreKind::Store ? uint32_t{in.typeBytes} * in.count : in.typeBytes;
  MemoryWrite w;
  std::tie(w.space, w.address) = resolveSpace(in.space, addr);
  w.size = size > 16 ? 16 : size;
  // The lane's access already succeeded, so this cannot fault.
  const uint8_t* p = resolveAddress(c, lane, in.space, addr, size, false);
  std::memcpy(w.bytes, p, w.size);
  return w;
}

}  // namespace qgpu
