// Address resolution for every state space, with the checks that make bad
// accesses errors: bounds (naming the buffer and its range), alignment to the
// access size, writes to read-only spaces.
#include <bit>

#include <fmt/format.h>

#include "exec_context.h"

namespace qgpu {

std::string formatLanes(uint32_t mask) {
  std::string s;
  while (mask) {
    uint32_t l = static_cast<uint32_t>(std::countr_zero(mask));
    mask &= mask - 1;
    if (!s.empty()) s += ',';
    s += std::to_string(l);
  }
  return fmt::format("{{{}}}", s);
}

std::string ExecContext::where(uint32_t lane) const {
  uint32_t linear = warp * W + lane;
  uint32_t tx = linear % blockDim.x;
  uint32_t ty = (linear / blockDim.x) % blockDim.y;
  uint32_t tz = linear / (blockDim.x * blockDim.y);
  return fmt::format("block ({},{},{}) thread ({},{},{}) [warp {} lane {}] at {}", block[0],
                     block[1], block[2], tx, ty, tz, warp, lane, program->describePc(pc));
}

void ExecContext::fail(ErrorKind kind, uint32_t lane, const std::string& what) const {
  throw Error(kind, fmt::format("{}: {}", where(lane), what));
}

namespace {

const char* spaceName(MemSpace s) {
  switch (s) {
    case MemSpace::Generic: return "generic";
    case MemSpace::Global: return "global";
    case MemSpace::Shared: return "shared";
    case MemSpace::Local: return "local";
    case MemSpace::Const: return "const";
    case MemSpace::KernelParam: return "param";
    case MemSpace::FrameParam: return "param";
  }
  return "?";
}

[[noreturn]] void outOfBounds(ExecContext& c, uint32_t lane, MemSpace space, uint64_t addr,
                              uint32_t size, bool write, const std::string& bounds) {
  c.fail(ErrorKind::Memory, lane,
         fmt::format("out-of-bounds {} {} of {} bytes at address {:#x}: {}",
                     spaceName(space), write ? "store" : "load", size, addr, bounds));
}

uint8_t* inVector(ExecContext& c, uint32_t lane, MemSpace space, std::vector<uint8_t>& v,
                  uint64_t offset, uint64_t reported, uint32_t size, bool write,
                  const char* what) {
  if (offset > v.size() || v.size() - offset < size)
    outOfBounds(c, lane, space, reported, size, write,
                fmt::format("{} is {} bytes [0, {:#x})", what, v.size(), v.size()));
  return v.data() + offset;
}

}  // namespace

uint8_t* resolveAddress(ExecContext& c, uint32_t lane, MemSpace space, uint64_t addr,
                        uint32_t size, bool write) {
  if (space == MemSpace::Generic) {
    if (addr >= kSharedWindowBase && addr < kSharedWindowBase + kWindowBytes) {
      space = MemSpace::Shared;
      addr -= kSharedWindowBase;
    } else if (addr >= kLocalWindowBase && addr < kLocalWindowBase + kWindowBytes) {
      space = MemSpace::Local;
      addr -= kLocalWindowBase;
    } else if (addr >= kConstWindowBase && addr < kConstWindowBase + kWindowBytes) {
      space = MemSpace::Const;
      addr -= kConstWindowBase;
    } else if (addr >= kParamWindowBase && addr < kParamWindowBase + kWindowBytes) {
      space = MemSpace::KernelParam;
      addr -= kParamWindowBase;
    } else {
      space = MemSpace::Global;
    }
  }
  if (size > 1 && (addr % size) != 0)
    c.fail(ErrorKind::Memory, lane,
           fmt::format("misaligned {} {} of {} bytes at address {:#x} (needs {}-byte alignment)",
                       spaceName(space), write ? "store" : "load", size, addr, size));
  switch (space) {
    case MemSpace::Global: {
      if (addr < kGlobalBase)
        outOfBounds(c, lane, space, addr, size, write,
                    addr < 4096 ? "null pointer" : "address is in no buffer");
      uint64_t region = (addr - kGlobalBase) / kGlobalRegionBytes;
      uint64_t offset = (addr - kGlobalBase) % kGlobalRegionBytes;
      auto& regions = *c.globals;
      if (region >= regions.size() || regions[region].data == nullptr)
        outOfBounds(c, lane, space, addr, size, write, "address is in no buffer");
      GlobalRegion& r = regions[region];
      if (offset > r.data->size() || r.data->size() - offset < size) {
        uint64_t base = kGlobalBase + region * kGlobalRegionBytes;
        outOfBounds(c, lane, space, addr, size, write,
                    fmt::format("buffer '{}' is [{:#x}, {:#x}) ({} bytes), access is at offset {}",
                                r.name, base, base + r.data->size(), r.data->size(),
                                static_cast<int64_t>(offset)));
      }
      return r.data->data() + offset;
    }
    case MemSpace::Shared:
      return inVector(c, lane, space, *c.shared, addr, addr, size, write, "shared memory");
    case MemSpace::Local:
      return inVector(c, lane, space, (*c.local)[lane], addr, addr, size, write,
                      "this thread's local memory");
    case MemSpace::Const:
      if (write) c.fail(ErrorKind::Memory, lane, "store to .const memory");
      return inVector(c, lane, space, *c.constBank, addr, addr, size, write, "the const bank");
    case MemSpace::KernelParam:
      if (write) c.fail(ErrorKind::Memory, lane, "store to kernel parameter memory");
      return inVector(c, lane, space, *c.kernelParams, addr, addr, size, write,
                      "the kernel parameter buffer");
    case MemSpace::FrameParam:
      if (addr > c.paramBytes || c.paramBytes - addr < size)
        outOfBounds(c, lane, space, addr, size, write,
                    fmt::format("the function's param area is {} bytes", c.paramBytes));
      return c.paramArea + static_cast<size_t>(lane) * c.paramBytes + addr;
    case MemSpace::Generic:
      break;
  }
  c.fail(ErrorKind::Memory, lane, "unresolvable address");
}

}  // namespace qgpu
