// Test helper of the compiler tests (corpus_runs.h): the corpus runs, executed once.
#include "corpus_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "machine_test_util.h"
#include "qgpu/backend.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/compiler/operand_select.h"
#include "qgpu/compiler/register_file.h"
#include "qgpu/compiler/step_front.h"
#include "qgpu/compiler/write_form.h"
#include "qgpu/interp/error.h"
#include "qgpu/launch_spec.h"
#include "qgpu/machine/lower.h"
#include "qgpu/machine/prompt.h"
#include "qgpu/machine/stream_state.h"
#include "qgpu/machine/tokens.h"
#include "qgpu/machine/units.h"

namespace qgpu::compiler {
namespace {

// Register writes guarded so that some running lanes keep their values, in every write form
// (uniform, AFFINE, PACK4, LANES, LANES-HIGH; 4 and 8 bytes; no lane on) and inside a
// divergent region: the corpus has none (nvcc and clang guard stores and branches, not
// register writes), and they are the steps that say ACTIVE. Its NEG keeps that ALU op in
// CI's walks (the corpus's are in crc32 and int64_arith, which the nightly walk takes).
constexpr const char* kPredicatedWrites = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry pw(.param .u64 out) {
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r9, %r1, 3;
  mov.u32 %r2, 1000;
  mov.u32 %r3, 5;
  mov.u32 %r4, 6;
  mov.u32 %r5, 7;
  mov.u32 %r6, 8;
  mov.u64 %rd3, 9;
  setp.ne.u32 %p1, %r9, 1;
  setp.gt.u32 %p2, %r9, 7;
  @%p1 mov.u32 %r2, 77777;
  @%p1 mul.lo.u32 %r3, %r1, 12345;
  @%p1 mul.lo.u32 %r4, %r9, %r9;
  mul.lo.u32 %r7, %r4, 100003;
  @%p1 add.u32 %r5, %r7, 1;
  @%p1 shl.b32 %r6, %r4, 16;
  @%p1 neg.s32 %r6, %r6;
  @%p1 mul.wide.u32 %rd3, %r7, 40503;
  @%p2 mov.u32 %r2, 3;
  mov.b32 %f1, %r7;
  @%p1 mul.rn.f32 %f2, %f1, %f1;
  @%p1 fma.rn.f32 %f3, %f1, %f1, %f1;
  setp.lt.u32 %p3, %r9, 3;
  @!%p3 bra DONE;
  setp.eq.u32 %p1, %r9, 0;
  @%p1 add.u32 %r3, %r3, 70000;
  @%p1 mov.u32 %r4, 2;
DONE:
  mul.wide.u32 %rd2, %r1, 48;
  add.u64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r2;
  st.global.u32 [%rd2+4], %r3;
  st.global.u32 [%rd2+8], %r4;
  st.global.u32 [%rd2+12], %r5;
  st.global.u32 [%rd2+16], %r6;
  st.global.u64 [%rd2+24], %rd3;
  st.global.f32 [%rd2+32], %f2;
  st.global.f32 [%rd2+36], %f3;
  ret;
}
)";

CorpusRun runOf(std::string name, machine::MachineProgram program, const machine::MachineLaunch& ml) {
  CorpusRun r{std::move(name), std::move(program), {}, {}, {}, 0, 0, {}, {}, {}, ml.grid, ml.block};
  r.prompt = machine::encodePrompt(r.program, ml);
  machine::Trace trace = machine::execute(r.program, ml).trace;
  r.tokens = std::move(trace.tokens);
  r.writes = std::move(trace.writes);
  for (const machine::StepState& st : trace.stepStates) r.stepStarts.push_back(st.firstToken);
  r.steps = trace.stepStates;
  const uint32_t threads = static_cast<uint32_t>(ml.block.count());
  for (uint32_t w = 0; w * 4 < threads; ++w) r.valid.push_back((1u << std::min(4u, threads - 4 * w)) - 1);
  r.full = threads / 4;
  r.tail = (1u << (threads % 4)) - 1;
  return r;
}

}  // namespace

bool walksEveryRun() { return std::getenv("QGPU_WALK_ALL") != nullptr; }

namespace {
size_t leftOut = 0;
}  // namespace

size_t corpusRunsLeftOut() {
  (void)corpusRuns();
  return leftOut;
}

