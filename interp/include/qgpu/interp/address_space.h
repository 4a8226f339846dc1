// The interpreter's generic address layout.
//
// Launch buffers and module .global variables are global memory at
// kGlobalBase + region * 2^32. Shared, local, const and kernel-param memory
// are windows of the generic space: generic = window base + the space's own
// address (what `mov r, var` gives); cvta converts between the two.
#pragma once

#include <cstdint>

namespace qgpu {

constexpr uint64_t kSharedWindowBase = 0x0000'0001'0000'0000ull;
constexpr uint64_t kLocalWindowBase = 0x0000'0002'0000'0000ull;
constexpr uint64_t kConstWindowBase = 0x0000'0003'0000'0000ull;
constexpr uint64_t kParamWindowBase = 0x0000'0004'0000'0000ull;
constexpr uint64_t kWindowBytes = 0x0000'0001'0000'0000ull;

// Static plus dynamic shared memory of one block (sm_75 without the opt-in carve-out).
constexpr uint32_t kMaxSharedBytes = 48 * 1024;
// The other per-kernel limits the decoder enforces (docs/limits.md): local memory per thread
// (sm_75), the constant bank, kernel parameters (PTX ISA 8.1 and later; 4352 bytes before),
// the module .global variables together (the launch-buffer limit), registers declared by one function.
constexpr uint32_t kMaxLocalBytes = 512 * 1024;
constexpr uint32_t kMaxConstBytes = 64 * 1024;
constexpr uint32_t kMaxKernelParamBytes = 32764;
constexpr uint32_t kMaxKernelParamBytesBeforePtx81 = 4352;
constexpr uint64_t kMaxGlobalVariableBytes = uint64_t{1} << 30;
constexpr uint32_t kMaxRegistersPerFunction = 65536;

constexpr uint64_t kGlobalBase = 0x0000'7000'0000'0000ull;
constexpr uint64_t kGlobalRegionBytes = 0x0000'0001'0000'0000ull;
constexpr uint32_t kFirstModuleGlobalRegion = 0;   // module .global variables
constexpr uint32_t kFirstLaunchBufferRegion = 1024;  // launch buffers

}  // namespace qgpu
