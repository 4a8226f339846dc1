// "--backend circuit" (circuit_run.h) on the corpus: the joined step circuit generating each
// launch's tokens greedily in the exact evaluator. Every run either equals the interpreter bit
// for bit (its stream equal to the reference executor's at every token, which the backend
// checks as it generates) or stops naming what the step does not run yet (ErrorKind::Backend)
// or the first token it gets wrong (ErrorKind::Diverged) — never a wrong output. The kernels listed below must
// run (measured when this test was written: a floor, so a regression fails). The evaluator
// takes about 2,500 positions a second: CI runs the launches of at most kShortRun generated
// tokens, the nightly test (QGPU_CIRCUIT_ALL=1) every one — sha256_round's 207,698 tokens take
// 80 s per flavour.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <string>

#include "corpus_runs.h"
#include "machine_test_util.h"
#include "qgpu/backend.h"
#include "qgpu/interp/error.h"
#include "qgpu/compiler/circuit_run.h"
#include "qgpu/gate.h"
#include "qgpu/golden.h"
#include "qgpu/launch_spec.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/tokens.h"
#include "token_launch.h"

namespace qgpu::compiler {
namespace {

constexpr uint64_t kShortRun = 20'000;

// The compiled step's capacities (firstCapacityExceeded): the dot product fits; the same
// launch past each capacity — a block's register slots, its thread count, the banks' bytes,
// the register count — is refused naming the limit, and the backends refuse it as an input
// error before generating (the model backend shares the check).
TEST(CircuitBackend, ALaunchPastTheCompiledCapacitiesIsRefusedNamingTheLimit) {
  LaunchSpec spec = loadLaunchSpec(std::filesystem::path(QGPU_SOURCE_DIR) / "kernels" / "dot");
  RunOptions o;
  const machine::TokenLaunch tl = machine::prepareTokenLaunch(spec, o, "circuit");
  EXPECT_FALSE(firstCapacityExceeded(tl.program, tl.machineLaunch));
  const auto refused = [](const machine::MachineProgram& p, const machine::MachineLaunch& l, const std::string& why) {
    const std::optional<std::string> what = firstCapacityExceeded(p, l);
    ASSERT_TRUE(what) << why;
    EXPECT_NE(what->find(why), std::string::npos) << *what;
  };
  machine::MachineLaunch wide = tl.machineLaunch;
  wide.block = {1024, 1, 1};  // 256 warps: more than 512 slots unless a thread has one register
  ASSERT_GT(tl.program.numRegs, 2u);
  refused(tl.program, wide, "the compiled step's register file holds 512 slots a lane");
  wide.block = {2048, 1, 1};
  refused(tl.program, wide, "the compiled step counts at most 2047");
  machine::MachineLaunch big = tl.machineLaunch;
  big.buffers.push_back(std::vector<uint8_t>(machine::kBankMemoryBytes));
  big.bufferAddr.push_back(big.bufferAddr.back() + 256);
  refused(tl.program, big, "the compiled step's banks hold 8192 bytes a lane copy");
  machine::MachineProgram many = tl.program;
  many.numRegs = 600;
  refused(many, tl.machineLaunch, "the compiled step's register count holds at most 511");
  // Through the backend: 1,024 threads of the dot product, an input error naming the limit.
  spec.block = {1024, 1, 1};
  try {
    (void)makeBackend("circuit")->run(spec, o);
    ADD_FAILURE() << "a launch past the register file ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Input) << e.what();
    EXPECT_NE(std::string(e.what()).find("the launch exceeds the compiled step"), std::string::npos) << e.what();
  }
}

// The model backend's test kernel of CALL, MULWIDE .s16/.u16 and F2D (compiler/test/data/
// newer_ops.ptx) through the circuit: the interpreter's outputs, the executor's stream, and the
// recursion's DEPTH tokens (lane 3 calls four deep: the stack holds more than two entries).
TEST(CircuitBackend, CallMulWide16AndF2D) {
  EXPECT_EQ(dataKernelWordsEqualTheInterpreter("circuit", "newer_ops.ptx", "newer_ops", 16).size(), 16u);
  RunOptions o;
  o.warpWidth = 4;
  const machine::TokenLaunch tl = machine::prepareTokenLaunch(dataKernelLaunch("newer_ops.ptx", "newer_ops", 16), o, "circuit");
  const machine::Trace trace = machine::execute(tl.program, tl.machineLaunch).trace;
  size_t depths = 0;
  for (uint32_t id : trace.tokens) depths += id >= machine::kDepth && id < machine::kControl ? 1 : 0;
  EXPECT_GT(depths, 0u);
}

TEST(CircuitBackend, EveryRunEqualsTheInterpreterOrStopsWithANamedReason) {
  const bool all = std::getenv("QGPU_CIRCUIT_ALL") != nullptr;
  // Through the circuit today (docs/compiler.md §4): one block or many, one warp or many,
  // barriers that every warp reaches together, the lane-serial compare family (MIN MAX FMIN
  // FMAX FNEG FABS FSETP), the conversions (I2F F2I H2F F2H), BFE, CADD and CARRY, nested
  // divergences and their pops at any depth (bitonic_sort, divergence, early_exit, mandelbrot,
  // switch_case: to depth 5, with DEPTH tokens), atomics that add (histogram, prime_sieve,
  // radix_pass: lane-serial, atomic_step.h), MULWIDE at 2 bytes, CALL, F2D, and the
  // shift-and-mask and division micro-codes.
  const std::set<std::string> mustRun = {
      "const_mem_nvcc",   "const_mem_clang",  "crc32_nvcc",       "dot_nvcc",          "dot_clang",
      "dyn_shared_nvcc",  "dyn_shared_clang", "grid_3d_nvcc",     "grid_3d_clang",     "local_array_nvcc",
      "matmul_tiled_nvcc", "matmul_tiled_clang", "reduce_smem_nvcc", "reduce_smem_clang", "saxpy_nvcc",
      "saxpy_clang",      "scan_hs_nvcc",     "scan_hs_clang",    "sha256_round_nvcc", "sha256_round_clang",
      "shared_kinds_nvcc", "shared_kinds_clang", "transpose_nvcc", "vector_add_nvcc",   "vector_add_clang",
      "vector_ldst_nvcc", "vector_ldst_clang", "fma_vs_muladd_nvcc", "fma_vs_muladd_clang", "shfl_reduce_scan_nvcc",
      "shfl_reduce_scan_clang", "compare_select_clang", "stencil_1d_nvcc", "stencil_1d_clang", "stencil_2d_nvcc",
      "stencil_2d_clang", "carry_chain_nvcc", "carry_chain_clang", "round_modes_nvcc", "round_modes_clang",
      "cvt_half_nvcc",    "cvt_half_clang",   "crc32_clang",      "local_array_clang", "bitonic_sort_nvcc",
      "bitonic_sort_clang", "divergence_nvcc", "early_exit_nvcc",  "early_exit_clang",  "mandelbrot_nvcc",
      "mandelbrot_clang", "switch_case_nvcc", "switch_case_clang", "vote_clang", "shfl_patterns_clang", "divergence_clang",
      "histogram_clang", "radix_pass_nvcc", "radix_pass_clang", "prime_sieve_nvcc", "prime_sieve_clang",
      // MULWIDE of 2-byte operands, BFI of a known field (SHL/XOR/AND/XOR), 8-byte MIN/MAX
      // (SETP, SELP) and mul.lo.64 on 32-bit units (docs/machine.md §2.1)
      "byte_short_ldst_nvcc", "byte_short_ldst_clang", "histogram_nvcc", "compare_select_nvcc", "vote_nvcc",
      "shfl_patterns_nvcc", "transpose_clang", "collatz_nvcc", "collatz_clang",
      // CALL (recursion: the callee's entry pushed, TOP and DEPTH); F2D (the lane's 64-bit result)
      "noinline_call_nvcc", "noinline_call_clang", "minmax_nan_clang",
      // mul24, sad, dp4a, bfi of a register field, the generic prmt, mul.hi.64 and
      // min/max.f64 as shift-and-mask micro-code on the ALU (docs/machine.md §2.1)
      "bit_tricks_nvcc", "bit_tricks_clang", "mulhi_wide_nvcc", "mulhi_wide_clang", "minmax_nan_nvcc",
      // div and rem of 32 and 64 bits as restoring division on the ALU, 64-bit popc/clz/brev
      // on 32-bit halves (docs/machine.md §2.1)
      "int_divrem_nvcc", "int_divrem_clang", "gcd_nvcc", "gcd_clang", "int64_arith_nvcc", "int64_arith_clang",
      // atomics but an integer add as lane-serial LD, ALU steps and ST; f32 div, rcp and
      // sqrt as ALU micro-code with loops
      "atomics_int_nvcc", "atomics_int_clang", "fdiv_sqrt_rcp_nvcc", "fdiv_sqrt_rcp_clang", "layernorm_nvcc",
      "layernorm_clang",
      // mul.f64 and the integer <-> float conversions without a compiled I2F/F2I as ALU micro-code
      "cvt_float_int_nvcc", "cvt_float_int_clang",
      // the rest of f64 (add, sub, div, rcp, sqrt, fma, cvt.f32.f64) as ALU micro-code, in
      // shared routines (CALL/END) because inline it would not fit the ROM
      "f64_arith_nvcc", "f64_arith_clang"};
  const std::unique_ptr<Backend> circuit = makeBackend("circuit");
  const std::unique_ptr<Backend> executor = makeBackend("machine");
  const std::unique_ptr<Backend> oracle = makeOracleBackend();
  std::set<std::string> ran, longRuns;
  size_t notRun = 0, diverged = 0;
  for (const machine::test::CorpusCase& c : machine::test::corpusCases()) {
    const std::string name = machine::test::corpusCaseName(c);
    const LaunchSpec spec = loadLaunchSpec(c.dir);
    RunOptions o;
    o.flavour = c.flavour;
    o.warpWidth = 4;
    RunResult got;
    try {
      if (!all && executor->run(spec, o).provenance.at("generated_tokens").get<uint64_t>() > kShortRun) {
        longRuns.insert(name);
        continue;
      }
      got = circuit->run(spec, o);
    } catch (const Error& e) {
      const std::string what = e.what();
      if (e.kind() == ErrorKind::Decode) continue;  // does not lower to the machine (docs/machine.md §2.4)
      // Refused before generating (an op not compiled: Backend) or a token the circuit gets
      // wrong (Diverged).
      ASSERT_TRUE(e.kind() == ErrorKind::Backend || e.kind() == ErrorKind::Diverged) << name << ": " << what;
      ASSERT_NE(what.find("circuit: "), std::string::npos) << name << ": " << what;
      EXPECT_EQ(e.kind() == ErrorKind::Backend, what.find("not compiled into the step") != std::string::npos) << what;
      EXPECT_FALSE(mustRun.count(name)) << name << ": " << what;
      ++(e.kind() == ErrorKind::Backend ? notRun : diverged);
      continue;
    }
    const RunResult want = oracle->run(spec, o);
    ASSERT_EQ(got.outputs.size(), want.outputs.size()) << name;
    for (size_t i = 0; i < want.outputs.size(); ++i)
      EXPECT_EQ(got.outputs[i].bytes, want.outputs[i].bytes) << name << ": output " << want.outputs[i].name;
    EXPECT_EQ(got.provenance.at("stream").get<std::string>(), "equal to the reference executor's at every token");
    ran.insert(name);
  }
  for (const std::string& k : mustRun)
    EXPECT_TRUE(ran.count(k) || longRuns.count(k)) << k << " no longer runs through the circuit";
  if (all) EXPECT_TRUE(longRuns.empty());
  else EXPECT_GE(ran.size(), 10u);
  std::string list;
  for (const std::string& k : ran) list += (list.empty() ? "" : ", ") + k;
  std::cout << "[ circuit ] " << ran.size() << " runs through the step circuit equal the interpreter (" << list << "); "
            << notRun << " refused (an instruction the step does not run yet), " << diverged
            << " stopped at a token the circuit gets wrong; " << longRuns.size() << " longer than " << kShortRun
            << " tokens left to the nightly run\n";
  testing::Test::RecordProperty("runs_through_the_circuit", static_cast<int>(ran.size()));
}

// A barrier and then the warps' exits: in a one-warp block the warp runs on after its BAR
// (no WARP token) and says HALT at its EXIT; in a two-warp block warp 1's BAR ends the pass
// (WARP 0, the resumed warp's TOP), then each retires in turn (WARP 1 after warp 0's EXIT).
TEST(CircuitBackend, WarpsRunOnAfterABarrierToTheirExits) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "qgpu_circuit_barrier_exit";
  std::filesystem::create_directories(dir);
  {
    std::ofstream ptx(dir / "k.ptx");
    ptx << ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 k_param_0)\n{\n"
           "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n  ld.param.u64 %rd1, [k_param_0];\n  mov.u32 %r1, %tid.x;\n"
           "  mul.wide.u32 %rd3, %r1, 4;\n  add.s64 %rd2, %rd1, %rd3;\n  st.global.u32 [%rd2], %r1;\n  bar.sync 0;\n"
           "  ret;\n}\n";
  }
  const std::unique_ptr<Backend> circuit = makeBackend("circuit");
  const std::unique_ptr<Backend> oracle = makeOracleBackend();
  for (uint32_t threads : {4u, 8u}) {
    std::ofstream(dir / "launch.json")
        << fmt::format(R"({{"name": "barrier_exit", "ptx": {{"nvcc": "k.ptx"}}, "entry": "k", "grid": [1, 1, 1],
                           "block": [{0}, 1, 1], "dynamic_shared_bytes": 0,
                           "params": [{{"name": "out", "buffer": {{"type": "u32", "count": {0}}}}}], "outputs": ["out"]}})",
                       threads);
    const LaunchSpec spec = loadLaunchSpec(dir);
    RunOptions o;
    o.warpWidth = 4;
    const RunResult got = circuit->run(spec, o), want = oracle->run(spec, o);
    ASSERT_EQ(got.outputs.size(), 1u);
    EXPECT_EQ(got.outputs[0].bytes, want.outputs[0].bytes) << threads << " threads";
  }
}