const std::vector<CorpusRun>& corpusRuns() {
  static const std::vector<CorpusRun> runs = [] {
    std::vector<CorpusRun> out;
    for (const auto& c : machine::test::corpusCases()) {
      LaunchSpec spec = loadLaunchSpec(c.dir);
      machine::MachineProgram program;
      try {
        program = machine::lowerKernel(loadProgram(spec.ptxPath(c.flavour)), spec.entry,
                                         machine::lowerFor(spec.grid, spec.block, spec.dynamicSharedBytes));
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::Decode) throw;
        continue;  // does not lower (docs/machine.md §2.4)
      }
      const machine::MachineLaunch ml = machine::machineLaunch(program, materializeLaunch(spec));
      CorpusRun r = runOf(machine::test::corpusCaseName(c), std::move(program), ml);
      if (r.tokens.size() > kCiWalkTokens && !walksEveryRun()) {
        ++leftOut;
        continue;
      }
      out.push_back(std::move(r));
    }
    // The predicated writes, in one warp of 4 and in 6 threads (a partial second warp).
    for (uint32_t threads : {4u, 6u}) {
      const Launch launch = machine::test::oneBufferLaunch(threads, 12 * threads);
      const machine::test::BothResult both = machine::test::runBoth(kPredicatedWrites, "pw", launch);
      EXPECT_EQ(both.machine, both.oracle) << "the predicated-writes kernel on the machine vs the interpreter";
      machine::MachineProgram program = both.program;
      out.push_back(runOf(fmt::format("predicated_writes_{}", threads), std::move(program),
                          machine::machineLaunch(both.program, launch)));
    }
    return out;
  }();
  return runs;
}

Proven compileAndProve(const Unit& u, int maxHidden) {
  Proven p{compileCircuit(u.circuit)};
  const ProofReport proof = proveExact(p.cu);
  for (const LayerProof& lp : proof.layers) {
    p.counterHeads += lp.counterHeads;
    p.lookups += lp.lookups;
  }
  EXPECT_LE(p.cu.config.hiddenSize, maxHidden);
  return p;
}

std::string firstDifferences(const std::vector<int64_t>& got, const std::vector<int64_t>& want) {
  std::string out;
  size_t shown = 0;
  for (size_t i = 0; i < std::max(got.size(), want.size()) && shown < 8; ++i) {
    const int64_t g = i < got.size() ? got[i] : -1, x = i < want.size() ? want[i] : -1;
    if (g == x) continue;
    out += fmt::format(" output {} is {} (expected {})", i, g, x);
    ++shown;
  }
  return out;
}

// `seq` through the engine from an empty state, prefilled in pieces of 512 positions (the
// attention layer is quadratic); checks every position from `from` on against its expected
// outputs and returns how many it checked.
size_t checkInPieces(const CompiledUnit& cu, const model::Model& m, const std::vector<Position>& seq, size_t from,
                     const DiffDescriber& describe) {
  model::DecodeState st = m.newState();
  size_t checked = 0;
  for (size_t first = 0; first < seq.size(); first += 512) {
    const size_t n = std::min<size_t>(512, seq.size() - first);
    Eigen::MatrixXf x(cu.config.hiddenSize, static_cast<Eigen::Index>(n));
    for (size_t i = 0; i < n; ++i) x.col(static_cast<Eigen::Index>(i)) = cu.residual(seq[first + i].inputs);
    const Eigen::MatrixXf logits = m.forwardEmbeddings(st, x);
    for (size_t i = 0; i < n; ++i) {
      const Position& p = seq[first + i];
      if (first + i < from) continue;
      std::vector<int64_t> got;
      EXPECT_NO_THROW(got = cu.decode(logits.col(static_cast<Eigen::Index>(i)))) << "engine at " << p.describe;
      EXPECT_EQ(got, p.expected) << "engine (sparse prefill) at " << p.describe << ":" << describe(got, p.expected);
      if (got != p.expected) return checked;
      ++checked;
    }
  }
  return checked;
}

size_t firstAtomicStep(const CorpusRun& r, bool writesRegister) {
  for (const machine::StepState& s : r.steps) {
    const machine::MInstr& in = r.program.code.at(s.pc);
    if ((in.op == machine::MOp::Atom || in.op == machine::MOp::AtomS) && (!writesRegister || in.d != machine::kNoOperand))
      return s.firstToken;
  }
  return r.tokens.size();
}

const machine::RegisterWrite* writeOfStep(const CorpusRun& r, size_t firstToken) {
  const auto next = std::upper_bound(r.steps.begin(), r.steps.end(), firstToken,
                                     [](size_t t, const machine::StepState& s) { return t < s.firstToken; });
  const size_t until = next == r.steps.end() ? r.tokens.size() : next->firstToken;
  const auto wr = std::find_if(r.writes.begin(), r.writes.end(),
                               [&](const machine::RegisterWrite& w) { return w.lastToken >= firstToken && w.lastToken < until; });
  return wr == r.writes.end() ? nullptr : &*wr;
}

