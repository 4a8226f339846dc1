// The tokens a step's first positions spell that are no register write (docs/machine.md
// §3.3): the sequencer's pc checkpoint (GOTO), a BRA's outcome (GOTO, FALL, DEPTH, TOP), the
// pop to the entry under the running one (DEPTH, TOP), DONE for a step that reports nothing
// and a lane-serial step's WAITs — what the tokens before the position decide, from the
// fetched word, the sequencer, the SIMT stack kept in two heads and the active lanes.
#pragma once

#include <cstdint>
#include <vector>

#include "qgpu/compiler/step_front.h"

namespace qgpu::compiler {

/// One bit per token the position may spell instead of the write (all 0 where the write's, an
/// ACTIVE m or a token not decided here is next), exclusive, and the value bits of the one
/// that is (forms whose values are bits, 0 where none is): the machine vocabulary's value in
/// the token's class (GOTO: the pc; TOP: pc·16 + lanes; DEPTH: d − 1; WARP-START: the warp;
/// BLOCK: the block).
struct StepControlWires {
  WireId checkpoint = 0;  // GOTO pc: 16 steps ended since the last token that carried the pc
  WireId jump = 0;        // GOTO b: a BRA every running lane takes, to b != pc + 1
  WireId braCheckpoint = 0;  // GOTO pc + 1: a BRA that changes nothing, its sync the 16th step since a pc
  WireId gotoAny = 0;     // checkpoint, jump or braCheckpoint: the GOTO class
  WireId fall = 0;        // FALL: a BRA that changes nothing otherwise
  WireId top1 = 0;        // TOP at depth 1: a divergence that leaves one entry, a pop to the base entry, a resumed warp
  WireId top2 = 0;        // TOP at depth 2: a divergence or a pop that leaves two entries
  WireId depth = 0;       // DEPTH d: a divergence or a pop that leaves d >= 3 entries, the last DEPTH not d
  WireId topDeeper = 0;   // TOP at the last DEPTH's depth (>= 3): the same after that DEPTH
  WireId done = 0;        // DONE: EXIT, BAR, a store's last lane, or no active lane (not BRA, CALL)
  WireId wait = 0;        // WAIT: a lane-serial float step (FADD, FSUB, FMUL, FFMA) before its last active lane's position,
                          // or a store before its last lane
  WireId halt = 0;        // HALT in place of DONE: an EXIT that retires the launch's last warp
  WireId warpStart = 0;   // WARP-START w + 1: the position after a retiring EXIT's DONE, not the block's last warp
  WireId warp = 0;        // WARP w + 1 (a started warp) or WARP 0 (the last warp waits at a BAR): a warp resumes
  WireId block = 0;       // BLOCK b + 1: the same after the block's last warp, not the launch's last block
  // Where the step's own first token is next (k = 0, generating, not after its ACTIVE, no
  // checkpoint first): a form whose value is a bit, at the active lanes' level.
  Expr own;
  // Where a pop's TOP (or DEPTH), or the WARP-START or BLOCK after a retiring EXIT,
  // comes before anything the step computed here would say (a form whose value is a bit).
  Expr preempted;
  std::vector<Expr> value;  // 16
  Expr any;                 // the sum of the bits above: 1 where one of them is next
};

/// At a position whose write index `k` is 0 (the step's first token is next) while
/// generating. `op` is the fetched word's op one-hot (operand_select.h), `active` the lanes
/// whose guard holds (proven bits), `waits` countWaits'. What the decision reads from the sequencer and the word
/// is carried packed (units.h's packBits) across the step's widest layers and unpacked where
/// the SIMT stack's bank is, `stackAfterActive` levels after the active lanes' (where the
/// unit has free heads and its token is still a dozen levels on), or, the warp and block
/// numbers, at `unpackAt`'s level.
/// BRAs and pops are decided at any SIMT depth: the entries under the running one are kept in
/// a bank of two heads, slot j {rpc, resume, lanes below} for the entry at depth j + 1,
/// written where BRAs push (docs/compiler.md §4, "The SIMT stack"). A warp leaves its pass where an EXIT at depth 1
/// retires it or a BAR at depth 1 makes it wait (HALT; WARP-START, WARP or BLOCK one position
/// on; the resumed warp's TOP two on): exact while every warp leaves each pass at the same
/// BAR with all its lanes at depth 1 and retires in the last pass (step_control.cpp). Not
/// decided here (the write's or nothing is spelled): other barrier orders (per-warp state),
/// lanes exiting under a divergence, CALL's entries, ATOMIC.
StepControlWires buildStepControl(Circuit& c, const FrontWires& front, const std::vector<WireId>& op,
                                  const Bus& active, const Bus& waits, const Bus& k, WireId unpackAt,
                                  uint32_t stackAfterActive);

}  // namespace qgpu::compiler