// The SIMT stack at the most a 4-lane warp reaches with BRAs alone: nested divergences whose
// taken branch keeps all lanes but one (depth 7, DEPTH tokens 3 to 7, pops from each depth,
// both of the stack's heads), a loop left by a divergent break; two input sets. The
// executor's stream must reach depth 7, so the launch keeps testing what it is for.
TEST(CircuitBackend, NestedDivergenceToDepthSevenAndBack) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "qgpu_circuit_nested_divergence";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(std::filesystem::path(QGPU_SOURCE_DIR) / "compiler" / "test" / "data" / "nested_divergence.ptx",
                             dir / "k.ptx", std::filesystem::copy_options::overwrite_existing);
  const std::unique_ptr<Backend> circuit = makeBackend("circuit");
  const std::unique_ptr<Backend> oracle = makeOracleBackend();
  for (const char* values : {"3, 5, 6, 64, 65, 66, 96, 97", "0, 0, 0, 0, 0, 0, 0, 0"}) {
    std::ofstream(dir / "launch.json") << fmt::format(
        R"({{"name": "nested_divergence", "ptx": {{"nvcc": "k.ptx"}}, "entry": "nested", "grid": [1, 1, 1],
             "block": [8, 1, 1], "dynamic_shared_bytes": 0,
             "params": [{{"name": "out", "buffer": {{"type": "u32", "count": 8}}}},
                        {{"name": "in", "buffer": {{"type": "u32", "count": 8, "init": {{"values": [{}]}}}}}}],
             "outputs": ["out"]}})",
        values);
    const LaunchSpec spec = loadLaunchSpec(dir);
    RunOptions o;
    o.warpWidth = 4;
    const machine::TokenLaunch tl = machine::prepareTokenLaunch(spec, o, "circuit");
    const machine::MachineResult reference = machine::execute(tl.program, tl.machineLaunch);
    EXPECT_NE(std::find(reference.trace.tokens.begin(), reference.trace.tokens.end(), machine::kDepth + 6),
              reference.trace.tokens.end())
        << values << ": the launch no longer reaches depth 7";
    const RunResult got = circuit->run(spec, o), want = oracle->run(spec, o);
    ASSERT_EQ(got.outputs.size(), 1u);
    EXPECT_EQ(got.outputs[0].bytes, want.outputs[0].bytes) << values;
    EXPECT_EQ(got.provenance.at("stream").get<std::string>(), "equal to the reference executor's at every token");
  }
}