void ShadowRegisters::commit(const machine::RegisterWrite& w, uint32_t warp) {
  for (uint32_t l = 0; l < 4; ++l)
    if ((w.lanes >> l) & 1) values_.at((warp * regs_ + w.reg) * 4 + l) = w.values[l] & machine::widthMask(w.bytes);
}

std::optional<RegisterStream> registerStream(const CorpusRun& r) {
  const uint32_t k = registerShift(r.program.numRegs);
  if (k >= kRegisterShifts || (r.valid.size() << k) > kRegisterSlots) return std::nullopt;
  RegisterStream rs{{r.name, {}, 0}, {}, 0};
  std::map<size_t, const machine::RegisterWrite*> writeAt;  // position -> write
  for (const machine::RegisterWrite& w : r.writes) {
    EXPECT_TRUE(writeAt.emplace(w.lastToken + 1, &w).second) << r.name << ": two writes end at token " << w.lastToken;
  }
  std::map<size_t, const machine::StepState*> stepAt;  // position -> the step computed there
  for (const machine::StepState& st : r.steps) stepAt.emplace(st.firstToken, &st);
  ShadowRegisters shadow(r);
  machine::StreamDeriver d(r.valid);
  for (size_t p = 0; p <= r.tokens.size(); ++p) {
    if (p > 0) d.take(r.tokens[p - 1]);
    RegisterFileAccess a;
    a.warp = d.state().warp;
    a.shift = k;
    if (const auto wi = writeAt.find(p); wi != writeAt.end()) {
      const machine::RegisterWrite& w = *wi->second;
      a.commit = true;
      a.lanes = w.lanes;
      a.reg = w.reg;
      for (uint32_t l = 0; l < 4; ++l) a.values[l] = w.values[l] & machine::widthMask(w.bytes);
      shadow.commit(w, a.warp);
    }
    std::vector<std::pair<size_t, int64_t>> want;
    if (const auto si = stepAt.find(p); si != stepAt.end()) {
      const machine::StepState& st = *si->second;
      EXPECT_EQ(st.warp, a.warp) << r.name << " position " << p;
      const machine::MInstr& in = r.program.code.at(st.pc);
      const uint16_t fields[3] = {in.a, in.b, in.c};
      for (uint32_t port = 0; port < kRegisterFilePorts; ++port) {
        const uint32_t reg = port < 3 ? fields[port] : (in.g == machine::kNoGuard ? machine::kNoOperand : in.g & ~machine::kGuardNegated);
        const bool isReg = (port == 3 || machine::isOperandField(in.op, port + 1)) && reg < r.program.numRegs;
        if (!isReg) continue;
        a.read[port] = reg;
        ++rs.reads;
        for (uint32_t l = 0; l < 4; ++l) {
          const uint64_t v = shadow.value(a.warp, reg, l);
          const uint32_t bits = port == 3 ? 1 : 64;
          for (uint32_t b = 0; b < bits; ++b)
            want.push_back({port == 3 ? 3 * 256 + l : port * 256 + 64 * l + b, static_cast<int64_t>((v >> b) & 1)});
        }
      }
    }
    Position pos;
    pos.inputs = registerFileInputs(a);
    pos.describe = p == 0 ? "GO" : fmt::format("{} token {} ({})", r.name, p - 1, machine::tokenName(r.tokens[p - 1]));
    rs.stream.positions.push_back(std::move(pos));
    rs.want.push_back(std::move(want));
  }
  return rs;
}

LaunchSpec dataKernelLaunch(const std::string& file, const std::string& entry, uint32_t outWords) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / ("qgpu_data_" + entry);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(std::filesystem::path(QGPU_SOURCE_DIR) / "compiler" / "test" / "data" / file, dir / "k.ptx",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "launch.json") << fmt::format(
      R"({{"name": "{0}", "ptx": {{"nvcc": "k.ptx"}}, "entry": "{0}", "grid": [1, 1, 1], "block": [4, 1, 1],
           "dynamic_shared_bytes": 0, "params": [{{"name": "out", "buffer": {{"type": "u32", "count": {1}}}}}],
           "outputs": ["out"]}})",
      entry, outWords);
  return loadLaunchSpec(dir);
}

