// The token protocol (docs/machine.md §3): machine token ids (added after Qwen3.5's
// 248,320 text ids), what each one means, and how a register write is spelled.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace qgpu::machine {

constexpr uint32_t kTextVocab = 248320;  // Qwen3.5 ids 0..248319 stay text
constexpr uint32_t kChunkMore = kTextVocab;            // + v: 16-bit chunk v, more follow
constexpr uint32_t kChunkEnd = kTextVocab + 65536;     // + v: last chunk (sign-extends)
constexpr uint32_t kPack4 = kTextVocab + 131072;       // + v: lane l's value is nibble l of v
constexpr uint32_t kControl = kTextVocab + 196608;     // small control ids

/// Control tokens: kControl + value. BR/EXIT carry a 4-bit lane mask.
enum class Ctl : uint32_t {
  Halt = 0,      // the launch is complete
  Done = 1,      // a step with no register or control data (store, barrier, all lanes off)
  Lanes = 2,     // the next values are per lane (one chunk run per active lane)
  Affine = 3,    // the next two values are base and stride: lane l gets base + l*stride
  Prompt = 4,    // prompt: start
  Code = 5,      // prompt: n instruction words follow (count, then 4 chunks each)
  Consts = 6,    // prompt: ROM constants follow (count, then one value each)
  Launch = 7,    // prompt: grid.xyz, block.xyz
  Segment = 8,   // prompt: address, byte count, then 16-bit data chunks
  ZeroSegment = 9,  // prompt: address, byte count (zero-filled)
  Go = 10,       // prompt: end; generation starts
  LanesHigh = 11,  // per-lane values whose low 16 bits are zero: one run of v >> 16 per lane
  Branch = 16,   // + taken mask (16 ids)
};
constexpr uint32_t kNumMachineIds = 196608 + 32;
constexpr uint32_t ctl(Ctl c, uint32_t arg = 0) { return kControl + static_cast<uint32_t>(c) + arg; }

/// Bits of information a machine token can carry at most: log2 of the machine ids.
double bitsPerToken();

/// Human-readable meaning of an id (without step context).
std::string tokenName(uint32_t id);

/// Chunks of a value of `bytes` bytes: 16-bit pieces, low first; the last one
/// sign-extends to the width (so small negative numbers take one chunk).
std::vector<uint32_t> valueTokens(uint64_t v, uint32_t bytes);

/// How a register write of one step is spelled (docs/machine.md §3.3).
enum class WriteForm { Uniform, Pack4, Affine, LanesHigh, Lanes };
const char* writeFormName(WriteForm f);

/// Tokens for writing values[l] (lane l, for lanes in `mask`) into a register of `bytes`.
/// Chooses the cheapest form; ties go to the earlier form in WriteForm order.
std::vector<uint32_t> encodeWrite(const std::array<uint64_t, 4>& values, uint32_t mask,
                                  uint32_t bytes, WriteForm* form = nullptr);

/// Reads tokens from a stream position by position.
class TokenReader {
 public:
  explicit TokenReader(const std::vector<uint32_t>& tokens, size_t pos = 0) : t_(tokens), pos_(pos) {}
  size_t pos() const { return pos_; }
  bool atEnd() const { return pos_ >= t_.size(); }
  uint32_t peek() const;
  uint32_t next();
  /// One value (chunk run ending in an END chunk).
  uint64_t value(uint32_t bytes);
  /// Decodes one register write for the lanes in `mask`; throws on malformed tokens.
  std::array<uint64_t, 4> write(uint32_t mask, uint32_t bytes);

 private:
  const std::vector<uint32_t>& t_;
  size_t pos_;
};

}  // namespace qgpu::machine