// VOTE's members are its mask and the live lanes, which the step reads from a slot written at
// SIMT depth 1: inside a divergence, lanes that are live but do not execute stay members
// (vote.all is false where it would be true over the running lanes alone). The program is
// undefined by PTX's membermask rule, so the interpreter refuses it; the machine defines it
// (docs/machine.md §1.5), and the circuit must equal the executor.
TEST(CircuitBackend, VoteMembersAreTheLiveLanesAtAnyDepth) {
  const LaunchSpec spec = dataKernelLaunch("vote_members.ptx", "votes", 4);
  RunOptions o;
  o.warpWidth = 4;
  EXPECT_THROW(makeOracleBackend()->run(spec, o), Error);  // undefined by the membermask rule
  const RunResult got = makeBackend("circuit")->run(spec, o), want = makeBackend("machine")->run(spec, o);
  ASSERT_EQ(got.outputs.size(), 1u);
  ASSERT_EQ(want.outputs.size(), 1u);
  EXPECT_EQ(got.outputs[0].bytes, want.outputs[0].bytes);
  // Lanes 0 and 1: vote.all false inside (2), the ballot 0b11 (times 16), vote.all true after
  // the join (4); lanes 2 and 3 the join's alone.
  const std::vector<uint32_t> expected = {54, 54, 4, 4};
  std::vector<uint32_t> out(4);
  ASSERT_EQ(got.outputs[0].bytes.size(), 16u);
  std::memcpy(out.data(), got.outputs[0].bytes.data(), 16);
  EXPECT_EQ(out, expected);
  EXPECT_EQ(got.provenance.at("stream").get<std::string>(), "equal to the reference executor's at every token");
}

