// The machine step's front end as one circuit (docs/machine.md §5.2, rows 1–11 of the
// plan): token intake and sequencer, the fetch, the pending write, the committed
// instruction and the register-file copies, joined — every register operand of a step, for
// every lane, from the tokens alone (no input placed by a test but the token's features and
// the launch's shape).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qgpu/compiler/atomic_step.h"
#include "qgpu/compiler/commit.h"
#include "qgpu/compiler/register_file.h"
#include "qgpu/compiler/sequencer.h"
#include "qgpu/compiler/units.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

/// The fetched word's bit that says an I2F writes 8 bytes (fl's kFlI2FDest64).
constexpr uint32_t kWordI2FDest64Bit =
    machine::kWordFlAt + static_cast<uint32_t>(std::countr_zero(unsigned{machine::kFlI2FDest64}));

/// The fields an instruction's write width depends on (machine::writeBytes): the op's bits,
/// ty's and c's width codes, fl's I2F-destination bit — as forms whose values are bits.
struct WriteWidthFields {
  std::vector<Expr> op;
  std::array<Expr, 2> ty, c;
  Expr i2f64;
};
/// The write width one-hot (1, 2, 4, 8 bytes; all 0 for an op that writes none) as four sums
/// of exclusive steps, one level from the fields: the caller names them (a sum, or an
/// exclusiveOr where a gate reads them).
std::array<Expr, 4> writeWidthTerms(Circuit& c, const std::string& name, const WriteWidthFields& f);

/// What a commit writes that its tokens do not say: the slot of the committed instruction's
/// destination register (warp << k | d, kRegisterSlotBits structural bits) and its write width
/// (one-hot: 1, 2, 4, 8 bytes; all 0 for an op that writes none), from `word` as it was one
/// position back. At a commit position the fetch already holds the next step's word (the
/// step ended at this token), and the position before it — the step's first position or one
/// of its tokens — holds the committed step's, at the same warp.
struct CommittedWrite {
  Bus slot;
  Bus width;
};
/// With `cNext` (a structural bit: an atomic's new value is next there), the register one
/// position back is the word's c where it was 1 (the new value's commit goes to c).
CommittedWrite buildCommittedWrite(Circuit& c, const Bus& word, WireId one, const Bus& warp, const Bus& k,
                                   std::optional<WireId> cNext = std::nullopt);

/// What the machine needs of the launch, from the prompt: LAUNCH's first three values, the
/// threads per block, the registers per thread and the blocks, one CHUNK-LAST each
/// (docs/machine.md §3.2), found one, two and three tokens after LAUNCH by the conv window and
/// kept in one-slot banks: the sequencer's warp shape, k one-hot (registers <= 2^k: the
/// register file's slots per warp) and the block count (13 bits: at most kMaxBlocks).
struct PromptLaunch {
  LaunchShape shape;
  Bus k;
  Bus blocks;
};
constexpr uint32_t kBlockCountBits = 13;
PromptLaunch buildPromptLaunch(Circuit& c, WireId one, WireId chunkLast, WireId launchHeader, const Bus& chunk);

/// The front end's wires, in a circuit of its own or a larger one (the operand select's).
struct FrontWires {
  SequencerWires sequencer;
  PromptFeatures prompt;
  FetchWires fetch;
  WriteFeatures write;      // the token's write features (commit.h)
  PendingWrite pending;
  PromptLaunch launch;     // the launch's figures from the prompt
  Expr lastWarp;           // the warp is its block's last (a form whose value is a bit)
  Bus pcBits;              // the sequencer's pc as proven bits (10): its pc is a form over its base, carries and counter
  Bus barrierResume;       // the pc + 1 of the last BAR the block's last warp reached (10 bits): where the waiting warps resume
  std::vector<Bus> reads;  // buildRegisterFile's: reads[4 * port + lane]
  Bus written;             // the lanes a register write commits to (past GO)
  AtomicStepWires atomic;  // where an atomic step stands (atomic_step.h)
  Expr atomicWord;         // the fetched word is ATOM or ATOMS (a form whose value is a bit)
};
FrontWires buildFront(Circuit& c);

/// The front end. Inputs: the token's features alone — the sequencer's
/// (appendSequencerFeatures), the prompt's (appendPromptFeatures), whether it is LAUNCH, the
/// write's (appendWriteFeatures); the launch's shape and registers come from the prompt. Outputs: the
/// register reads in registerFileUnit's order (ports a, b, c: 4 lanes × 64 bits; the guard:
/// 4 × 1), each read by the fetched word's a, b, c and g fields at the sequencer's warp,
/// then the fetched word (64 bits), then the lanes a register write commits to at this
/// position (4 bits: 0 in the prompt and wherever no write ends).
Unit frontUnit();
constexpr uint32_t kFrontOutputs = kRegisterFileOutputs + 64 + 4;

/// frontUnit's inputs for machine token `id`: what its embedding row holds.
std::vector<int64_t> frontInputs(uint32_t id);

}  // namespace qgpu::compiler
