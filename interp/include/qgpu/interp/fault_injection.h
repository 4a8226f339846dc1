// Fault injection for testing the debugging tools: flip one bit of one
// instruction result on one lane, then let the launch run on. The diff
// reporter must find exactly that instruction and lane again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace qgpu {

/// `pc=<n>,lane=<l>,bit=<b>[,block=<linear block>][,warp=<w>]`: after the
/// instruction at pc executes on lane l (of warp w of block b, if given) for
/// the FIRST time in the launch, bit b of its first destination register is
/// flipped. Later executions are untouched.
struct FaultInjection {
  uint32_t pc = 0, lane = 0, bit = 0;
  std::optional<uint32_t> block, warp;
};

/// Parses the --inject syntax; ErrorKind::Input naming the bad part.
FaultInjection parseFaultInjection(const std::string& text);
std::string formatFaultInjection(const FaultInjection& f);

}  // namespace qgpu
