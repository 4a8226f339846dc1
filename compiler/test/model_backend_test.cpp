// "--backend model" (model_run.h): the joined step compiled into Qwen3.5 weights (hidden
// 2,048, proven exact), run in the engine — prefill, then greedy decoding — on the corpus.
// Every run either equals the interpreter bit for bit, its stream equal to the reference
// executor's at every token (the backend checks each argmax as it generates), or stops with
// ErrorKind::Backend naming what the step does not run yet, or ErrorKind::Diverged naming the
// first token the weights get wrong — and then the step circuit gets it wrong too (the report attributes it to the IR
// tier): the weights equal the circuit wherever the corpus takes them. The compile (about 90 s, 17 GB) happens once per process: these tests run as one
// ctest (label model-backend); CI runs the launches of at most kShortRun generated tokens,
// the nightly tests (QGPU_MODEL_ALL=1) every launch the step runs, in shards
// (QGPU_MODEL_SHARD=i/n) from one checkpoint on disk (QGPU_MODEL_CHECKPOINT).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "corpus_runs.h"
#include "machine_test_util.h"
#include "qgpu/backend.h"
#include "qgpu/interp/error.h"
#include "qgpu/compiler/machine_checkpoint.h"
#include "qgpu/launch_spec.h"
#include "token_launch.h"

namespace qgpu::compiler {
namespace {

constexpr uint64_t kShortRun = 1'500;

std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The dot product through the weights, both flavours: out[0] = 32, and the generated tokens
// written by --tokens byte for byte the machine backend's (docs/machine.md §3.4's stream).
TEST(ModelBackend, TheDotProductRunsThroughTheWeights) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "qgpu_model_dot";
  std::filesystem::create_directories(dir);
  const LaunchSpec spec = loadLaunchSpec(std::filesystem::path(QGPU_SOURCE_DIR) / "kernels" / "dot");
  const std::unique_ptr<Backend> model = makeBackend("model"), executor = makeBackend("machine");
  for (const char* flavour : {"nvcc", "clang"}) {
    RunOptions o;
    o.flavour = flavour;
    o.warpWidth = 4;
    o.tokensFile = (dir / fmt::format("{}.model.tokens", flavour)).string();
    const RunResult got = model->run(spec, o);
    o.tokensFile = (dir / fmt::format("{}.machine.tokens", flavour)).string();
    const RunResult want = executor->run(spec, o);
    ASSERT_EQ(got.outputs.size(), 1u);
    ASSERT_EQ(got.outputs[0].bytes, want.outputs[0].bytes) << flavour;
    float out = 0;
    std::memcpy(&out, got.outputs[0].bytes.data(), sizeof out);
    EXPECT_EQ(out, 32.0f) << flavour;
    const std::string a = readFile(dir / fmt::format("{}.model.tokens", flavour));
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, readFile(dir / fmt::format("{}.machine.tokens", flavour))) << flavour;
    EXPECT_EQ(got.provenance.at("hidden_size").get<int>(), 2048);
    EXPECT_GT(got.provenance.at("proof_min_margin").get<double>(), 0);
    const size_t nonZeros = got.provenance.at("projection_nonzeros").get<size_t>();
    EXPECT_GT(nonZeros, 0u);
    EXPECT_LT(nonZeros, got.provenance.at("projection_parameters").get<size_t>());
    std::cout << fmt::format("[ model ] dot ({}): out[0] = {}, {} prompt and {} generated tokens from {} layers at hidden "
                             "{}; {:.0f} tokens/s generating, prefill {:.2f} s; projections {} non-zero of {} entries, "
                             "{} weight bytes streamed per token\n",
                             flavour, out, got.provenance.at("prompt_tokens").get<int>(),
                             got.provenance.at("generated_tokens").get<int>(), got.provenance.at("layers").get<int>(),
                             got.provenance.at("hidden_size").get<int>(),
                             got.provenance.at("tokens_per_second").get<double>(),
                             got.provenance.at("prefill_seconds").get<double>(), nonZeros,
                             got.provenance.at("projection_parameters").get<size_t>(),
                             got.provenance.at("weight_bytes_per_token").get<size_t>());
  }
}