std::vector<uint32_t> dataKernelWordsEqualTheInterpreter(const std::string& backend, const std::string& file,
                                                         const std::string& entry, uint32_t outWords) {
  const LaunchSpec spec = dataKernelLaunch(file, entry, outWords);
  RunOptions o;
  o.warpWidth = 4;
  const RunResult got = makeBackend(backend)->run(spec, o), want = makeOracleBackend()->run(spec, o);
  EXPECT_EQ(got.provenance.at("stream").get<std::string>(), "equal to the reference executor's at every token");
  if (got.outputs.size() != 1 || want.outputs.size() != 1) {
    ADD_FAILURE() << entry << ": " << got.outputs.size() << " and " << want.outputs.size() << " outputs, not one each";
    return {};
  }
  EXPECT_EQ(got.outputs[0].bytes, want.outputs[0].bytes) << entry;
  std::vector<uint32_t> words(got.outputs[0].bytes.size() / 4);
  std::memcpy(words.data(), got.outputs[0].bytes.data(), 4 * words.size());
  return words;
}

StepStream stepStream(const CorpusRun& r, bool throughAtomics) {
  const size_t end = throughAtomics ? r.tokens.size() : firstAtomicStep(r, true);
  const size_t first = r.prompt.size();  // the position of generated token 0
  StepStream ss{{r.name, {}, first - 1}, {}};
  std::map<size_t, const machine::RegisterWrite*> writeAt;  // position -> the write committed there
  for (const machine::RegisterWrite& w : r.writes)
    if (w.lastToken < end) writeAt.emplace(first + w.lastToken, &w);
  std::map<size_t, const machine::StepState*> stepAt;  // position -> the step computed there
  for (const machine::StepState& st : r.steps)
    if (st.firstToken <= end) stepAt.emplace(first - 1 + st.firstToken, &st);
  const uint32_t regs = r.program.numRegs;
  ShadowRegisters shadow(r);
  machine::StreamDeriver d(r.valid);
  for (size_t p = 0; p < first + end; ++p) {
    const uint32_t id = p < first ? r.prompt[p] : r.tokens[p - first];
    if (p >= first) d.take(id);
    if (const auto wi = writeAt.find(p); wi != writeAt.end()) shadow.commit(*wi->second, d.state().warp);
    std::optional<ComputedStep> step;
    if (const auto si = stepAt.find(p); si != stepAt.end()) {
      const machine::StepState& st = *si->second;
      ComputedStep cs{&st, r.program.code.at(st.pc), {}, 0};
      const uint16_t fields[3] = {cs.in.a, cs.in.b, cs.in.c};
      for (uint32_t port = 0; port < 3; ++port) {
        if (!machine::isOperandField(cs.in.op, port + 1)) continue;
        const uint32_t f = fields[port];
        for (uint32_t l = 0; l < 4; ++l) {
          uint64_t v = 0;
          if (f < regs) {
            v = shadow.value(st.warp, f, l);
          } else if (f >= machine::kConstBase && f < machine::kSpecialBase) {
            v = r.program.constants.at(f - machine::kConstBase);
          } else if (f >= machine::kSpecialBase && f != machine::kNoOperand) {
            EXPECT_TRUE(compiledSpecial(f - machine::kSpecialBase))
                << r.name << " pc " << st.pc << ": " << machine::disassemble(cs.in) << " reads a special the compiled machine lacks";
            v = machine::specialValue(static_cast<machine::MSpecial>(f - machine::kSpecialBase),
                                      {r.grid, r.block, st.block, st.warp, l, static_cast<uint32_t>(r.valid.size())});
          } else {
            EXPECT_EQ(f, machine::kNoOperand) << r.name << " pc " << st.pc << ": " << machine::disassemble(cs.in);
          }
          cs.operand[port][l] = v;
        }
      }
      // An atomic's port b reads nothing at the step's first position (its address is a
      // alone; b is read where its new value is next: atomic_step.h).
      if (machine::opInfo(cs.in.op).exec == machine::MExec::Atomic)
        for (uint32_t l = 0; l < 4; ++l) cs.operand[1][l] = 0;
      if (cs.in.g != machine::kNoGuard) {
        const uint32_t guard = cs.in.g & ~machine::kGuardNegated;
        EXPECT_LT(guard, regs) << r.name << " pc " << st.pc << ": " << machine::disassemble(cs.in);
        for (uint32_t l = 0; l < 4 && guard < regs; ++l)
          cs.predicates |= static_cast<uint32_t>(shadow.value(st.warp, guard, l) & 1) << l;
      }
      step = cs;
    }
    const std::string describe = p < first ? fmt::format("{} prompt token {} ({})", r.name, p, machine::tokenName(id))
                                           : fmt::format("{} token {} ({})", r.name, p - first, machine::tokenName(id));
    ss.stream.positions.push_back({frontInputs(id), {}, describe});
    ss.steps.push_back(step);
  }
  return ss;
}

}  // namespace qgpu::compiler
