// Test helper of the compiler tests: the lowered corpus runs (and a kernel of guarded
// register writes) executed once on the reference executor, as the machine step's units
// see them — positions, the register reads the executor implies — and a compiled unit
// checked against such positions through the engine.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine_run.h"
#include "qgpu/compiler/emit.h"
#include "qgpu/launch_spec.h"
#include "qgpu/compiler/units.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/isa.h"
#include "qgpu/model/model.h"

namespace qgpu::compiler {

// One lowered corpus run, executed once: its prompt, its generated tokens and its warps'
// valid lanes (full warps and the next one's lanes, as the sequencer takes them).
struct CorpusRun {
  std::string name;
  machine::MachineProgram program;
  std::vector<uint32_t> prompt, tokens, valid;
  uint32_t full = 0, tail = 0;
  std::vector<machine::RegisterWrite> writes;
  std::vector<size_t> stepStarts;  // each step's first token
  std::vector<machine::StepState> steps;
  Dim3 grid, block;
};
/// Every lowered corpus run (W=4, both PTX flavours), then the guarded-writes kernel in 4 and
/// 6 threads (predicated_writes_4, predicated_writes_6) — in CI those of at most
/// kCiWalkTokens generated tokens (the walks over them take minutes each; the long runs —
/// sha256_round, mandelbrot, crc32, collatz nvcc, prime_sieve clang, int64_arith, gcd and
/// fdiv_sqrt_rcp (division micro-code, which int_divrem and layernorm walk in CI) — are
/// walked by the nightly label, QGPU_WALK_ALL=1). 27,000 keeps CI's walks near 425,000
/// positions.
const std::vector<CorpusRun>& corpusRuns();
constexpr size_t kCiWalkTokens = 27'000;
/// Whether corpusRuns() holds every run (QGPU_WALK_ALL set), not the CI subset.
bool walksEveryRun();
/// The lowered corpus runs corpusRuns() leaves out (longer than kCiWalkTokens; 0 with
/// QGPU_WALK_ALL): a walk's count of runs plus these is the corpus's.
size_t corpusRunsLeftOut();

/// The index of the run's first atomic step's first token (the tokens' count if none) — with
/// `writesRegister`, of the first whose old values go to a register: the compiled step does
/// not take an atomic's tokens yet (docs/compiler.md §8), so the joined units' tests stop at
/// the first, and the front's (which only must not commit a reduction's values) at the second.
size_t firstAtomicStep(const CorpusRun& r, bool writesRegister = false);

/// The executor's register write of the step whose first token is `firstToken`: the one whose
/// last token lies among the step's tokens (nothing where it writes none: no lane active).
const machine::RegisterWrite* writeOfStep(const CorpusRun& r, size_t firstToken);

/// The executor's registers as the compiled register file holds them (each write cut to its
/// width), for a test that follows a run's writes.
class ShadowRegisters {
 public:
  explicit ShadowRegisters(const CorpusRun& r) : regs_(r.program.numRegs), values_(r.valid.size() * regs_ * 4, 0) {}
  void commit(const machine::RegisterWrite& w, uint32_t warp);
  uint64_t value(uint32_t warp, uint32_t reg, uint32_t lane) const { return values_.at((warp * regs_ + reg) * 4 + lane); }

