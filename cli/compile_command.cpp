// `qgpu compile`: the weight compiler on the command line. `units` prints the measured
// cost table of every compiled unit; `prove NAME` the per-layer exactness proof; `plan NAME`
// the layer plan's residual-stream profile (plan-only units too); `unit NAME --out DIR`
// writes the unit as a Hugging Face Qwen3.5 checkpoint with a manifest and sample inputs
// with the engine's logits (for tools/hf_unit_check.py); `machine --out DIR` writes the
// whole compiled machine step as a checkpoint with its manifest (qgpu run --backend model
// --checkpoint DIR runs it).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "cli_commands.h"
#include "qgpu/compiler/catalogue.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/machine_checkpoint.h"
#include "qgpu/compiler/plan_profile.h"
#include "qgpu/compiler/report.h"
#include "qgpu/compiler/schedule.h"
#include "qgpu/compiler/splice.h"
#include "qgpu/compiler/model_run.h"
#include "qgpu/compiler/emit.h"
#include "qgpu/model/tensor_store.h"
#include "qgpu/model/model.h"
#include "qgpu/source_commit.h"

namespace qgpu::cli {
namespace {

// The residual channels of virtual channels (what a reader of the checkpoint indexes).
std::vector<uint32_t> physicalChannels(const compiler::LayerPlan& plan, const std::vector<uint32_t>& virtualChannels) {
  std::vector<uint32_t> out;
  for (uint32_t v : virtualChannels) out.push_back(plan.physical(v));
  return out;
}

using namespace qgpu::compiler;

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

int runUnits(bool json) {
  std::vector<UnitReport> rows;
  for (const UnitSpec& s : unitCatalogue()) {
    Unit u = s.build();
    if (s.planOnly || s.provenOnRequest) {
      rows.push_back(reportPlan(s.name, s.machineOps, planLayers(u.circuit, schedule(u.circuit), 2)));
      rows.back().provenOnRequest = s.provenOnRequest;
      continue;
    }
    CompiledUnit cu = compileCircuit(u.circuit);
    rows.push_back(reportUnit(s.name, s.machineOps, cu, proveExact(cu)));
  }
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const UnitReport& r : rows) j.push_back(toJson(r));
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << markdownTable(rows);
  }
  return 0;
}

int runProve(const std::string& name, double minMargin) {
  const UnitSpec& s = findUnit(name);
  Unit u = s.build();
  CompiledUnit cu = compileCircuit(u.circuit);
  ProofOptions o;
  o.minMargin = minMargin;
  ProofReport r = proveExact(cu, o);
  std::cout << fmt::format("{}: proven exact for every input in range; {} layers, hidden {}, norm scale 2^-{}\n", name,
                           cu.config.numLayers, cu.config.hiddenSize, cu.normExponent);
  for (const LayerProof& l : r.layers)
    std::cout << fmt::format("  layer {:>2}: {:>5} neurons, min margin {:>6}, norm slack {:.1f} bits, sum headroom "
                             "{:.1f} bits{}{}\n",
                             l.layer, l.neurons, l.neurons ? fmt::format("{}", l.minMargin) : "-", l.normSlackBits,
                             l.sumHeadroomBits,
                             l.memoryHeads ? fmt::format(", {} memory heads, read margin {:.4f} grid units", l.memoryHeads,
                                                         l.readMargin) +
                                                 (l.counterHeads ? fmt::format(" ({} counter heads, saturation margin {:.4g})",
                                                                               l.counterHeads, l.saturationMargin)
                                                                 : "")
                                           : "",
                             l.tightestGate.empty() ? "" : "  (" + l.tightestGate + ")");
  std::cout << fmt::format("minimum margin {} at layer {}: {}\n", r.minMargin, r.tightestLayer, r.tightestGate);
  if (std::isfinite(r.minReadMargin))
    std::cout << fmt::format("minimum read margin {:.4f} grid units (assumed read error {})\n", r.minReadMargin,
                             o.readError);
  if (std::isfinite(r.minSaturationMargin))
    std::cout << fmt::format("minimum saturation margin {:.4g} (assumed decay error {}, compounded per count)\n",
                             r.minSaturationMargin, o.decayError);
  return 0;
}

