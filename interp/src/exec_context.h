// State the instruction handlers work on: the current warp's register frame,
// memories, and the identity of the warp (for fault messages).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "qgpu/interp/address_space.h"
#include "qgpu/interp/error.h"
#include "qgpu/interp/launch.h"
#include "qgpu/interp/program.h"

namespace qgpu {

struct GlobalRegion {
  std::string name;
  std::vector<uint8_t>* data = nullptr;  // launch buffer or module variable; null: unused
};

struct ExecContext {
  const Program* program = nullptr;
  uint32_t W = 4;
  uint32_t fullMask = 0xf;
  uint64_t* regs = nullptr;      // current frame: regs[slot * W + lane]
  uint8_t* paramArea = nullptr;  // current frame: paramArea[lane * paramBytes + offset]
  uint32_t paramBytes = 0;
  std::vector<GlobalRegion>* globals = nullptr;
  std::vector<uint8_t>* shared = nullptr;
  std::vector<uint8_t>* constBank = nullptr;
  std::vector<uint8_t>* kernelParams = nullptr;
  std::vector<std::vector<uint8_t>>* local = nullptr;  // per lane
  uint32_t pc = 0;
  uint32_t block[3] = {0, 0, 0};
  Dim3 blockDim;
  uint32_t warp = 0;
  uint32_t liveMask = 0;  // lanes of this warp that exist and have not exited

  uint64_t* reg(uint32_t slot) const { return regs + static_cast<size_t>(slot) * W; }

  /// Throws an error naming block, thread, lane, pc and PTX line.
  [[noreturn]] void fail(ErrorKind kind, uint32_t lane, const std::string& what) const;
  std::string where(uint32_t lane) const;
};

template <class T>
inline T as(uint64_t v) {
  T t;
  std::memcpy(&t, &v, sizeof(T));
  return t;
}
template <class T>
inline uint64_t bitsOf(T t) {
  uint64_t v = 0;
  std::memcpy(&v, &t, sizeof(T));
  return v;
}

/// "{0,2,3}": the lanes of a mask, for messages.
std::string formatLanes(uint32_t mask);

/// Calls f(lane) for every lane in mask, in lane order.
template <class F>
inline void forLanes(const ExecContext& c, uint32_t mask, F&& f) {
  if (mask == c.fullMask) {
    for (uint32_t l = 0; l < c.W; ++l) f(l);
  } else {
    while (mask) {
      uint32_t l = static_cast<uint32_t>(std::countr_zero(mask));
      mask &= mask - 1;
      f(l);
    }
  }
}

/// Resolves `size` bytes at `addr` in `space` for `lane`; faults on
/// out-of-bounds, misalignment or writes to read-only spaces.
uint8_t* resolveAddress(ExecContext& c, uint32_t lane, MemSpace space, uint64_t addr,
                        uint32_t size, bool write);

}  // namespace qgpu
