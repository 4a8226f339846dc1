// The machine step's atomics (docs/machine.md §5.3, docs/compiler.md §4 "Atomics"): where an
// atomic step stands, from the tokens alone. After ATOMIC each of the step's lanes, in lane
// order, spells its old value (the memory's word, read like an LD of that lane) and then its
// new memory value (op(old, b) on the ALU, the old value read back from d); DONE ends the
// step. Each value's last token commits it: the old one to d, the new one to c (the
// lowering's atom.new register), which the store path writes into that lane's bytes at the
// same position — where the next lane's read sees it.
#pragma once

#include "qgpu/compiler/commit.h"
#include "qgpu/compiler/sequencer.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

struct AtomicStepWires {
  WireId inStep = 0;   // the last prefix is ATOMIC: inside an atomic step (its ATOMIC included)
  Bus values;          // [values since ATOMIC >= 1..8] (CHUNK-LASTs, this token's included)
  WireId oldNext = 0;  // inside, an even count: an old value (or DONE) is next; the memory is read
  WireId newNext = 0;  // inside, an odd count: a new value is next; port a reads d
  Bus lanes;           // the step's lanes: an ACTIVE token's right before ATOMIC, else the running ones
  Bus spelled;         // per lane: its value is the one being spelled (rank floor(count / 2))
  Bus oldCommit;       // per lane: this token ends its old value (it goes to d)
  Bus newCommit;       // per lane: this token ends its new value (it goes to c and memory)
  WireId anyOldCommit = 0, anyNewCommit = 0;
  Expr done;           // >= 0 exactly where every lane's two values are in (DONE is next): with inStep
};

/// The atomic step's wires on the sequencer `s` and the token's write features `f`.
AtomicStepWires buildAtomicStep(Circuit& c, const SequencerWires& s, const WriteFeatures& f);

/// [the word's op is ATOM or ATOMS]: a sum of two exclusive steps on the op bits.
Expr isAtomicWord(Circuit& c, const std::string& name, const Bus& word);

}  // namespace qgpu::compiler