int runPlan(const std::string& name, int layer, bool json) {
  const UnitSpec& s = findUnitOrPlan(name);
  const Unit u = s.build();
  const LayerPlan plan = planLayers(u.circuit, schedule(u.circuit), 2);
  const std::vector<LayerProfile> layers = layerProfiles(plan);
  const uint32_t hidden = static_cast<uint32_t>(Budget2B::hidden);
  std::vector<ChannelGroup> groups, neurons;
  if (layer != 0) {
    groups = liveChannelGroups(plan, layer);
    neurons = neuronGroups(plan, layer);
  }
  if (json) {
    nlohmann::json j = {{"unit", name}, {"layers", plan.layers}, {"channels", plan.physicalChannels},
                        {"hidden_2b", hidden}, {"plan_only", s.planOnly}};
    for (const LayerProfile& p : layers) {
      // What the layer's MLP computes: its three largest groups of neurons, by wire.
      std::vector<ChannelGroup> top = neuronGroups(plan, p.layer);
      if (top.size() > 3) top.resize(3);
      nlohmann::json groupsJson = nlohmann::json::array();
      for (const ChannelGroup& g : top) groupsJson.push_back({{"wire", g.stem}, {"neurons", g.channels}});
      j["per_layer"].push_back({{"layer", p.layer}, {"channels", p.channels}, {"neurons", p.neurons},
                                {"deltanet_heads", p.heads}, {"attention", p.lookup}, {"largest_neuron_groups", groupsJson}});
    }
    if (layer != 0) {
      j["live_at"] = layer;
      for (const ChannelGroup& g : groups) j["live_channels"].push_back({{"wire", g.stem}, {"channels", g.channels}});
      for (const ChannelGroup& g : neurons) j["neurons_by_wire"].push_back({{"wire", g.stem}, {"neurons", g.channels}});
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("{}: {} layers, {} residual channels ({} the 2B's {}){}\n", name, plan.layers,
                           plan.physicalChannels, plan.physicalChannels <= hidden ? "within" : "over", hidden,
                           s.planOnly ? "; plan only (not emitted)" : "");
  const size_t intermediate = static_cast<size_t>(Budget2B::intermediate);
  for (const LayerProfile& p : layers) {
    std::string over;
    if (p.channels > hidden) over += fmt::format("  channels over {}", hidden);
    if (p.neurons > intermediate) over += fmt::format("  neurons over {}", intermediate);
    std::cout << fmt::format("  layer {:>2}: {:>5} channels, {:>5} neurons, {:>2} DeltaNet heads{}{}\n", p.layer,
                             p.channels, p.neurons, p.heads, p.lookup ? ", attention" : "", over);
  }
  if (layer != 0) {
    std::cout << fmt::format("live at layer {}, by wire (lane and bit numbers as #):\n", layer);
    for (const ChannelGroup& g : groups) std::cout << fmt::format("  {:>5}  {}\n", g.channels, g.stem);
    std::cout << fmt::format("neurons of layer {}'s MLP, by wire:\n", layer);
    for (const ChannelGroup& g : neurons) std::cout << fmt::format("  {:>5}  {}\n", g.channels, g.stem);
  }
  return 0;
}

int runUnit(const std::string& name, const std::filesystem::path& out, int samples, uint64_t seed,
            const std::string& command) {
  const UnitSpec& s = findUnit(name);
  Unit u = s.build();
  CompiledUnit cu = compileCircuit(u.circuit);
  ProofReport proof = proveExact(cu);
  writeHfCheckpoint(cu, out);
  // Samples: every input uniform in its declared range (the proof covers all of them).
  std::mt19937_64 rng(seed);
  nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array(), logits = nlohmann::json::array();
  Eigen::MatrixXf x(cu.config.hiddenSize, samples);
  std::vector<std::vector<int64_t>> in(static_cast<size_t>(samples));
  Evaluator ir(u.circuit);  // the samples are the positions of one sequence (memories persist)
  for (int i = 0; i < samples; ++i) {
    if (s.sample) {
      in[i] = s.sample(rng, i);
    } else {
      for (WireId w : u.circuit.inputs()) {
        const Range& r = u.circuit.node(w).range;
        in[i].push_back(r.lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(r.hi - r.lo + 1)));
      }
    }
    x.col(i) = cu.residual(in[i]);
    inputs.push_back(in[i]);
    outputs.push_back(ir.stepOutputs(in[i]));
  }
  model::Model m = model::Model::fromStore(cu.config, cu.store);
  model::DecodeState st = m.newState();
  Eigen::MatrixXf lg = m.forwardEmbeddings(st, x);
  for (int i = 0; i < samples; ++i) {
    if (cu.decode(lg.col(i)) != outputs[static_cast<size_t>(i)].get<std::vector<int64_t>>())
      throw CompileError(fmt::format("{}: the engine disagrees with the IR at sample {}", name, i));
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index k = 0; k < lg.rows(); ++k) row.push_back(fmt::format("{:08x}", floatBits(lg(k, i))));
    logits.push_back(row);
  }
  std::ofstream(out / "samples.json") << nlohmann::json{{"inputs", inputs}, {"ir_outputs", outputs},
                                                        {"engine_logits_f32", logits}}.dump() << "\n";
  nlohmann::json manifest = {
      {"unit", name},
      {"machine_ops", s.machineOps},
      {"producer", "qgpu compile unit"},
      {"command", command},
      {"anchor_exponent", cu.anchorExponent},
      {"live_anchors", cu.liveAnchors},
      {"norm_exponent", cu.normExponent},
      {"input_channels", physicalChannels(cu.plan, cu.plan.inputChannels)},
      {"output_channels", physicalChannels(cu.plan, cu.plan.outputChannels)},
      {"proof_min_margin", proof.minMargin},
      {"report", toJson(reportUnit(name, s.machineOps, cu, proof))},
      {"model_safetensors_sha256", sha256OfFile(out / "model.safetensors")},
  };
  std::ofstream(out / "manifest.json") << manifest.dump(2) << "\n";
  std::cout << fmt::format("wrote {} ({} layers, hidden {}, intermediate {}); model.safetensors sha256 {}\n",
                           out.string(), cu.config.numLayers, cu.config.hiddenSize, cu.config.intermediateSize,
                           manifest["model_safetensors_sha256"].get<std::string>());
  return 0;
}

