// The machine step's pending write (docs/machine.md §5.2): at the last token of a step's
// register write — its commit position — the value of every lane and the lanes it goes to,
// rebuilt from the tokens alone, which is what the register-file copies are written with.
#pragma once

#include <cstdint>
#include <vector>

#include "qgpu/compiler/sequencer.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// Outputs in order: commit (1: this token is the last of a register write that ends its
/// step), the lanes written (4: commit and the write's lanes, the running lanes or an ACTIVE
/// token's), then each lane's value (4 x 64 bits, zero-extended from the write's width;
/// meaningful where the lane is written). Atomic steps' writes (INNER forms) are not covered.
Unit commitUnit();
constexpr uint32_t kCommitOutputs = 1 + 4 + 4 * 64;

/// The token features the pending write reads beside the sequencer's (the write's form,
/// chunk and ACTIVE flags, the 16-bit field), as declared inputs.
struct WriteFeatures {
  WireId isMore = 0, isPack4 = 0, isActive = 0;
  Bus formBits;  // AFFINE, LANES n, LANES-HIGH n
  Bus field;     // a chunk's value, PACK4's nibbles, ACTIVE's lanes
  WireId isWait = 0;  // WAIT: a lane-serial step's position (step_control.h)
};
/// Declares them (appendWriteFeatures' order).
WriteFeatures declareWriteFeatures(Circuit& c);
/// Token `id`'s write features, appended to `in`.
void appendWriteFeatures(std::vector<int64_t>& in, uint32_t id);

/// The width class of value bit b: 0..3 for the writes of 1, 2, 4, 8 bytes and wider that
/// hold it.
constexpr uint32_t widthClassOfBit(uint32_t b) { return b < 8 ? 0u : b < 16 ? 1u : b < 32 ? 2u : 3u; }
/// [a width one-hot over 1, 2, 4, 8 bytes holds value bit b]: the sum of its bits that do.
inline Expr widthHoldsBit(const Bus& width, uint32_t b) {
  Expr e(0);
  for (uint32_t t = widthClassOfBit(b); t < 4; ++t) e += w(width[t]);
  return e;
}

/// The pending write at every position: commit, the lanes written, each lane's value.
struct PendingWrite {
  WireId commit = 0;
  Bus lanes;
  std::vector<Bus> values;  // per lane, 64 bits
  Bus chunkValue;           // at a CHUNK-LAST: its value sign-extended to 64 bits (0 elsewhere)
};
/// The pending write on the sequencer `s` in a circuit of its own or a larger one; `width`
/// is the committed write's width one-hot (1, 2, 4, 8 bytes): forms whose values are 0 or 1
/// at a commit position. With `width` empty the values are not cut to a width (the caller
/// cuts them: bits the write's width does not hold are the value's sign extension).
PendingWrite buildCommit(Circuit& c, const SequencerWires& s, const WriteFeatures& features, const Bus& width);

/// commitUnit's inputs for machine token `id`: sequencerInputs', the token's write fields and
/// the width in bytes (1, 2, 4 or 8; 0 if none) of the register write the token belongs to —
/// in the compiled step the committed instruction's, decoded from its fetched word.
std::vector<int64_t> commitInputs(uint32_t id, uint32_t fullWarps, uint32_t tailMask, uint32_t writeBytes);

}  // namespace qgpu::compiler
