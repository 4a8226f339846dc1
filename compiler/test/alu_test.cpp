// The machine step's integer ALU (alu.h) joined on the operand select and the front end, and
// its register write spelled (register_write.h), fed nothing but each token's features,
// against the reference executor: at every step's first position of the lowered corpus runs
// (and the guarded-writes kernel), each lane's result of an ALU op as machine::computeLane
// gives it for the operands the executor reads (SHFL's as the executor exchanges lanes), 0
// for every other op, and the active lanes (machine::guardedMask); at every position inside
// an ALU step's register write, the next token of the executor's stream, whether it is the
// write's last and its index; then the weights against the IR in the engine.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <span>

#include "corpus_runs.h"
#include "qgpu/compiler/alu.h"
#include "qgpu/compiler/machine_step.h"
#include "qgpu/compiler/machine_vocabulary.h"
#include "qgpu/compiler/model_run.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/model/generate.h"
#include "qgpu/compiler/register_write.h"
#include "qgpu/machine/control.h"
#include "qgpu/machine/isa.h"
#include "qgpu/machine/tokens.h"
#include "qgpu/machine/units.h"

namespace qgpu::compiler {
namespace {

constexpr size_t kActiveAt = 4 * 64, kUndefinedAt = kActiveAt + 4;
// alu_write's outputs after aluUnit's: the token's kind, value, last, the index.
constexpr size_t kKindAt = kAluOutputs, kValueAt = kKindAt + kWriteTokenKinds, kLastAt = kValueAt + 16,
                 kIndexAt = kLastAt + 1, kOtherAt = kIndexAt + 16;

// The token the position must spell: the stream's next token — a write's (its index, whether
// it is the last) or the step's ACTIVE m or DONE in its place.
struct WantToken {
  uint32_t id = 0;
  bool last = false;
  uint32_t index = 0;
  bool write = true;
  bool control = false;  // a control token or DONE (step_control.h): the index is not checked
};

struct AluStream {
  Stream stream;
  std::vector<std::vector<std::pair<size_t, int64_t>>> want;  // per position: (output, bit)
  std::vector<std::optional<WantToken>> token;               // per position
  std::map<machine::MOp, size_t> computed;  // ALU steps checked, by op
  size_t others = 0;                        // steps of other ops (their results must be 0)
  size_t writeTokens = 0;                   // ALU write tokens checked
  size_t activeTokens = 0, doneTokens = 0;  // ALU steps' ACTIVE m and DONE checked
  std::map<std::string, size_t> control;    // control tokens and DONE checked, by what decides them
};

// What a stream token is, for the coverage tally: its class in the machine vocabulary.
std::string tokenClass(uint32_t id) {
  static const TokenVocabulary v = machineVocabulary(machine::kTextVocab);
  for (const TokenClass& k : v.classes)
    if (id >= k.firstId && id < k.firstId + k.ids()) return k.name;
  return "?";
}

// `joined`: the positions as the joined step (machine_step.h) sees them — LD and the float lane's ops
// computed too (an LD's written lanes at its first position; a float lane's result at its own
// position, parked), else as alu_write sees them (their results 0).
AluStream aluStream(const CorpusRun& r, bool joined = false) {
  StepStream ss = stepStream(r, joined);
  AluStream as{std::move(ss.stream), {}, {}, {}, 0, 0, 0, 0, {}};
  auto computes = [&](const machine::MInstr& in) { return joined ? stepComputes(in) : aluComputes(in); };
  // alu_write does not take an atomic's tokens (it has no memory): checked up to the first
  // atomic step; the joined step up to the first atomic it does not compute (a CAS's new
  // value, for one, reaches neither a register nor memory: the banks would differ after it).
  size_t end = joined ? r.tokens.size() : firstAtomicStep(r);
  if (joined)
    for (const machine::StepState& s : r.steps) {
      const machine::MInstr& in = r.program.code.at(s.pc);
      if (machine::opInfo(in.op).exec == machine::MExec::Atomic && !atomicComputes(in)) {
        end = s.firstToken;
        break;
      }
    }
  const size_t first = r.prompt.size();
  as.want.resize(ss.steps.size());
  for (size_t p = 0; p < ss.steps.size(); ++p) {
    const std::optional<ComputedStep>& step = ss.steps[p];
    if (step && step->state->firstToken >= end) break;
    std::vector<std::pair<size_t, int64_t>>& want = as.want[p];
    if (step) {
      const machine::MInstr& in = step->in;
      const bool alu = aluComputes(in);
      const uint32_t active = machine::guardedMask(step->state->mask, in.g != machine::kNoGuard,
                                                   (in.g & machine::kGuardNegated) != 0, step->predicates);
      const auto& x = step->operand;
      for (uint32_t l = 0; l < 4; ++l) want.push_back({kActiveAt + l, (active >> l) & 1});
      if ((joined && in.op == machine::MOp::Ld) || in.op == machine::MOp::Vote) {
        // The lanes written, their values cut to the width (the other lanes read anything;
        // VOTE's members are the executor's live lanes, which the step reads from its slot).
        if (const machine::RegisterWrite* wr = writeOfStep(r, step->state->firstToken))
          for (uint32_t l = 0; l < 4; ++l)
            if ((wr->lanes >> l) & 1)
              for (uint32_t b = 0; b < 64; ++b)
                want.push_back({64 * l + b, b < 8 * wr->bytes ? static_cast<int64_t>((wr->values[l] >> b) & 1) : 0});
        ++as.computed[in.op];
        continue;
      }
      if (joined && floatLaneComputes(in)) {
        // One active lane per position, in lane order: its result parked in its lane's outputs.
        size_t at = p;
        for (uint32_t l = 0; l < 4 && at < ss.steps.size(); ++l) {
          if (!((active >> l) & 1)) continue;
          const uint64_t v = machine::computeLane(in, x[0][l], x[1][l], x[2][l]);  // 32 bits but F2D's
          for (uint32_t b = 0; b < 64; ++b) as.want[at].push_back({64 * l + b, static_cast<int64_t>((v >> b) & 1)});
          ++at;
        }
        ++as.computed[in.op];
        continue;
      }
      for (uint32_t l = 0; l < 4; ++l) {
        uint64_t v = 0;
        if (in.op == machine::MOp::Shfl) {
          // Every lane's mux, executing or not: the source lane's a (none beyond lane 3). An
          // executing lane's source executes too (or the executor stops: undefined).
          const uint32_t src = machine::shuffleSource(in.fl & 3, l, static_cast<uint32_t>(x[1][l]), static_cast<uint32_t>(x[2][l]));
          v = src < 4 ? x[0][src] & 0xffffffffu : 0;
          if ((active >> l) & 1) want.push_back({kUndefinedAt + l, 0});
        } else if (alu) {
          v = machine::computeLane(in, x[0][l], x[1][l], x[2][l]);
        }
        for (uint32_t b = 0; b < 64; ++b) want.push_back({64 * l + b, static_cast<int64_t>((v >> b) & 1)});
      }
      if (alu) ++as.computed[in.op];
      else ++as.others;
    }
  }
  // The register writes of ALU steps, token by token: the position before each token spells it.
  as.token.resize(as.want.size());
  for (const machine::RegisterWrite& w : r.writes) {
    if (w.atomic || w.lastToken >= end) continue;
    const size_t n = machine::encodeWrite(w.values, w.lanes, w.bytes).size();
    const size_t t0 = w.lastToken + 1 - n;
    // The step whose tokens these are: the last to start at or before t0 (steps come in token
    // order; a scan from the front for every write was quadratic in the run's length).
    const auto after = std::upper_bound(r.steps.begin(), r.steps.end(), t0,
                                        [](size_t t, const machine::StepState& s) { return t < s.firstToken; });
    if (after == r.steps.begin() || !computes(r.program.code.at(std::prev(after)->pc))) continue;
    for (size_t t = t0; t <= w.lastToken; ++t) {
      as.token.at(first - 1 + t) = WantToken{r.tokens[t], t == w.lastToken, static_cast<uint32_t>(t - t0), true};
      ++as.writeTokens;
    }
  }
  // An ALU step's first token in the write's place: ACTIVE m (the guard off in some running
  // lanes) or DONE (no lane active).
  for (const machine::StepState& s : r.steps) {
    if (s.firstToken >= end || !computes(r.program.code.at(s.pc))) continue;
    const uint32_t id = r.tokens[s.firstToken];
    const bool active = machine::isActiveToken(id), done = id == machine::ctl(machine::Ctl::Done);
    if (!active && !done) continue;
    as.token.at(first - 1 + s.firstToken) = WantToken{id, false, 0, false};
    ++(active ? as.activeTokens : as.doneTokens);
  }
  // The tokens step_control.h decides: DONE of an EXIT or BAR, or of a step with no active lane
  // (not BRA, CALL); a lane-serial step's WAITs (and its ACTIVE after them); a store's WAITs
  // and DONE (one position per active lane); a BRA's outcome at
  // any SIMT depth (its sync tokens, a DEPTH's TOP too) when its warp runs on; the TOP (and
  // DEPTH) of a pop at a step's end; a GOTO after a step that is no BRA or CALL (the pc
  // checkpoint).
  const uint32_t done = machine::ctl(machine::Ctl::Done);
  auto claim = [&](size_t t, const char* why) {
    std::optional<WantToken>& slot = as.token.at(first - 1 + t);
    if (slot) return;  // an ALU step's, claimed above
    slot = WantToken{r.tokens[t], false, 0, false, true};
    ++as.control[why];
  };
  size_t firstBarrier = r.steps.size();  // the first BAR step: warps switch at barriers from there
  for (size_t i = 0; i < r.steps.size() && firstBarrier == r.steps.size(); ++i)
    if (r.program.code.at(r.steps[i].pc).op == machine::MOp::Bar) firstBarrier = i;
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const machine::StepState& s = r.steps[i];
    if (s.firstToken >= end) break;
    const std::optional<ComputedStep>& step = ss.steps.at(first - 1 + s.firstToken);
    if (!step) continue;
    const machine::MInstr& in = step->in;
    const uint32_t active = machine::guardedMask(s.mask, in.g != machine::kNoGuard, (in.g & machine::kGuardNegated) != 0,
                                                 step->predicates);
    const bool bra = in.op == machine::MOp::Bra, call = in.op == machine::MOp::Call;
    if (r.tokens[s.firstToken] == done && (in.op == machine::MOp::Exit || in.op == machine::MOp::Bar))
      claim(s.firstToken, "DONE of EXIT or BAR");
    // An EXIT at depth 1 that every running lane takes retires its warp: HALT in place of its
    // DONE where it ends the launch, else the next warp's WARP-START or the next block's BLOCK
    // right after — while warps run one after another (no barrier so far).
    if (in.op == machine::MOp::Exit && s.depth == 1 && active == s.mask && i < firstBarrier) {
      if (r.tokens[s.firstToken] == machine::ctl(machine::Ctl::Halt)) claim(s.firstToken, "HALT");
      else if (s.firstToken + 1 < end) claim(s.firstToken + 1, "WARP-START or BLOCK after a retiring EXIT");
    }
    else if (r.tokens[s.firstToken] == done && active == 0 && !bra && !call)
      claim(s.firstToken, "DONE, no lane active");
    // A lane-serial step: a WAIT at each active lane's position but the last, then its ACTIVE m.
    if (machine::opInfo(in.op).exec == machine::MExec::LaneSerial && active != 0) {
      size_t t = s.firstToken;
      for (; t < end && r.tokens[t] == machine::ctl(machine::Ctl::Wait); ++t) claim(t, "WAIT");
      if (t < end && machine::isActiveToken(r.tokens[t])) claim(t, "ACTIVE of a lane-serial step");
    }
    // A store: a WAIT at each active lane's position but the last, then DONE (§5.3).
    if (in.op == machine::MOp::St && active != 0) {
      size_t t = s.firstToken;
      for (; t < end && r.tokens[t] == machine::ctl(machine::Ctl::Wait); ++t) claim(t, "WAIT of a store lane");
      if (t < end && r.tokens[t] == done) claim(t, "DONE of a store");
    }
    const bool runsOn = i + 1 < r.steps.size() && r.steps[i + 1].block == s.block && r.steps[i + 1].warp == s.warp &&
                        s.firstToken < r.steps[i + 1].firstToken;
    // A BRA's outcome at any depth (its sync tokens, a DEPTH's TOP too), CALLs' entries on
    // the stack or not.
    if (bra && runsOn) {
      const char* why = s.depth == 1 ? "BRA at depth 1" : "BRA deeper than depth 1";
      claim(s.firstToken, why);
      if (tokenClass(r.tokens[s.firstToken]) == "depth") claim(s.firstToken + 1, why);
    }
    // A CALL's: the TOP of the callee's entry, a DEPTH first where it is deeper than 2 and not
    // the last DEPTH's.
    if (call && runsOn) {
      size_t t = s.firstToken;
      if (tokenClass(r.tokens[t]) == "depth") claim(t++, "DEPTH of a CALL");
      claim(t, "TOP of a CALL");
    }
    // The TOP after a step (no BRA) that ends where its entry reconverges: a pop to the entry
    // under it, a DEPTH first where that is deeper than 2 and not the last DEPTH's.
    if (!bra && !call && runsOn && s.depth >= 2 && r.steps[i + 1].depth == s.depth - 1) {
      size_t t = s.firstToken;
      auto isTop = [&](size_t x) {
        const std::string k = tokenClass(r.tokens[x]);
        return k == "top_depth1" || k == "top_depth2" || k == "top_deeper";
      };
      while (t < r.steps[i + 1].firstToken && t < end && !isTop(t)) ++t;
      if (t < r.steps[i + 1].firstToken && t < end) {
        claim(t, s.depth == 2 ? "TOP of a pop to depth 1" : "TOP of a pop deeper");
        if (tokenClass(r.tokens[t - 1]) == "depth") claim(t - 1, "DEPTH of a pop");
      }
    }
  }
  // An atomic the step computes (atomicComputes): its ACTIVE, ATOMIC, each lane's old and new
  // value token by token (the index restarts at each value), its DONE.
  for (const machine::StepState& s : r.steps) {
    const machine::MInstr& in = r.program.code.at(s.pc);
    if (!joined || s.firstToken >= end || !atomicComputes(in) || r.tokens[s.firstToken] == done) continue;
    size_t t = s.firstToken;
    if (machine::isActiveToken(r.tokens[t])) claim(t++, "ACTIVE of an atomic");
    claim(t++, "ATOMIC");
    for (uint32_t index = 0; t < end && r.tokens[t] != done; ++t) {
      const bool last = tokenClass(r.tokens[t]) == "chunk_last";
      std::optional<WantToken>& slot = as.token.at(first - 1 + t);
      if (!slot) {
        slot = WantToken{r.tokens[t], last, index, true};
        ++as.control["atomic value token"];
      }
      index = last ? 0 : index + 1;
    }
    if (t < end) claim(t, "DONE of an atomic");
  }
  for (size_t t = 1; t < end; ++t) {
    if (tokenClass(r.tokens[t]) != "goto") continue;
    // The step this token's sync follows: a BRA's or CALL's own tokens are the sync after it
    // (its firstToken is the sync's first token), any other step ended before the sync.
    const auto after = std::upper_bound(r.steps.begin(), r.steps.end(), t,
                                        [](size_t x, const machine::StepState& s) { return x < s.firstToken; });
    if (after == r.steps.begin()) continue;
    const machine::MOp op = r.program.code.at(std::prev(after)->pc).op;
    if (op != machine::MOp::Bra && op != machine::MOp::Call) claim(t, "GOTO checkpoint");
  }
  return as;
}

// The token the outputs spell (register_write.h's spelledToken), or why they name none.
std::string spelled(const std::vector<int64_t>& got) {
  const SpelledToken t = spelledToken(got, kKindAt);
  return t.id ? machine::tokenName(*t.id) : t.why;
}

std::string describeOutput(size_t i) {
  return i < kActiveAt      ? fmt::format("lane {} result bit {}", i / 64, i % 64)
         : i < kUndefinedAt ? fmt::format("lane {} active", i - kActiveAt)
                            : fmt::format("lane {} SHFL undefined", i - kUndefinedAt);
}

// Every run through `u` (alu_write's outputs) in the IR, position by position: the results
// and tokens aluStream(r, joined) wants, the coverage of the next token by class.
void walkTheCorpus(const Unit& u, bool joined) {
  const std::string tag = joined ? "[ step ] " : "[ alu ] ";
  size_t runs = 0, others = 0, writeTokens = 0, activeTokens = 0, doneTokens = 0;
  std::map<machine::MOp, size_t> computed;
  std::map<std::string, size_t> control;
  // Every generated token, by class: how many, and how many the IR spells at the position before.
  std::map<std::string, std::pair<size_t, size_t>> coverage;
  for (const CorpusRun& r : corpusRuns()) {
    const AluStream as = aluStream(r, joined);
    Evaluator ev(u.circuit);
    const size_t first = r.prompt.size();
    for (size_t p = 0; p < as.stream.positions.size(); ++p) {
      const std::vector<int64_t> got = ev.stepOutputs(as.stream.positions[p].inputs);
      ASSERT_EQ(got.size(), kAluWriteOutputs);
      if (p + 1 >= first && p + 1 < as.stream.positions.size()) {
        const uint32_t next = r.tokens[p + 1 - first];
        auto& [n, right] = coverage[tokenClass(next)];
        ++n;
        right += spelled(got) == machine::tokenName(next) ? 1 : 0;
      }
      for (const auto& [i, bit] : as.want[p])
        ASSERT_EQ(got[i], bit) << "IR at " << as.stream.positions[p].describe << ": " << describeOutput(i);
      if (const std::optional<WantToken>& t = as.token[p]) {
        const std::string at = t->write ? fmt::format("IR at {}: write token {}", as.stream.positions[p].describe, t->index)
                                        : fmt::format("IR at {}: the step's first token", as.stream.positions[p].describe);
        ASSERT_EQ(spelled(got), machine::tokenName(t->id)) << at;
        if (t->write) {
          ASSERT_EQ(got[kLastAt], t->last ? 1 : 0) << at;
        }
        for (uint32_t i = 0; i < 16; ++i) ASSERT_EQ(got[kIndexAt + i], t->index > i ? 1 : 0) << at << ": index bit " << i;
      }
    }
    ++runs;
    others += as.others;
    writeTokens += as.writeTokens;
    activeTokens += as.activeTokens;
    doneTokens += as.doneTokens;
    for (const auto& [op, n] : as.computed) computed[op] += n;
    for (const auto& [why, n] : as.control) control[why] += n;
  }
  EXPECT_GE(runs + corpusRunsLeftOut(), 90u);
  // (The steps with no lane active in the corpus are ALU steps, checked above: 3 DONE.)
  for (const char* why : {"DONE of EXIT or BAR", "BRA at depth 1", "BRA deeper than depth 1", "GOTO checkpoint", "WAIT",
                          "TOP of a pop to depth 1", "TOP of a pop deeper", "DEPTH of a pop", "DONE of a store", "WAIT of a store lane", "HALT",
                          "TOP of a CALL", "DEPTH of a CALL",
                          "WARP-START or BLOCK after a retiring EXIT"})
    EXPECT_GT(control[why], 0u) << why;
  if (joined) {
    for (const char* why : {"ATOMIC", "atomic value token", "DONE of an atomic"}) EXPECT_GT(control[why], 0u) << why;
  }
  size_t all = 0, right = 0;
  std::string table;
  for (const auto& [cls, nr] : coverage) {
    all += nr.first;
    right += nr.second;
    table += fmt::format("{}{} {}/{}", table.empty() ? "" : ", ", cls, nr.second, nr.first);
  }
  std::string claims;
  for (const auto& [why, n] : control) claims += fmt::format("{}{} {}", claims.empty() ? "" : ", ", why, n);
  testing::Test::RecordProperty("generated_tokens", static_cast<int>(all));
  testing::Test::RecordProperty("spelled_by_the_ir", static_cast<int>(right));
  std::cout << tag << "control tokens and DONE checked: " << claims << "\n" << tag << "the next token spelled at "
            << right << " of " << all << " generated positions (" << fmt::format("{:.1f}", 100.0 * static_cast<double>(right) / static_cast<double>(std::max<size_t>(all, 1)))
            << " %); by class: " << table << "\n";
  std::string counts;
  size_t total = 0;
  for (const auto& [op, n] : computed) {
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", machine::opName(op), n);
    total += n;
  }
  // The corpus's integer steps: every op of the ALU occurs.
  for (machine::MOp op : {machine::MOp::Add, machine::MOp::Sub, machine::MOp::And, machine::MOp::Or, machine::MOp::Xor,
                          machine::MOp::Mov, machine::MOp::Selp, machine::MOp::Setp, machine::MOp::Shfl,
                          machine::MOp::MulLo, machine::MOp::MulHi, machine::MOp::MulWide, machine::MOp::MadLo,
                          machine::MOp::Shr, machine::MOp::Shl, machine::MOp::Shf, machine::MOp::Neg,
                          machine::MOp::CvtI})
    EXPECT_GT(computed[op], 0u) << machine::opName(op);
  if (joined) {
    // (in CI's runs, without mandelbrot's floats: FADD 628, FMUL 382 steps)
    for (machine::MOp op : {machine::MOp::Ld, machine::MOp::FAdd, machine::MOp::FMul, machine::MOp::FFma})
      EXPECT_GT(computed[op], walksEveryRun() ? 1000u : 300u) << machine::opName(op);
    EXPECT_GT(computed[machine::MOp::F2D], 0u);
  }
  EXPECT_GT(total, 50000u);
  EXPECT_GT(writeTokens, 50000u);
  // Measured: 12 ACTIVE (the guarded-writes kernels and the corpus's few guarded ALU steps), 3 DONE.
  EXPECT_GT(activeTokens, 0u);
  EXPECT_GT(doneTokens, 0u);
  testing::Test::RecordProperty("alu_steps", static_cast<int>(total));
  testing::Test::RecordProperty("other_steps", static_cast<int>(others));
  testing::Test::RecordProperty("alu_write_tokens", static_cast<int>(writeTokens));
  testing::Test::RecordProperty("alu_active_tokens", static_cast<int>(activeTokens));
  testing::Test::RecordProperty("alu_done_tokens", static_cast<int>(doneTokens));
  std::cout << tag << runs << " runs: " << total << (joined ? " steps (" : " ALU steps (") << counts << "), " << others
            << " steps of other ops (result 0), x 4 lanes x 64 bits; " << writeTokens << " tokens of register writes, "
            << activeTokens << " ACTIVE and " << doneTokens << " DONE in their place\n";
}

TEST(Alu, TheIrComputesAndSpellsEveryIntegerStepFromTheTokens) { walkTheCorpus(aluWriteUnit(), false); }

// The joined step (machine_step.h): every step the ALU, the memory and the lane-serial float
// datapath compute, its results and its register write's tokens, and the control tokens.
TEST(MachineStep, TheIrComputesAndSpellsEveryStepFromTheTokens) { walkTheCorpus(machineStepUnit(), true); }

// The weights against the IR at every position and every output: the launches of up to
// 1,500 positions, prompt included, at the 2B's hidden size.
TEST(Alu, CompiledThroughTheEngine) {
  Unit u = aluWriteUnit();
  const Proven p = compileAndProve(u, 2048);
  const CompiledUnit& cu = p.cu;
  RecordProperty("layers", cu.config.numLayers);
  RecordProperty("hidden", cu.config.hiddenSize);
  std::cout << "[ alu_write ] " << cu.config.numLayers << " layers, hidden " << cu.config.hiddenSize << "\n";
  engineEqualsTheIrOnLaunches(u, cu, [](const CorpusRun& r) { return stepStream(r).stream; });
}

// Token in, token out: the unit with the token head on the tokens it decides, embedded from
// the machine ids (each row what frontInputs gives that id) — the launches fed as token ids,
// and at every position before a token the IR test checks (an ALU write's, ACTIVE or DONE in
// its place, the control tokens and DONE of step_control.h), the engine's greedy argmax is
// that token.
TEST(Alu, TheWeightsSpellItsWritesFromTokenIds) {
  const TokenVocabulary v = machineVocabulary(0);
  Unit u = aluWriteUnit(&v);
  const CompiledUnit cu = compileCircuit(u.circuit, machineEmitOptions(v));
  ASSERT_EQ(cu.config.hiddenSize, 2048);
  ASSERT_EQ(cu.config.vocabSize, int64_t{machine::kNumMachineIds});
  const ProofReport proof = proveExact(cu);
  EXPECT_GT(proof.minMargin, 0);
  const model::Model m = load(cu, 1.0);  // the sparse path (a density threshold of 1: every matrix)
  size_t runs = 0, checked = 0, instead = 0, control = 0;
  for (const CorpusRun& r : corpusRuns()) {
    if (r.prompt.size() + r.tokens.size() > 1200 || runs == 8) continue;
    const AluStream as = aluStream(r);
    // Six launches, and those whose ALU steps say ACTIVE or DONE (the guarded writes).
    if (runs >= 6 && as.activeTokens + as.doneTokens == 0) continue;
    instead += as.activeTokens + as.doneTokens;
    for (const auto& [why, n] : as.control) control += n;
    ASSERT_EQ(as.token.size(), as.stream.positions.size());
    std::vector<int> ids;
    for (size_t p = 0; p < as.stream.positions.size(); ++p) {
      const uint32_t id = p < r.prompt.size() ? r.prompt[p] : r.tokens[p - r.prompt.size()];
      ids.push_back(static_cast<int>(id - machine::kTextVocab));
    }
    model::DecodeState st = m.newState();
    constexpr size_t kPiece = 256;
    for (size_t from = 0; from < ids.size(); from += kPiece) {
      const size_t n = std::min(kPiece, ids.size() - from);
      const Eigen::MatrixXf logits = m.forward(st, std::span<const int>(ids.data() + from, n));
      for (size_t i = 0; i < n; ++i) {
        const std::optional<WantToken>& t = as.token[from + i];
        if (!t) continue;
        const int got = model::argmaxToken(logits.col(static_cast<Eigen::Index>(i)));
        ASSERT_EQ(static_cast<uint32_t>(got) + machine::kTextVocab, t->id)
            << "engine at " << as.stream.positions[from + i].describe << ": want " << machine::tokenName(t->id) << ", got "
            << machine::tokenName(static_cast<uint32_t>(got) + machine::kTextVocab);
        ++checked;
      }
    }
    ++runs;
  }
  EXPECT_GE(runs, 4u);
  EXPECT_GT(checked, 500u);
  EXPECT_GT(instead, 0u);
  EXPECT_GT(control, 0u);
  RecordProperty("tokens", static_cast<int>(checked));
  RecordProperty("control_tokens", static_cast<int>(control));
  std::cout << "[ alu_write head ] " << runs << " launches fed as token ids: " << checked << " tokens (ALU steps' writes, "
            << instead << " ACTIVE or DONE in their place, " << control
            << " control tokens and DONE: step_control.h) are the argmax at their positions\n";
}

}  // namespace
}  // namespace qgpu::compiler