// qgpu compile machine --out DIR: the whole step compiled, proven and written with its
// manifest (machine_checkpoint.h). Streams the tensors to disk; peak memory is the compiled
// step's (about 15 GB of dense f32 tensors while it is emitted and proven).
int runMachine(const std::filesystem::path& out, const std::string& command, bool json) {
  checkCheckpointFolder(out);  // before a minute of compiling
  const auto t = std::chrono::steady_clock::now();
  CompiledStep s = compileMachineStep();
  const auto w = std::chrono::steady_clock::now();
  const nlohmann::json provenance = {
      {"producer", "qgpu compile machine"},
      {"command", command},
      {"source_commit", QGPU_SOURCE_COMMIT},
      {"source_tree_modified", QGPU_SOURCE_DIRTY != 0},
  };
  const nlohmann::json m = writeMachineCheckpoint(s.unit, s.proof, out, provenance);
  const auto seconds = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  const double writeSeconds = seconds(w, std::chrono::steady_clock::now());
  if (json) {
    nlohmann::json j = m;
    j["timings"] = {{"compile_seconds", s.compileSeconds}, {"proof_seconds", s.proofSeconds}, {"write_seconds", writeSeconds},
                    {"total_seconds", seconds(t, std::chrono::steady_clock::now())}};
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  const nlohmann::json& f = m["files"]["model.safetensors"];
  std::cout << fmt::format(
      "wrote {}: {} layers, hidden {}, intermediate {}, vocab {}; proven exact (min margin {:g})\n"
      "  model.safetensors {} bytes ({} tensors bf16, {} f32), sha256 {}\n"
      "  {} parameters, {} non-zero\n"
      "  compile {:.1f} s, proof {:.1f} s, write and hash {:.1f} s\n",
      out.string(), s.unit.config.numLayers, s.unit.config.hiddenSize, s.unit.config.intermediateSize,
      s.unit.config.vocabSize, s.proof.minMargin, f["bytes"].get<uint64_t>(), f["bf16_tensors"].get<size_t>(),
      f["f32_tensors"].get<size_t>(), f["sha256"].get<std::string>(), m["parameters"].get<size_t>(),
      m["nonzero_parameters"].get<size_t>(), s.compileSeconds, s.proofSeconds, writeSeconds);
  return 0;
}

// A Qwen3.5 text checkpoint folder as one side of a splice.
struct LoadedSide {
  std::shared_ptr<model::TensorStore> store;
  SpliceSide side;
};
LoadedSide loadSide(const std::filesystem::path& dir) {
  LoadedSide l;
  l.side.config = model::loadConfig(dir / "config.json");
  l.store = model::TensorStore::openCheckpoint(dir);
  l.side.store = l.store.get();
  l.side.origin = dir.string();
  return l;
}

int runSplice(const std::filesystem::path& baseDir, const std::string& gpuDir, const std::filesystem::path& out,
              int64_t idOffset, const std::string& command, bool json) {
  checkCheckpointFolder(out);
  const auto t = std::chrono::steady_clock::now();
  const LoadedSide base = loadSide(baseDir);
  LoadedSide gpu;
  std::optional<CompiledStep> compiled;
  nlohmann::json gpuProvenance;
  if (gpuDir.empty()) {  // the machine compiled here, as `qgpu compile machine` would write it
    compiled = compileMachineStep();
    gpu.side = {compiled->unit.config, compiled->unit.store.get(), "the machine compiled in memory"};
    gpuProvenance = {{"compiled_in_memory", true},
                     {"machine_isa", {{"fingerprint", machineIsaFingerprint()}}},
                     {"proof", {{"min_margin", compiled->proof.minMargin}}}};
  } else {
    gpu = loadSide(gpuDir);
    std::ifstream mf(std::filesystem::path(gpuDir) / "manifest.json");
    if (mf) gpuProvenance = nlohmann::json::parse(mf, nullptr, false);
    gpuProvenance["folder"] = gpuDir;
  }
  SpliceOptions so;
  so.gpuIdOffset = idOffset;
  const SplicePlan plan = planSplice(base.side, gpu.side, so);
  const SpliceFiles files = writeSplice(plan, base.side, gpu.side, out);
  const std::string sha = sha256OfFile(out / "model.safetensors");
  nlohmann::json m = {
      {"format", kSplicedCheckpointFormat},
      {"producer", "qgpu compile splice"},
      {"command", command},
      {"source_commit", QGPU_SOURCE_COMMIT},
      {"source_tree_modified", QGPU_SOURCE_DIRTY != 0},
      {"base", {{"folder", baseDir.string()}, {"layers", base.side.config.numLayers}, {"hidden", base.side.config.hiddenSize},
                {"vocab", base.side.config.vocabSize}}},
      {"gpu", gpuProvenance},
      {"splice", plan.describe()},
      {"inexact_scaled_base_weights", files.inexactScaled},
      {"files", {{"model.safetensors", {{"bytes", files.safetensorsBytes}, {"sha256", sha}, {"tensors", files.tensors},
                                        {"bf16_tensors", files.bf16Tensors}, {"f32_tensors", files.f32Tensors}}},
                 {"config.json", {{"sha256", sha256OfFile(out / "config.json")}}}}},
      {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count()},
  };
  std::ofstream(out / "manifest.json") << m.dump(2) << "\n";
  if (json) {
    std::cout << m.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("wrote {}: {} + {} layers, hidden {} (base x 2^{} in channels 0-{}, GPU in {}-{}), vocab {}\n"
                           "  model.safetensors {} bytes, sha256 {}; {} base weights scaled inexactly\n",
                           out.string(), plan.baseLayers, plan.gpuLayers, plan.spliced.hiddenSize, plan.scaleExponent,
                           plan.base.hiddenSize - 1, plan.gpuChannel0, plan.gpuChannel0 + plan.gpu.hiddenSize - 1,
                           plan.spliced.vocabSize, files.safetensorsBytes, sha, files.inexactScaled);
  return 0;
}

int runSpliceCheck(const std::filesystem::path& baseDir, const std::filesystem::path& splicedDir, size_t prompts,
                   size_t length, uint64_t seed, bool json) {
  const model::Model base = model::Model::load(baseDir);
  const model::Model spliced = model::Model::load(splicedDir);
  const auto t = std::chrono::steady_clock::now();
  const TextComparison c = compareText(base, spliced, randomPrompts(base.config().vocabSize, prompts, length, seed));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  if (json) {
    nlohmann::json j = c.json();
    j["seed"] = seed;
    j["seconds"] = seconds;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format("{} text prompts, {} positions: KL(base || spliced) mean {:g}, max {:g} nats; {} base-vocabulary "
                             "logits differ (max |difference| {:g}); ids beyond the base's: probability at most {:g}, "
                             "at least {:g} below the top text logit\n",
                             c.prompts.size(), c.positions, c.klMean, c.klMax, c.differingLogits, c.maxLogitDifference,
                             c.otherIdsMassMax, c.otherIdsGapMin);
    std::cout << (c.identical() ? "identical: text runs in the spliced model exactly as in the base\n"
                                : "DIFFERENT: text in the spliced model departs from the base\n");
  }
  return c.identical() ? 0 : 1;
}

int guarded(const std::function<int()>& f) {
  try {
    return f();
  } catch (const CompileError& e) {
    std::cerr << "qgpu compile: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace

void addCompileCommands(CLI::App& app, Context& ctx) {
  CLI::App* c = app.add_subcommand("compile", "The weight compiler: machine units as proven-exact Qwen3.5 layers");
  c->require_subcommand(1);
  static bool json = false;
  CLI::App* units = c->add_subcommand("units", "Compile and prove every unit; print the measured cost table");
  units->add_flag("--json", json, "JSON instead of a Markdown table");
  units->callback([&ctx] { ctx.exitCode = guarded([] { return runUnits(json); }); });

  static std::string proveName;
  static double minMargin = 1.0;
  CLI::App* prove = c->add_subcommand("prove", "The exactness proof of one unit, layer by layer");
  prove->add_option("unit", proveName, "Unit name (qgpu compile units lists them)")->required();
  prove->add_option("--min-margin", minMargin, "Required SiLU margin")->capture_default_str();
  prove->callback([&ctx] { ctx.exitCode = guarded([] { return runProve(proveName, minMargin); }); });

  static std::string planName;
  static int planLayer = 0;
  static bool planJson = false;
  CLI::App* planCmd = c->add_subcommand(
      "plan", "A unit's layer plan without emitting it (plan-only units too): channels, neurons and heads per layer, "
              "and with --layer the channels live there and its MLP's neurons, by wire");
  planCmd->add_option("unit", planName, "Unit name (qgpu compile units lists them)")->required();
  planCmd->add_option("--layer", planLayer, "List the channels live at this layer and its MLP's neurons, grouped by wire")
      ->check(CLI::Range(1, 1000));
  planCmd->add_flag("--json", planJson, "JSON instead of text");
  planCmd->callback([&ctx] { ctx.exitCode = guarded([] { return runPlan(planName, planLayer, planJson); }); });

  static std::string machineOut;
  static bool machineJson = false;
  CLI::App* machineCmd = c->add_subcommand(
      "machine", "Compile the whole machine step (qgpu run --backend model's weights), prove it exact and write it as a "
                 "Hugging Face Qwen3.5 checkpoint with manifest.json (deterministic; about 8 GB; needs about 17 GB of memory)");
  machineCmd->add_option("--out", machineOut, "Output folder (new, or an earlier checkpoint's)")->required();
  machineCmd->add_flag("--json", machineJson, "Print the manifest and timings as JSON");
  machineCmd->callback([&ctx] {
    ctx.exitCode = guarded([&ctx] { return runMachine(machineOut, ctx.command, machineJson); });
  });

  static std::vector<std::string> coverageKernels;
  static std::string coverageDir = "kernels";
  static bool coverageJson = false;
  CLI::App* coverage = c->add_subcommand(
      "coverage", "Which corpus launches (W=4, each flavour) the compiled machine step can run through the weights, and "
                  "for the rest the machine ops it does not run yet, the capacity exceeded or the lowering's refusal "
                  "(static: nothing is generated)");
  coverage->add_option("kernels", coverageKernels, "Kernel names or folders (default: every kernel folder)");
  coverage->add_option("--kernels-dir", coverageDir, "Corpus folder")->capture_default_str();
  coverage->add_flag("--json", coverageJson, "JSON instead of text");
  coverage->callback([&ctx] {
    ctx.exitCode = guarded([] { return compileCoverageCommand(coverageKernels, coverageDir, coverageJson); });
  });

  static std::string spliceBase, spliceGpu, spliceOut;
  static int64_t spliceOffset = 248320;
  static bool spliceJson = false;
  CLI::App* spliceCmd = c->add_subcommand(
      "splice", "Write a Qwen3.5 text checkpoint (--base) and the compiled GPU in one checkpoint: the base's layers, then "
                "the GPU's, text exactly as in the base, the GPU's ids after the base's vocabulary (docs/compiler.md §9)");
  spliceCmd->add_option("--base", spliceBase, "The base's folder (config.json, model.safetensors)")->required();
  spliceCmd->add_option("--gpu", spliceGpu, "A checkpoint of `qgpu compile machine` (default: compile the machine here, "
                                            "about 17 GB of memory)");
  spliceCmd->add_option("--out", spliceOut, "Output folder (new, or an earlier checkpoint's)")->required();
  spliceCmd->add_option("--id-offset", spliceOffset, "Model row of the GPU's first id")->capture_default_str();
  spliceCmd->add_flag("--json", spliceJson, "Print the manifest as JSON");
  spliceCmd->callback([&ctx] {
    ctx.exitCode = guarded([&ctx] { return runSplice(spliceBase, spliceGpu, spliceOut, spliceOffset, ctx.command, spliceJson); });
  });

  static std::string checkBase, checkSpliced;
  static size_t checkPrompts = 8, checkLength = 64;
  static uint64_t checkSeed = 1;
  static bool checkJson = false;
  CLI::App* spliceCheck = c->add_subcommand(
      "splice-check", "Text through a spliced checkpoint against its base: every base-vocabulary logit, KL per position "
                      "(exit 1 unless identical)");
  spliceCheck->add_option("--base", checkBase, "The base's folder")->required();
  spliceCheck->add_option("--spliced", checkSpliced, "The spliced checkpoint's folder")->required();
  spliceCheck->add_option("--prompts", checkPrompts, "Random text prompts")->check(CLI::Range(1, 10000))->capture_default_str();
  spliceCheck->add_option("--length", checkLength, "Tokens a prompt")->check(CLI::Range(1, 100000))->capture_default_str();
  spliceCheck->add_option("--seed", checkSeed, "Seed of the prompts")->capture_default_str();
  spliceCheck->add_flag("--json", checkJson, "JSON instead of text");
  spliceCheck->callback([&ctx] {
    ctx.exitCode = guarded([] { return runSpliceCheck(checkBase, checkSpliced, checkPrompts, checkLength, checkSeed, checkJson); });
  });

  static std::string unitName, outDir;
  static int samples = 256;
  static uint64_t seed = 1;
  CLI::App* unit = c->add_subcommand("unit", "Write one unit as a Hugging Face Qwen3.5 checkpoint");
  unit->add_option("unit", unitName, "Unit name")->required();
  unit->add_option("--out", outDir, "Output folder")->required();
  unit->add_option("--samples", samples, "Sample inputs written with the engine's logits")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  unit->add_option("--seed", seed, "Seed of the samples")->capture_default_str();
  unit->callback([&ctx] {
    ctx.exitCode = guarded([&ctx] { return runUnit(unitName, outDir, samples, seed, ctx.command); });
  });
}

}  // namespace qgpu::cli
