// The machine step's register write spelled from its results (docs/machine.md §3.3, §5.2
// rows 39–44): the write's width from the fetched word (machine::writeBytes), its lanes the
// active mask, the index of the token to spell from a counter of the step's write tokens,
// and the write-form decision and spelling (write_form.h) on the ALU's results — the
// tokens of an integer step, from the tokens before it alone.
#pragma once

#include <cstdint>

#include "qgpu/compiler/alu.h"
#include "qgpu/compiler/step_control.h"
#include "qgpu/compiler/token_io.h"
#include "qgpu/compiler/units.h"
#include "qgpu/compiler/write_form.h"

namespace qgpu::compiler {

struct RegisterWriteWires {
  WriteFormInputs in;  // the values, lanes and width the decision reads
  Bus index;           // [k >= 1..16]: the write tokens read since the step began
  WriteFormWires form;
  WriteTokenWires token;  // the write's token at index k (none where another token is next)
  // The step's first token when it is not the write's (k = 0): ACTIVE m when the guard is off
  // in some running lanes of an op that writes a register (and the token read is not that
  // ACTIVE), or a control token or DONE (step_control.h).
  WireId activeNext = 0;
  WireId atomicNext = 0;  // ATOMIC (an atomic step with an active lane: at its own position or after its ACTIVE)
  StepControlWires control;
};
/// The write of `results` (per lane, cut to the op's width) to `lanes`, the op one-hot `op`
/// (operand_select.h) deciding the step's other first tokens, `waits` countWaits'. The index counts the
/// positions since the last one whose token is no write token (CHUNK-MORE, CHUNK-LAST, PACK4,
/// AFFINE, LANES n, LANES-HIGH n) or ended a step: a step's control tokens, its ACTIVE, the
/// previous step's last token — k = 0 where the write's first token is next.
/// `stackAfterActive`: where the control's SIMT stack goes (step_control.h).
RegisterWriteWires buildRegisterWrite(Circuit& c, const FrontWires& front, const std::vector<WireId>& op,
                                      const std::vector<Bus>& results, const Bus& lanes, const Bus& waits,
                                      uint32_t stackAfterActive);

/// The token head's outputs for the tokens decided so far (token_io.h's tokenOutput): the
/// six write kinds, ACTIVE, DONE, GOTO, FALL, DEPTH, WAIT and TOP at depths 1, 2 and the last
/// DEPTH's as `vocab`'s classes of those names (machineVocabulary's), every other class 0
/// (computed at the kinds' level: no channel before it), the value bits; the classes
/// declared one exclusive group.
void writeTokenOutput(Circuit& c, const TokenVocabulary& vocab, const RegisterWriteWires& rw);

/// Declares the write's outputs (aluWriteUnit's after the ALU's: the token's kind, value,
/// last, the index, the other tokens) and adds them to `lb`'s results.
void outputRegisterWrite(Circuit& c, const RegisterWriteWires& rw, LaneBuses& lb);

/// The front end, the operand select, the integer ALU and its write spelled. Inputs:
/// frontInputs'. Outputs: aluUnit's, then the token's kind (6) and value (16), whether it is
/// the write's last (1), the index k (16 thermometer bits), then which other token is next
/// (kOtherTokens bits, in OtherToken's order; the value bits are the token's); with `head`, the token
/// outputs of writeTokenOutput after them (compile it with EmitOptions::tokens = head and
/// tokenFeatures = frontInputs of the machine id).
Unit aluWriteUnit(const TokenVocabulary* head = nullptr);
enum class OtherToken : uint32_t { Active, Done, Goto, Fall, Top1, Top2, Depth, TopDeeper, Wait, Halt, WarpStart, Warp, Block, Atomic };
constexpr uint32_t kOtherTokens = 14;

/// The machine token that outputRegisterWrite's outputs spell, read from `outputs` at `at`
/// (its first output, the kind's): the id, or why they spell none (no class or two at once,
/// a value the class lacks). The circuit's own reading of its token head: what the emitted
/// head's logits pick where the outputs spell a token.
struct SpelledToken {
  std::optional<uint32_t> id;
  std::string why;  // where id is empty
};
SpelledToken spelledToken(const std::vector<int64_t>& outputs, size_t at);
/// The write token alone: outputs from `kindAt` on are the kind one-hot (kWriteTokenKinds)
/// and the 16 value bits (write_form.h). Its id where exactly one kind is set and the value
/// is one the kind has (0 for AFFINE, below 4 for the LANES prefixes); 0 otherwise.
uint32_t spelledWriteToken(const std::vector<int64_t>& outputs, size_t kindAt);
constexpr uint32_t kAluWriteOutputs = kAluOutputs + kWriteTokenKinds + 16 + 1 + 16 + kOtherTokens;

}  // namespace qgpu::compiler
