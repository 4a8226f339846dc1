// Prompt layout:
//   PROMPT
//   CODE  <n>  { 4 chunks per 64-bit word, low first; the 4th is a last-chunk id }
//   CONSTS <n> { one value each (8-byte width) }
//   LAUNCH threads registers blocks grid.x grid.y grid.z block.x block.y block.z static-shared
//          dynamic-shared local-per-thread
//   per initialised segment:  SEGMENT <address> <bytes> { 16-bit little-endian chunks }
//   per zero-filled segment:  ZERO-SEGMENT <address> <bytes>
//   GO
// Numbers are values in the chunk form of tokens.h (8-byte width). Shared and local memory
// start zeroed and take no tokens. Before item 16 j of a section (code word, constant, data
// chunk; j >= 1) comes AT j, so that every item's index is a count below 16 since the last AT
// or section header (docs/machine.md §3.2: the compiled machine stores each item by its
// index, which must follow from the tokens at a bounded depth).
#include "qgpu/machine/prompt.h"

#include <algorithm>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::machine {
namespace {

void number(std::vector<uint32_t>& out, uint64_t v) {
  for (uint32_t t : valueTokens(v, 8)) out.push_back(t);
}

/// AT before item `i` of a section when it is a checkpoint.
void checkpoint(std::vector<uint32_t>& out, size_t i) {
  if (i > 0 && i % kPromptCheckpointItems == 0) out.push_back(kAt + static_cast<uint32_t>(i / kPromptCheckpointItems));
}

void segment(std::vector<uint32_t>& out, uint64_t address, const std::vector<uint8_t>& bytes) {
  bool zero = std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
  if (!zero && (bytes.size() + 1) / 2 > kMaxPromptSectionItems)
    throw Error(ErrorKind::Launch, fmt::format("machine: a memory segment of {} bytes is more than the prompt's AT "
                                               "tokens address ({} bytes, docs/machine.md §3.2)",
                                               bytes.size(), 2 * kMaxPromptSectionItems));
  out.push_back(ctl(zero ? Ctl::ZeroSegment : Ctl::Segment));
  number(out, address);
  number(out, bytes.size());
  if (zero) return;
  for (size_t i = 0; i < bytes.size(); i += 2) {
    checkpoint(out, i / 2);
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
  for (size_t k = 0; k < program.code.size(); ++k) {
    checkpoint(out, k);
    uint64_t w = encode(program.code[k]);
    for (int i = 0; i < 4; ++i)
      out.push_back((i == 3 ? kChunkLast : kChunkMore) + static_cast<uint32_t>((w >> (16 * i)) & 0xffff));
  }
  s.code = out.size() - mark;
  mark = out.size();
  out.push_back(ctl(Ctl::Consts));
  number(out, program.constants.size());
  for (size_t k = 0; k < program.constants.size(); ++k) {
    checkpoint(out, k);
    number(out, program.constants[k]);
  }
  s.constants = out.size() - mark;
  mark = out.size();
  out.push_back(ctl(Ctl::Launch));
  // Threads per block, registers per thread and blocks first, each one CHUNK-LAST (all
  // < 2^15): the compiled machine finds them one, two and three tokens after LAUNCH in its
  // conv window (the blocks: whether a retiring warp's block is the launch's last, HALT).
  const uint32_t threads = static_cast<uint32_t>(launch.block.count());
  const uint32_t blocks = static_cast<uint32_t>(launch.grid.count());
  for (uint32_t v : {threads, program.numRegs, blocks, launch.grid.x, launch.grid.y, launch.grid.z, launch.block.x,
                     launch.block.y, launch.block.z, program.staticSharedBytes, launch.dynamicSharedBytes,
                     program.localBytes})
    number(out, v);
  s.launch = out.size() - mark;
  mark = out.size();
  segment(out, windowBase(program.windows, MSpace::Param), launch.params);
  if (!program.constBank.empty()) segment(out, windowBase(program.windows, MSpace::Const), program.constBank);
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

namespace qgpu::machine {
namespace {

class PromptReader {
 public:
  explicit PromptReader(const std::vector<uint32_t>& t) : t_(t), r_(t) {}
  void expect(Ctl c, const char* what) {
    size_t at = r_.pos();
    if (r_.atEnd() || r_.next() != ctl(c))
      throw Error(ErrorKind::Input, fmt::format("prompt token {}: expected {}", at, what));
  }
  /// Requires the AT before item `i` of a section when it is a checkpoint.
  void checkpoint(size_t i) {
    if (i == 0 || i % kPromptCheckpointItems != 0) return;
    size_t at = r_.pos();
    const uint32_t want = kAt + static_cast<uint32_t>(i / kPromptCheckpointItems);
    if (r_.atEnd() || r_.next() != want)
      throw Error(ErrorKind::Input, fmt::format("prompt token {}: expected {} before item {}", at, tokenName(want), i));
  }
  bool next(Ctl c) {
    if (!r_.atEnd() && r_.peek() == ctl(c)) {
      r_.next();
      return true;
    }
    return false;
  }
  uint64_t number() { return r_.value(8); }
  uint32_t small(const char* what, uint64_t limit) {
    uint64_t v = number();
    if (v > limit) throw Error(ErrorKind::Input, fmt::format("prompt: {} {} exceeds {}", what, v, limit));
    return static_cast<uint32_t>(v);
  }
  uint64_t word() {
    uint64_t w = 0;
    for (int i = 0; i < 4; ++i) {
      size_t at = r_.pos();
      uint32_t id = r_.next();
      bool last = i == 3;
      uint32_t base = last ? kChunkLast : kChunkMore;
      if (id < base || id >= base + 65536)
        throw Error(ErrorKind::Input, fmt::format("prompt token {}: expected an instruction chunk", at));
      w |= uint64_t{id - base} << (16 * i);
    }
    return w;
  }
  std::vector<uint8_t> data(uint64_t bytes) {
    std::vector<uint8_t> out(bytes);
    for (uint64_t i = 0; i < bytes; i += 2) {
      checkpoint(i / 2);
      size_t at = r_.pos();
      uint32_t id = r_.next();
      if (id < kChunkMore || id >= kChunkLast)
        throw Error(ErrorKind::Input, fmt::format("prompt token {}: expected a data chunk", at));
      out[i] = static_cast<uint8_t>(id - kChunkMore);
      if (i + 1 < bytes) out[i + 1] = static_cast<uint8_t>((id - kChunkMore) >> 8);
    }
    return out;
  }
  bool atEnd() const { return r_.atEnd(); }

 private:
  const std::vector<uint32_t>& t_;
  TokenReader r_;
};

}  // namespace

DecodedPrompt decodePrompt(const std::vector<uint32_t>& tokens) {
  DecodedPrompt d;
  PromptReader r(tokens);
  r.expect(Ctl::Prompt, "PROMPT");
  r.expect(Ctl::Code, "CODE");
  uint32_t n = r.small("code size", kMaxCode);
  uint32_t maxReg = 0;  // one past the highest register an operand field names
  for (uint32_t i = 0; i < n; ++i) {
    r.checkpoint(i);
    MInstr in = decode(r.word());
    forEachRegister(in, kNumRegs, [&](uint16_t& reg, bool) { maxReg = std::max<uint32_t>(maxReg, reg + 1u); });
    d.program.code.push_back(in);
  }
  r.expect(Ctl::Consts, "CONSTS");
  uint32_t k = r.small("constant count", kNumConsts);
  for (uint32_t i = 0; i < k; ++i) {
    r.checkpoint(i);
    d.program.constants.push_back(r.number());
  }
  r.expect(Ctl::Launch, "LAUNCH");
  const uint32_t threads = r.small("threads", 1024);
  d.program.numRegs = r.small("registers", kNumRegs);
  const uint32_t blocks = r.small("blocks", kMaxBlocks);
  if (maxReg > d.program.numRegs)
    throw Error(ErrorKind::Input, fmt::format("prompt: LAUNCH says {} registers, the code names r{}", d.program.numRegs,
                                              maxReg - 1));
  d.launch.grid.x = r.small("grid.x", 0x7fffffff);
  d.launch.grid.y = r.small("grid.y", 65535);
  d.launch.grid.z = r.small("grid.z", 65535);
  d.launch.block.x = r.small("block.x", 1024);
  d.launch.block.y = r.small("block.y", 1024);
  d.launch.block.z = r.small("block.z", 64);
  d.program.staticSharedBytes = r.small("static shared bytes", kWindowBytes);
  d.launch.dynamicSharedBytes = r.small("dynamic shared bytes", kWindowBytes);
  d.program.dynamicSharedBytes = d.launch.dynamicSharedBytes;
  d.program.localBytes = r.small("local bytes", kWindowBytes);
  if (blocks != d.launch.grid.count())
    throw Error(ErrorKind::Input, fmt::format("prompt: LAUNCH says {} blocks, its grid {}x{}x{} has {}", blocks,
                                              d.launch.grid.x, d.launch.grid.y, d.launch.grid.z, d.launch.grid.count()));
  if (threads != d.launch.block.count())
    throw Error(ErrorKind::Input, fmt::format("prompt: LAUNCH says {} threads, its block {}x{}x{} has {}", threads,
                                              d.launch.block.x, d.launch.block.y, d.launch.block.z, d.launch.block.count()));
  uint64_t paramAt = kParamWindow, constAt = 0;
  while (true) {
    bool zero = r.next(Ctl::ZeroSegment);
    if (!zero && !r.next(Ctl::Segment)) break;
    uint64_t address = r.number(), bytes = r.number();
    if (bytes > kWindowBytes) throw Error(ErrorKind::Input, fmt::format("prompt: segment of {} bytes", bytes));
    if (!zero && (bytes + 1) / 2 > kMaxPromptSectionItems)
      throw Error(ErrorKind::Input, fmt::format("prompt: segment of {} bytes is more than AT tokens address", bytes));
    std::vector<uint8_t> data = zero ? std::vector<uint8_t>(bytes, 0) : r.data(bytes);
    if (address >= kParamWindow && address < kParamWindow + kWindowBytes) {
      paramAt = address;
      d.launch.params = std::move(data);
    } else if (address >= kConstWindow && address < kConstWindow + kWindowBytes) {
      constAt = address;
      d.program.constBank = std::move(data);
    } else if (address >= kGlobalStart && address + bytes <= kGlobalLimit) {
      d.launch.buffers.push_back(std::move(data));
      d.launch.bufferAddr.push_back(address);
    } else {
      throw Error(ErrorKind::Input, fmt::format("prompt: segment at {:#x} is not parameters, constants or global memory", address));
    }
  }
  // The windows lie where windowLayout puts them for these sizes (docs/machine.md §1.3).
  d.program.windows = windowLayout(d.launch.params.size(), d.program.constBank.size(), d.program.localBytes,
                                   uint64_t{d.program.staticSharedBytes} + d.launch.dynamicSharedBytes);
  auto misplaced = [](const char* what, uint64_t at, uint64_t want) {
    throw Error(ErrorKind::Input, fmt::format("prompt: the {} segment is at {:#x}; its launch's layout puts it at {:#x}",
                                              what, at, want));
  };
  if (paramAt != windowBase(d.program.windows, MSpace::Param))
    misplaced("parameter", paramAt, windowBase(d.program.windows, MSpace::Param));
  if (!d.program.constBank.empty() && constAt != windowBase(d.program.windows, MSpace::Const))
    misplaced("const bank", constAt, windowBase(d.program.windows, MSpace::Const));
  for (uint64_t a : d.launch.bufferAddr)
    if (a < d.program.windows.globalStart) misplaced("global", a, d.program.windows.globalStart);
  r.expect(Ctl::Go, "GO");
  if (!r.atEnd()) throw Error(ErrorKind::Input, "prompt: tokens after GO");
  return d;
}

}  // namespace qgpu::machine
