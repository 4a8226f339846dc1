// The machine step's token intake and sequencer as a unit (docs/machine.md §5.2): the
// control state after each token from the token's features alone (no state updated from
// itself), checked against machine::StreamDeriver on every lowered corpus run.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// The sequencer's wires in a circuit of its own or a larger one (the fetch's): the
/// inputs it declares (sequencerInputs' order) and the state it computes.
struct SequencerWires {
  WireId machineToken, chunkLast, prefix;  // inputs other stages read
  Bus values;  // [CHUNK-LASTs since the last prefix >= 1..5]
  Bus prefixCount;  // the last prefix's value count, one-hot: 1, 2, 3, 4, none (ATOMIC)
  Bus pcBase;  // the last pc-carrying token's pc (the fetch's range check reads it)
  Bus block, warp, pc, mask, depth;
  WireId ended;
  Bus steps;
  Bus lastDepth;  // the last DEPTH token's d - 1 (0 before any)
  WireId setsWarp = 0;  // the token is BLOCK, WARP-START or WARP (input)
  WireId setsMask = 0;  // the token is TOP, BLOCK or WARP-START (input)
  Bus lastStarted;      // the last warp started in the block: the last WARP-START's, 0 from BLOCK on (8 bits)
  WireId isDepth = 0;   // the token is DEPTH (input)
  WireId isAtomic = 0;  // the token is ATOMIC (input: the prefix count "none")
};
/// The launch's warp shape as the sequencer reads it: warps whose four lanes all exist (9
/// bits), the next warp's valid lanes (4: forms whose values are bits).
struct LaunchShape {
  Bus fullWarps, tailMask;
};
/// Builds the shape in the sequencer's circuit from the token's first two features (machine
/// token, CHUNK-LAST), e.g. from the prompt's LAUNCH values (step_front.h).
using LaunchShapeSource = std::function<LaunchShape(WireId machineToken, WireId chunkLast)>;
/// Without a source the shape is two more inputs (sequencerInputs' last 13 bits).
SequencerWires buildSequencer(Circuit& c, const LaunchShapeSource& shape = {});
/// Declares the sequencer's outputs (sequencerUnit's order) and returns them as one lane's results.
LaneBuses outputSequencer(Circuit& c, const SequencerWires& s);

/// Outputs in order: block (12 bits), warp (8), pc (11), mask (4), depth - 1 (5), ended (1:
/// this token ended a step), steps since the last pc-carrying token as [k >= 1..16].
Unit sequencerUnit();
constexpr uint32_t kSequencerOutputs = 12 + 8 + 11 + 4 + 5 + 1 + 16;

/// The unit's inputs for machine token `id` — the features its embedding row would hold (the
/// class flags and fields of machine/tokens.h) — and the launch's warp shape (warps with all
/// four lanes, the next warp's valid lanes). The prompt's GO starts a stream at pc 0.
std::vector<int64_t> sequencerInputs(uint32_t id, uint32_t fullWarps, uint32_t tailMask);
/// sequencerInputs' token features alone (without the launch's shape), appended to `in`.
void appendSequencerFeatures(std::vector<int64_t>& in, uint32_t id);

/// The fetch (docs/machine.md §5.2, layer 7 of the plan): the sequencer, the prompt's code
/// words stored at their CODE positions as attention lookup entries keyed by their pc (the
/// count of words since the last AT or the code size, the AT's 16 j, and the three chunks
/// before the last one from the conv window), and the lookup of the word at the
/// sequencer's pc at every generated position (0 in the prompt). Outputs: the sequencer's,
/// then the fetched word (64 bits).
Unit fetchUnit();
/// The token features the fetch reads beside the sequencer's, as declared inputs
/// (appendPromptFeatures' order).
struct PromptFeatures {
  WireId sectionHeader = 0, codeHeader = 0, goHeader = 0, constsHeader = 0, setsAt = 0, isAt = 0;
  Bus atField;  // AT j's j (its low kAtFieldBits bits)
  Bus chunk;    // a CHUNK-MORE's or CHUNK-LAST's 16-bit value
  WireId segmentHeader = 0, chunkMore = 0;  // SEGMENT (not ZERO-SEGMENT); a CHUNK-MORE
};
/// The AT field's bits: a code word's pc takes 6 (1,024 words), a memory chunk's bank slot 8
/// (the slot of byte 32 j is j >> 1 past the segment's, modulo 128).
constexpr uint32_t kAtFieldBits = 8;
PromptFeatures declarePromptFeatures(Circuit& c);
/// The fetch on the sequencer `s` in a circuit of its own or a larger one: returns the
/// fetched word (64 bits) and whether the position is past the prompt's GO (generating: the
/// machine runs).
struct FetchWires {
  Bus word;
  WireId generating = 0;
  // The prompt's item index pieces, for the ROM constants (operand_select.h): in the CONSTS
  // section, after its count (the token before was CONSTS), the last AT's j, and
  // [items since the last AT or section count >= 2..16] (CHUNK-LASTs: a code word's last
  // chunk, a constant's).
  WireId inConsts = 0, afterConsts = 0;
  Bus at, items;
};
/// Bits 0..bits-1 of an item's index in its section, 16 j + items - 1, gated by `entry`
/// (0 wherever it is 0): structural bits a lookup's key can hold.
Bus promptItemIndex(Circuit& c, const std::string& name, WireId entry, const FetchWires& f, uint32_t bits);
FetchWires buildFetch(Circuit& c, const SequencerWires& s, const PromptFeatures& features);
constexpr uint32_t kFetchOutputs = kSequencerOutputs + 64;
/// fetchUnit's inputs for token `id`: sequencerInputs', then the prompt features.
std::vector<int64_t> fetchInputs(uint32_t id, uint32_t fullWarps, uint32_t tailMask);
/// The prompt features of token `id` that buildFetch declares, appended to `in`.
void appendPromptFeatures(std::vector<int64_t>& in, uint32_t id);

}  // namespace qgpu::compiler
