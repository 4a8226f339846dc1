// The token protocol (docs/machine.md §3): machine token ids (added after Qwen3.5's
// 248,320 text ids), what each one means, and how a register write is spelled.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace qgpu::machine {

constexpr uint32_t kTextVocab = 248320;  // Qwen3.5 ids 0..248319 stay text

// Two rules make the control state at every position computable at a bounded depth from
// the tokens alone (docs/machine.md §3.3, §5.2: state that a step updates from its own
// previous value would sink one layer per step):
//  * where each step ends is a property of the tokens: PACK4, TOP, GOTO, DONE, FALL and HALT
//    end a step; a CHUNK-LAST ends one when it is at least the n-th value since the last
//    prefix P (the last non-chunk token other than the INNER-* forms), n = 2 for AFFINE, the
//    lane count for LANES-n and LANES-HIGH-n, never for ATOMIC (its step ends with DONE), 1
//    for any other P (a uniform write is one value);
//  * every change of the control state that does not follow from counting steps (pc + 1) is
//    spelled by a token carrying the new value (BLOCK, WARP-START, WARP, DEPTH, TOP, GOTO),
//    and the pc is restated every kPcCheckpointSteps steps.
constexpr uint32_t kChunkMore = kTextVocab;            // + v: 16-bit chunk v, more follow
constexpr uint32_t kChunkLast = kTextVocab + 65536;    // + v: last chunk of a value (sign-extends)
constexpr uint32_t kPack4 = kTextVocab + 131072;       // + v: lane l's value is nibble l of v; ends the step
constexpr uint32_t kTop = kTextVocab + 196608;         // + (k*1024 + pc)*16 + mask: the running entry is {pc, mask};
                                                       //   SIMT depth k + 1 (k < 2), else the last DEPTH's
constexpr uint32_t kGoto = kTextVocab + 245760;        // + pc: the next step is at pc (mask, depth unchanged)
constexpr uint32_t kBlock = kTextVocab + 246784;       // + b: block b (linear index) starts with warp 0
constexpr uint32_t kWarpStart = kTextVocab + 250880;   // + w: warp w runs from its start (pc 0, its valid lanes, depth 1)
constexpr uint32_t kWarpResume = kTextVocab + 251136;  // + w: warp w resumes; TOP follows
constexpr uint32_t kDepth = kTextVocab + 251392;       // + (d - 1): the SIMT depth d >= 3 that a TOP with k = 2 means
constexpr uint32_t kControl = kTextVocab + 251424;     // small control ids

/// Steps after which the stream restates the pc (a GOTO to the next pc) when nothing else
/// did: the count of steps since the last pc-carrying token stays below it, which is what
/// the compiled machine re-derives at each position (docs/machine.md §5.2).
constexpr uint32_t kPcCheckpointSteps = 16;
constexpr uint32_t kMaxWarpsPerBlock = 256;  // WARP ids: 1024 threads of 4 lanes
constexpr uint32_t kMaxBlocks = 4096;        // BLOCK ids
constexpr uint32_t kMaxPc = 1024;            // TOP/GOTO carry a 10-bit pc