// Atomics in the step (atomic_step.h): four lanes add to a shared word at a ROM-constant
// address and to a global word, then lanes 1 and 3 alone (the guard: ACTIVE before ATOMIC)
// to another; each lane's old values go to its d, those of the lanes the guard turns off stay.
TEST(CircuitBackend, AtomicsAddLaneByLane) {
  // The sums; the old values in lane order (shared, global); the guarded ones (lanes 0 and 2
  // keep 100); the shared word after the barrier.
  const std::vector<uint32_t> expected = {10, 6, 0, 1, 3, 6, 0, 1, 3, 6, 100, 0, 100, 2, 10, 10, 10, 10};
  EXPECT_EQ(dataKernelWordsEqualTheInterpreter("circuit", "atomic_adds.ptx", "atomic_adds", 18), expected);
}

// A launch the step cannot run is refused before any token, naming the instruction.
TEST(CircuitBackend, RefusesAnInstructionTheStepDoesNotRun) {
  // cvt.rni.f32.f32 lowers to FRNDI, which the step does not compute (every corpus launch
  // that lowers runs since session 19): refused before generating, and the gate lists it as
  // not run, against a golden written here from the interpreter.
  const LaunchSpec spec = loadLaunchSpec(std::filesystem::path(QGPU_SOURCE_DIR) / "runner" / "test" / "data" /
                                         "round_to_integral");
  const std::unique_ptr<Backend> circuit = makeBackend("circuit");
  RunOptions o;
  o.warpWidth = 4;
  try {
    circuit->run(spec, o);
    FAIL() << "FRNDI ran through the circuit";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Backend);
    EXPECT_NE(std::string(e.what()).find("FRNDI (not compiled into the step yet)"), std::string::npos) << e.what();
  }
  const std::filesystem::path goldens = std::filesystem::path(testing::TempDir()) / "qgpu_not_run_goldens";
  RunResult golden = makeOracleBackend()->run(spec, o);
  stampProvenance(golden, spec, "interp", "test");
  writeResultFile(goldens / spec.name / "interp.json", golden);
  const GateOutcome gate = runGate(spec, "nvcc", 4, goldens, 200'000'000, "circuit");
  EXPECT_TRUE(gate.notRun) << gate.message;
  EXPECT_FALSE(gate.pass || gate.error) << gate.message;
  EXPECT_NE(gate.message.find("not run: circuit: round_to_integral: pc"), std::string::npos) << gate.message;
  o.warpWidth = 32;
  EXPECT_THROW(circuit->run(loadLaunchSpec(std::filesystem::path(QGPU_SOURCE_DIR) / "kernels" / "dot"), o), Error);
}

}  // namespace
}  // namespace qgpu::compiler