// Atomics through the weights (the corpus's are longer than CI's kShortRun): the circuit
// test's kernel (compiler/test/data/atomic_adds.ptx) — a shared and a global word, four lanes
// and, behind a guard, two — equal to the interpreter, the stream to the executor's.
TEST(ModelBackend, AtomicsAddLaneByLaneThroughTheWeights) {
  const std::vector<uint32_t> out = dataKernelWordsEqualTheInterpreter("model", "atomic_adds.ptx", "atomic_adds", 18);
  ASSERT_GE(out.size(), 1u);
  EXPECT_EQ(out[0], 10u);
}

// CALL, MULWIDE .s16/.u16 and F2D through the weights in CI (the corpus's runs with them are
// longer than kShortRun): CALL (a tree recursion, lanes at different depths), MULWIDE of 2-byte
// operands, F2D of a subnormal and of normals (compiler/test/data/newer_ops.ptx) — equal to
// the interpreter, the stream to the executor's.
TEST(ModelBackend, CallMulWide16AndF2DThroughTheWeights) {
  const std::vector<uint32_t> out = dataKernelWordsEqualTheInterpreter("model", "newer_ops.ptx", "newer_ops", 16);
  // fibx(1 + tid): 2, 7, 14, 23 (a mutant that skips a CALL's pop gives other values)
  ASSERT_GE(out.size(), 4u);
  EXPECT_EQ(out[0], 2u);
  EXPECT_EQ(out[3], 23u);
}