/// Control tokens: kControl + value.
enum class Ctl : uint32_t {
  Halt = 0,      // the launch is complete (in place of the last step's DONE)
  Done = 1,      // ends a step with no register or control data (store, barrier, exit, all lanes off, atomic)
  Affine = 2,    // the next two values are base and stride: lane l gets base + l*stride
  Prompt = 3,    // prompt: start
  Code = 4,      // prompt: n instruction words follow (count, then 4 chunks each)
  Consts = 5,    // prompt: ROM constants follow (count, then one value each)
  Launch = 6,    // prompt: grid.xyz, block.xyz
  Segment = 7,   // prompt: address, byte count, then 16-bit data chunks
  ZeroSegment = 8,  // prompt: address, byte count (zero-filled)
  Go = 9,        // prompt: end; generation starts
  Wait = 10,     // a position inside a step (a lane-serial lane, a further write round)
  Fall = 11,     // ends a BRA that no lane takes
  Atomic = 12,   // an atomic step: each active lane's old and new value follow (one-lane writes), then DONE
  // The forms of a many-lane write inside an atomic step: no longer spelled (an atomic's
  // writes are one lane's, uniform: docs/machine.md §5.3), the decoder still reads them; kept
  // so that the ids after them and the compiled vocabulary do not move.
  InnerLanes = 13, InnerAffine = 14, InnerLanesHigh = 15,
  Lanes = 16,      // + (n - 1): the next n values are per lane, one per active lane
  LanesHigh = 20,  // + (n - 1): per-lane values with 16 zero low bits: v >> 16 per active lane
};
constexpr uint32_t kNumControlIds = 24;
// + j (1 <= j < 4096): prompt only, the next item (code word, constant, data chunk) is item
// 16 j of its section: an item's index is then a count below 16 since the last AT or header.
constexpr uint32_t kAt = kControl + kNumControlIds;
constexpr uint32_t kPromptCheckpointItems = 16;
constexpr uint32_t kMaxPromptSectionItems = 4096 * kPromptCheckpointItems;
// + m (0 < m < 16): the register write that follows goes to lanes m, not to all the running
// entry's lanes (the guard predicates some of them off). Said right before the write (after
// a lane-serial step's WAITs), so it is the write's prefix or the token before it. Which
// lanes a write commits must follow from the tokens: the compiled machine writes its
// register-file copies from the tokens at a layer below their reads, so it cannot re-read
// the guard register there (docs/machine.md §5.2, "the lanes of a write").
constexpr uint32_t kActive = kAt + kMaxPromptSectionItems / kPromptCheckpointItems;
constexpr uint32_t kNumMachineIds = 251424 + kNumControlIds + 4096 + 16;
constexpr bool isActiveToken(uint32_t id) { return id >= kActive && id < kTextVocab + kNumMachineIds; }
constexpr uint32_t ctl(Ctl c, uint32_t arg = 0) { return kControl + static_cast<uint32_t>(c) + arg; }
/// TOP for the running entry {pc, mask} at SIMT depth `depth` (>= 3: a DEPTH token says it).
constexpr uint32_t topToken(uint32_t pc, uint32_t mask, uint32_t depth) {
  return kTop + ((depth < 3 ? depth - 1 : 2) * kMaxPc + pc) * 16 + mask;
}

/// The fields of a TOP id (kTop <= id < kGoto): k < 2 means depth k + 1, k = 2 the last DEPTH's.
struct TopFields {
  uint32_t pc, mask, k;
};
constexpr TopFields topFields(uint32_t id) {
  return {(id - kTop) / 16 % kMaxPc, (id - kTop) % 16, (id - kTop) / (16 * kMaxPc)};
}

/// Whether a generated token ends its step by itself (PACK4, TOP, GOTO, DONE, FALL, HALT);
/// a CHUNK-LAST's end follows from the prefix rule above.
bool endsStepByClass(uint32_t id);

/// Values a CHUNK-LAST after prefix `id` must reach to end a step (the rule above): 0 for
/// chunk tokens and INNER-* forms (they are not prefixes), UINT32_MAX for ATOMIC.
uint32_t prefixValueCount(uint32_t id);

/// Bits of information a machine token can carry at most: log2 of the machine ids.
double bitsPerToken();

/// Human-readable meaning of an id (without step context).
std::string tokenName(uint32_t id);

/// Chunks of a value of `bytes` bytes: 16-bit pieces, low first; the last one (a CHUNK-LAST)
/// sign-extends to the width (so small negative numbers take one chunk).
std::vector<uint32_t> valueTokens(uint64_t v, uint32_t bytes);

/// How a register write of one step is spelled (docs/machine.md §3.3).
enum class WriteForm { Uniform, Pack4, Affine, LanesHigh, Lanes };
const char* writeFormName(WriteForm f);

/// Tokens for writing values[l] (lane l, for lanes in `mask`) into a register of `bytes`.
/// Chooses the cheapest form; ties go to the earlier form in WriteForm order. A write `inner`
/// to an atomic step uses the INNER-* prefixes and no PACK4 (which ends a step).
std::vector<uint32_t> encodeWrite(const std::array<uint64_t, 4>& values, uint32_t mask,
                                  uint32_t bytes, WriteForm* form = nullptr, bool inner = false);

/// Reads tokens from a stream position by position.
class TokenReader {
 public:
  explicit TokenReader(const std::vector<uint32_t>& tokens, size_t pos = 0) : t_(tokens), pos_(pos) {}
  size_t pos() const { return pos_; }
  bool atEnd() const { return pos_ >= t_.size(); }
  uint32_t peek() const;
  uint32_t next();
  /// One value: a chunk run ending in a CHUNK-LAST.
  uint64_t value(uint32_t bytes);
  /// Decodes one register write for the lanes in `mask` (`inner`: inside an atomic step);
  /// throws on malformed tokens.
  std::array<uint64_t, 4> write(uint32_t mask, uint32_t bytes, bool inner = false);

 private:
  const std::vector<uint32_t>& t_;
  size_t pos_;
};

}  // namespace qgpu::machine
