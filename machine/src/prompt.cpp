// Prompt layout:
//   PROMPT
//   CODE  <n>  { 4 chunks per 64-bit word, low first; the 4th is a last-chunk id }
//   CONSTS <n> { one value each (8-byte width) }
//   LAUNCH grid.x grid.y grid.z block.x block.y block.z
//   per initialised segment:  SEGMENT <address> <bytes> { 16-bit little-endian chunks }
//   per zero-filled segment:  ZERO-SEGMENT <address> <bytes>
//   GO
// Numbers are values in the chunk form of tokens.h (8-byte width). Shared and local memory
// start zeroed and take no tokens.
#include "qgpu/machine/prompt.h"

#include <algorithm>

#include "qgpu/machine/tokens.h"

namespace qgpu::machine {
namespace {

void number(std::vector<uint32_t>& out, uint64_t v) {
  for (uint32_t t : valueTokens(v, 8)) out.push_back(t);
}

void segment(std::vector<uint32_t>& out, uint64_t address, const std::vector<uint8_t>& bytes) {
  bool zero = std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
  out.push_back(ctl(zero ? Ctl::ZeroSegment : Ctl::Segment));
  number(out, address);
  number(out, bytes.size());
  if (zero) return;
  for (size_t i = 0; i < bytes.size(); i += 2) {
    uint32_t lo = bytes[i], hi = i + 1 < bytes.size() ? bytes[i + 1] : 0;
    out.push_back(kChunkMore + (lo | hi << 8));
  }
}

}  // namespace

std::vector<uint32_t> encodePrompt(const MachineProgram& program, const MachineLaunch& launch,
                                   PromptStats* stats) {
  std::vector<uint32_t> out{ctl(Ctl::Prompt)};
  PromptStats s;
  size_t mark = out.size();
  out.push_back(ctl(Ctl::Code));
  number(out, program.code.size());
  for (const MInstr& in : program.code) {
    uint64_t w = encode(in);
    for (int i = 0; i < 4; ++i)
      out.push_back((i == 3 ? kChunkEnd : kChunkMore) + static_cast<uint32_t>((w >> (16 * i)) & 0xffff));
  }
  s.code = out.size() - mark;
  mark = out.size();
  out.push_back(ctl(Ctl::Consts));
  number(out, program.constants.size());
  for (uint64_t c : program.constants) number(out, c);
  s.constants = out.size() - mark;
  mark = out.size();
  out.push_back(ctl(Ctl::Launch));
  for (uint32_t v : {launch.grid.x, launch.grid.y, launch.grid.z, launch.block.x, launch.block.y, launch.block.z})
    number(out, v);
  s.launch = out.size() - mark;
  mark = out.size();
  segment(out, kParamWindow, launch.params);
  if (!program.constBank.empty()) segment(out, kConstWindow, program.constBank);
  for (size_t i = 0; i < program.moduleGlobals.size(); ++i)
    segment(out, program.moduleGlobalAddr[i], program.moduleGlobals[i]);
  for (size_t i = 0; i < launch.buffers.size(); ++i) segment(out, launch.bufferAddr[i], launch.buffers[i]);
  s.memory = out.size() - mark;
  out.push_back(ctl(Ctl::Go));
  s.total = out.size();
  if (stats) *stats = s;
  return out;
}

}  // namespace qgpu::machine