// The corpus runs of nightly shard i of n ("i/n"; none: every run): the runs sorted by their
// generated tokens on the executor, largest first, each given to the shard with the fewest
// tokens so far (ties: the lowest index), so that every shard computes the same split and
// the longest runs (sha256_round, f64_arith: 150,000-210,000 tokens) land apart.
std::optional<std::set<std::string>> nightlyShard(const char* spec) {
  if (!spec) return std::nullopt;
  unsigned index = 0, count = 0;
  char slash = 0;
  std::istringstream in(spec);
  if (!(in >> index >> slash >> count) || slash != '/' || count == 0 || index >= count)
    throw std::runtime_error(fmt::format("QGPU_MODEL_SHARD '{}': expected i/n with i < n", spec));
  const std::unique_ptr<Backend> executor = makeBackend("machine");
  std::vector<std::pair<uint64_t, std::string>> runs;
  for (const machine::test::CorpusCase& c : machine::test::corpusCases()) {
    RunOptions o;
    o.flavour = c.flavour;
    o.warpWidth = 4;
    uint64_t generated = 0;
    try {
      generated = executor->run(loadLaunchSpec(c.dir), o).provenance.at("generated_tokens").get<uint64_t>();
    } catch (const Error&) {
      // does not lower: it costs the shard nothing
    }
    runs.push_back({generated, machine::test::corpusCaseName(c)});
  }
  std::stable_sort(runs.begin(), runs.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<uint64_t> load(count, 0);
  std::set<std::string> mine;
  for (const auto& [generated, name] : runs) {
    const size_t to = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[to] += generated;
    if (to == index) mine.insert(name);
  }
  std::cout << "[ model ] shard " << index << "/" << count << ": " << mine.size() << " runs, " << load[index]
            << " generated tokens\n";
  return mine;
}

TEST(ModelBackend, EveryRunEqualsTheInterpreterOrStopsWithANamedReason) {
  const bool all = std::getenv("QGPU_MODEL_ALL") != nullptr;
  // Runs of at most kShortRun tokens that the circuit runs (circuit_backend_test.cpp), which
  // the weights must run too: a floor, so a regression fails.
  const std::set<std::string> mustRun = {"const_mem_nvcc", "const_mem_clang", "dot_nvcc",       "dot_clang",
                                         "saxpy_nvcc",     "saxpy_clang",     "vector_add_nvcc", "vector_add_clang",
                                         "switch_case_nvcc", "switch_case_clang",  // nested divergence to depth 5
                                         "vote_clang"};  // VOTE's live lanes from their slot
  const std::unique_ptr<Backend> model = makeBackend("model"), executor = makeBackend("machine");
  const std::unique_ptr<Backend> oracle = makeOracleBackend();
  std::set<std::string> ran, longRuns;
  size_t notRun = 0, diverged = 0, tokens = 0;
  const char* checkpoint = std::getenv("QGPU_MODEL_CHECKPOINT");
  const std::optional<std::set<std::string>> shard = nightlyShard(std::getenv("QGPU_MODEL_SHARD"));
  for (const machine::test::CorpusCase& c : machine::test::corpusCases()) {
    const std::string name = machine::test::corpusCaseName(c);
    if (shard && !shard->count(name)) continue;
    const LaunchSpec spec = loadLaunchSpec(c.dir);
    RunOptions o;
    o.flavour = c.flavour;
    o.warpWidth = 4;
    if (checkpoint) o.checkpoint = checkpoint;
    RunResult got;
    try {
      if (!all && executor->run(spec, o).provenance.at("generated_tokens").get<uint64_t>() > kShortRun) {
        longRuns.insert(name);
        continue;
      }
      got = model->run(spec, o);
    } catch (const Error& e) {
      const std::string what = e.what();
      if (e.kind() == ErrorKind::Decode) continue;  // does not lower to the machine (docs/machine.md §2.4)
      ASSERT_TRUE(e.kind() == ErrorKind::Backend || e.kind() == ErrorKind::Diverged) << name << ": " << what;
      ASSERT_NE(what.find("model: "), std::string::npos) << name << ": " << what;
      EXPECT_FALSE(mustRun.count(name)) << name << ": " << what;
      const bool refused = e.kind() == ErrorKind::Backend;
      EXPECT_EQ(refused, what.find("not compiled into the step") != std::string::npos) << what;
      // The weights part from the executor only where the circuit does: the tiers agree.
      if (!refused) {
        EXPECT_NE(what.find("the circuit's fault, not the weights'"), std::string::npos) << name << ": " << what;
      }
      ++(refused ? notRun : diverged);
      continue;
    }
    const RunResult want = oracle->run(spec, o);
    ASSERT_EQ(got.outputs.size(), want.outputs.size()) << name;
    for (size_t i = 0; i < want.outputs.size(); ++i)
      EXPECT_EQ(got.outputs[i].bytes, want.outputs[i].bytes) << name << ": output " << want.outputs[i].name;
    EXPECT_EQ(got.provenance.at("stream").get<std::string>(), "equal to the reference executor's at every token");
    tokens += got.provenance.at("generated_tokens").get<size_t>();
    ran.insert(name);
  }
  for (const std::string& k : mustRun) {
    if (!shard || shard->count(k)) {
      EXPECT_TRUE(ran.count(k) || longRuns.count(k)) << k << " no longer runs through the weights";
    }
  }
  if (all) {
    EXPECT_TRUE(longRuns.empty());
  }
  std::string list;
  for (const std::string& k : ran) list += (list.empty() ? "" : ", ") + k;
  std::cout << "[ model ] " << ran.size() << " runs through the weights equal the interpreter (" << list << "; " << tokens
            << " generated tokens); " << notRun << " refused (an instruction the step does not run yet), " << diverged
            << " stopped at a token the weights get wrong; " << longRuns.size() << " longer than " << kShortRun
            << " tokens left to the nightly run\n";
  testing::Test::RecordProperty("runs_through_the_weights", static_cast<int>(ran.size()));
}

// The compiled machine on disk (machine_checkpoint.h): written from the machine the tests
// above compiled in memory, its manifest checked against the files and the build, then run
// with --checkpoint: the dot product's outputs and generated tokens, both flavours, byte for
// byte the in-memory weights'. Checkpoints that do not fit this build, or are cut short, are
// clean input errors. Last in this file: loading the checkpoint lets go of the in-memory
// machine (processMachine keeps one).
TEST(ModelBackend, TheCheckpointOnDiskRunsAsTheWeightsInMemory) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(testing::TempDir()) / "qgpu_machine_checkpoint";
  fs::remove_all(dir);
  const LaunchSpec spec = loadLaunchSpec(fs::path(QGPU_SOURCE_DIR) / "kernels" / "dot");
  const std::unique_ptr<Backend> model = makeBackend("model");
  std::map<std::string, RunResult> inMemory;
  for (const char* flavour : {"nvcc", "clang"}) {
    RunOptions o;
    o.flavour = flavour;
    o.tokensFile = (dir.string() + fmt::format(".{}.memory.tokens", flavour));
    inMemory[flavour] = model->run(spec, o);
  }
  nlohmann::json m;
  {
    const CompiledMachine& cm = processMachine();  // the in-memory machine of the runs above
    m = writeMachineCheckpoint(cm.unit, cm.proof, dir, {{"producer", "model_backend_test"}});
    EXPECT_EQ(m.at("format").get<std::string>(), kMachineCheckpointFormat);
    EXPECT_EQ(m.at("machine_isa").at("fingerprint").get<std::string>(), machineIsaFingerprint());
    EXPECT_EQ(m.at("proof").at("min_margin").get<double>(), cm.proof.minMargin);
    EXPECT_EQ(m.at("model").at("layers").get<int>(), cm.unit.config.numLayers);
    EXPECT_EQ(readFile(dir / "config.json"), hfConfigJson(cm.unit.config));
    // Every tensor's non-zeros: the projections' and the embedding's.
    EXPECT_GT(m.at("nonzero_parameters").get<size_t>(), cm.nonZeros);
    EXPECT_LT(m.at("nonzero_parameters").get<size_t>(), m.at("parameters").get<size_t>() / 100);
  }
  const nlohmann::json& weights = m.at("files").at("model.safetensors");
  EXPECT_EQ(weights.at("bytes").get<uintmax_t>(), fs::file_size(dir / "model.safetensors"));
  EXPECT_EQ(weights.at("sha256").get<std::string>(), sha256OfFile(dir / "model.safetensors"));
  EXPECT_EQ(m.at("files").at("config.json").at("sha256").get<std::string>(), sha256OfFile(dir / "config.json"));
  EXPECT_GT(weights.at("bf16_tensors").get<size_t>(), 0u);
  for (const char* flavour : {"nvcc", "clang"}) {
    RunOptions o;
    o.flavour = flavour;
    o.checkpoint = dir.string();
    o.tokensFile = (dir.string() + fmt::format(".{}.disk.tokens", flavour));
    const RunResult got = model->run(spec, o);
    ASSERT_EQ(got.outputs.size(), 1u);
    EXPECT_EQ(got.outputs[0].bytes, inMemory[flavour].outputs[0].bytes) << flavour;
    const std::string tokens = readFile(dir.string() + fmt::format(".{}.disk.tokens", flavour));
    EXPECT_FALSE(tokens.empty());
    EXPECT_EQ(tokens, readFile(dir.string() + fmt::format(".{}.memory.tokens", flavour))) << flavour;
    EXPECT_EQ(got.provenance.at("weights").get<std::string>(), dir.string());
    EXPECT_EQ(got.provenance.at("checkpoint_sha256").get<std::string>(), weights.at("sha256").get<std::string>());
    std::cout << fmt::format("[ model ] dot ({}) from {}: {:.0f} tokens/s, loaded in {:.1f} s\n", flavour, dir.string(),
                             got.provenance.at("tokens_per_second").get<double>(),
                             got.provenance.at("compile_seconds").get<double>());
  }

  // One weight of the whole machine corrupted on disk: the down-projection weight of a
  // constant neuron of layer 1 (it fires at every position) doubled in place. The dot product
  // then leaves the executor's stream, and the report names layer 1, the channel the weight
  // writes and that neuron (probe mode through the checkpoint's plan).
  {
    const LayerPlan& plan = processMachine(dir.string()).unit.plan;
    const PlannedLayer& first = plan.mlp.at(0);
    std::optional<std::pair<uint32_t, uint32_t>> target;  // (physical channel, neuron)
    for (const PlannedWrite& w : first.writes)
      for (const auto& [n, weight] : w.neurons)
        if (!target && first.neurons[n].role == NeuronRole::Constant && weight != 0)
          target = {plan.physical(w.channel), n};
    ASSERT_TRUE(target) << "layer 1 has no constant neuron";
    const auto [channel, neuron] = *target;
    // The tensor's bytes in the file, from the safetensors header.
    std::fstream f(dir / "model.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    uint64_t headerBytes = 0;
    f.read(reinterpret_cast<char*>(&headerBytes), 8);
    std::string header(headerBytes, '\0');
    f.read(header.data(), static_cast<std::streamsize>(headerBytes));
    const nlohmann::json t = nlohmann::json::parse(header).at("model.layers.0.mlp.down_proj.weight");
    const size_t cols = t.at("shape").at(1).get<size_t>();
    const bool bf16 = t.at("dtype").get<std::string>() == "BF16";
    const uint64_t at = 8 + headerBytes + t.at("data_offsets").at(0).get<uint64_t>() +
                        (static_cast<uint64_t>(channel) * cols + neuron) * (bf16 ? 2 : 4);
    uint32_t word = 0;
    f.seekg(static_cast<std::streamoff>(at));
    f.read(reinterpret_cast<char*>(&word), bf16 ? 2 : 4);
    ASSERT_NE(word & (bf16 ? 0x7fffu : 0x7fffffffu), 0u) << "the weight is not where the plan puts it";
    word += bf16 ? 0x80u : 0x00800000u;  // exponent + 1: the weight doubled
    f.seekp(static_cast<std::streamoff>(at));
    f.write(reinterpret_cast<const char*>(&word), bf16 ? 2 : 4);
    f.close();
    const std::unique_ptr<CompiledMachine> corrupted = loadMachineCheckpoint(dir);  // the size still matches
    RunOptions o;
    const machine::TokenLaunch tl = machine::prepareTokenLaunch(spec, o, "model");
    const machine::MachineResult ref = machine::execute(tl.program, tl.machineLaunch, o.maxSteps);
    try {
      (void)runInModel(*corrupted, tl.prompt, ref.trace);
      ADD_FAILURE() << "the dot product ran with layer 1's neuron " << neuron << " corrupted";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.kind(), ErrorKind::Diverged) << what;
      EXPECT_NE(what.find(fmt::format("after layer 1, channel {} ", channel)), std::string::npos) << what;
      EXPECT_NE(what.find(fmt::format("neuron {} (gate '{}'", neuron, first.neurons[neuron].gateName)), std::string::npos)
          << what;
      std::cout << "[ model ] corrupted weight (layer 1, channel " << channel << ", neuron " << neuron << "): " << what
                << "\n";
    }
  }

  // Broken checkpoints: the manifest and config of the real one beside a stand-in weights file.
  const std::string manifest = readFile(dir / "manifest.json"), config = readFile(dir / "config.json");
  const auto broken = [&](const std::string& name, const std::string& man, const std::string& cfg, size_t weightBytes) {
    const fs::path b = fs::path(testing::TempDir()) / ("qgpu_broken_checkpoint_" + name);
    fs::remove_all(b);
    fs::create_directories(b);
    if (!man.empty()) std::ofstream(b / "manifest.json") << man;
    std::ofstream(b / "config.json") << cfg;
    std::ofstream(b / "model.safetensors") << std::string(weightBytes, '\0');
    return b;
  };
  const auto refused = [&](const fs::path& b, const std::string& why) {
    try {
      (void)loadMachineCheckpoint(b);
      ADD_FAILURE() << b << " loaded";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Input) << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  const auto replaced = [](std::string text, const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
  };
  refused(broken("no_manifest", "", config, 8), "manifest.json: cannot read");
  refused(broken("not_json", "{", config, 8), "not JSON");
  refused(broken("other_isa", replaced(manifest, machineIsaFingerprint(), std::string(64, '0')), config, 8),
          "compiled for machine ISA 0000");
  refused(broken("other_plan", manifest, replaced(config, "\"intermediate_size\": 5896", "\"intermediate_size\": 5895"), 8),
          "not the model of the step this build compiles");
  refused(broken("bad_config", manifest, replaced(config, "\"num_hidden_layers\": 50", "\"num_hidden_layers\": 49"), 8),
          "config.json");
  // A field the engine does not read (an older build wrote 4096 here) passes the config check:
  // the next check, the weights' size, is what refuses this stand-in.
  refused(broken("other_max_position", manifest,
                 replaced(config, "\"max_position_embeddings\": 262144", "\"max_position_embeddings\": 4096"), 8),
          "8 bytes, the manifest says");
  refused(broken("truncated", manifest, config, 1000), "1000 bytes, the manifest says");
  // Through the backend: the same error, an input error (exit 2 on the command line).
  RunOptions o;
  o.checkpoint = (fs::path(testing::TempDir()) / "qgpu_broken_checkpoint_truncated").string();
  try {
    (void)model->run(spec, o);
    ADD_FAILURE() << "a truncated checkpoint ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Input) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace qgpu::compiler