 private:
  uint32_t regs_;
  std::vector<uint64_t> values_;
};

// A run as positions: `positions[from..]` are checked (before it, the prompt before GO).
struct Stream {
  std::string name;
  std::vector<Position> positions;
  size_t from = 0;
};

// A compiled unit proven, with its counter heads and lookups counted.
struct Proven {
  CompiledUnit cu;
  size_t counterHeads = 0, lookups = 0;
};
/// Compiles and proves `u` (a test failure if it does not fit hidden `maxHidden`: the 2B's
/// 2048 unless a test says why not).
Proven compileAndProve(const Unit& u, int maxHidden = 2048);

/// A message for a position whose outputs differ from the expected ones.
using DiffDescriber = std::function<std::string(const std::vector<int64_t>& got, const std::vector<int64_t>& want)>;
/// The first few differing outputs by index.
std::string firstDifferences(const std::vector<int64_t>& got, const std::vector<int64_t>& want);

// `seq` through the engine from an empty state, prefilled in pieces of 512 positions (the
// attention layer is quadratic); checks every position from `from` on against its expected
// outputs and returns how many it checked.
size_t checkInPieces(const CompiledUnit& cu, const model::Model& m, const std::vector<Position>& seq, size_t from,
                     const DiffDescriber& describe = firstDifferences);

// The weights against the IR at every position and every output, on the streams that
// `streamOf` makes of the corpus runs `fits` takes (at least `minRuns` of them); the count of
// positions checked is recorded as `property`.
template <class Fits, class StreamOf>
void engineEqualsTheIrOn(const Unit& u, const CompiledUnit& cu, Fits&& fits, StreamOf&& streamOf, size_t minRuns,
                         const char* property) {
  model::Model sparse = load(cu, 1.0);
  size_t positions = 0, runs = 0;
  for (const CorpusRun& r : corpusRuns()) {
    if (!fits(r)) continue;
    Stream s = streamOf(r);
    Evaluator ev(u.circuit);
    for (Position& q : s.positions) q.expected = ev.stepOutputs(q.inputs);
    ++runs;
    const size_t checked = checkInPieces(cu, sparse, s.positions, 0);
    ASSERT_EQ(checked, s.positions.size()) << r.name;
    positions += checked;
  }
  EXPECT_GE(runs, minRuns);
  testing::Test::RecordProperty(property, static_cast<int>(positions));
}

// On the runs of up to 1,000 generated tokens (the IR is the executor's where the executor
// decides: each unit's IR test).
template <class StreamOf>
void engineEqualsTheIr(const Unit& u, const CompiledUnit& cu, StreamOf&& streamOf) {
  engineEqualsTheIrOn(u, cu, [](const CorpusRun& r) { return r.tokens.size() <= 1000; }, streamOf, 10, "engine_tokens");
}

// On whole launches, prompt included, of up to `maxPositions` positions (the joined front
// end's units, whose prompt holds the program; at least 4 runs).
template <class StreamOf>
void engineEqualsTheIrOnLaunches(const Unit& u, const CompiledUnit& cu, StreamOf&& streamOf, size_t maxPositions = 1500) {
  engineEqualsTheIrOn(u, cu, [&](const CorpusRun& r) { return r.prompt.size() + r.tokens.size() <= maxPositions; },
                      streamOf, 4, "engine_positions");
}

// A corpus run as register-file positions: GO, then every token. The write: the executor's
// register write whose last token this is (its values, lanes and register); the warp: the
// stream's after the token; the reads: at a step's first position (the position of the token
// before the step), its instruction's register operands. `want` holds, per position, the
// outputs the executor decides: (output index, bit), from a shadow register file.
struct RegisterStream {
  Stream stream;
  std::vector<std::vector<std::pair<size_t, int64_t>>> want;
  size_t reads = 0;
};
/// Nothing if the run's warps x 2^k register slots do not fit the register file.
std::optional<RegisterStream> registerStream(const CorpusRun& r);

// A step as the units computed at its first position see it: its state and instruction, each
// source operand a, b, c per lane as the executor reads it (0 for a field that is no operand),
// and its guard's predicate per lane (the guard register's bit 0; 0 without a guard).
struct ComputedStep {
  const machine::StepState* state = nullptr;
  machine::MInstr in;
  std::array<std::array<uint64_t, 4>, 3> operand{};
  uint32_t predicates = 0;
};
// A corpus run as front-end positions (frontInputs): the prompt (its last token GO), then
// every generated token up to the first atomic register write (whose old values the pending
// write does not rebuild, docs/machine.md §5.2); the step computed at each position, if any.
struct StepStream {
  Stream stream;
  std::vector<std::optional<ComputedStep>> steps;  // per position
};
/// A hand-written kernel of compiler/test/data (`file`, ptxas-checked) as a launch spec in a
/// temporary folder: entry `entry`, one block of 4 threads, one u32 output buffer `out` of
/// `outWords` words.
LaunchSpec dataKernelLaunch(const std::string& file, const std::string& entry, uint32_t outWords);
/// The data kernel (dataKernelLaunch) through `backend` ("circuit", "model") at W=4 beside the
/// interpreter: one output each, equal bytes, and the stream the reference executor's at every
/// token (each a gtest failure where not); the backend's output as u32 words.
std::vector<uint32_t> dataKernelWordsEqualTheInterpreter(const std::string& backend, const std::string& file,
                                                         const std::string& entry, uint32_t outWords);

/// Up to the run's first atomic step, or with `throughAtomics` to its end (the joined step
/// computes atomics: its register copies take their values lane by lane, as the trace has them).
StepStream stepStream(const CorpusRun& r, bool throughAtomics = false);


}  // namespace qgpu::compiler
