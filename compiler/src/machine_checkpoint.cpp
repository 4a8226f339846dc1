// The compiled machine written to and loaded from disk (machine_checkpoint.h).
#include "qgpu/compiler/machine_checkpoint.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/machine_step.h"
#include "qgpu/compiler/machine_vocabulary.h"
#include "qgpu/compiler/splice.h"
#include "qgpu/interp/error.h"
#include "qgpu/machine/isa.h"
#include "qgpu/machine/tokens.h"
#include "qgpu/model/error.h"

namespace qgpu::compiler {
namespace {

namespace fs = std::filesystem;

const std::set<std::string> kFiles = {"config.json", "model.safetensors", "manifest.json"};

std::string readText(const fs::path& file) {
  std::ifstream f(file, std::ios::binary);
  if (!f) throw Error(ErrorKind::Input, fmt::format("{}: cannot read (not a qgpu machine checkpoint?)", file.string()));
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

Error badCheckpoint(const fs::path& file, const std::string& why) {
  return Error(ErrorKind::Input, fmt::format("{}: {}", file.string(), why));
}

// A machine spliced into a base (splice.h): the engine over the whole model with its default
// storage (the base's projections dense, the machine's sparse), the machine's ids after the
// base's vocabulary.
std::unique_ptr<CompiledMachine> loadSplicedMachine(const fs::path& dir, nlohmann::json m, Unit step, CompiledUnit planned,
                                                    double planSeconds) {
  const fs::path manifestFile = dir / "manifest.json";
  const nlohmann::json& sp = m.contains("splice") ? m["splice"] : nlohmann::json::object();
  const nlohmann::json channels = sp.value("gpu_channels", nlohmann::json::array());
  if (!channels.is_array() || channels.size() != 2 ||
      channels[1].get<int64_t>() - channels[0].get<int64_t>() != planned.config.hiddenSize ||
      sp.value("layers", nlohmann::json::object()).value("gpu", 0) != planned.config.numLayers)
    throw badCheckpoint(manifestFile, fmt::format("its machine is not the step this build compiles ({} layers, hidden {})",
                                                  planned.config.numLayers, planned.config.hiddenSize));
  const auto t = std::chrono::steady_clock::now();
  try {
    auto store = model::TensorStore::openCheckpoint(dir);
    model::Model engine = model::Model::fromStore(model::loadConfig(dir / "config.json"), store);
    ProofReport proof;
    proof.minMargin = m["gpu"].contains("proof") ? m["gpu"]["proof"].value("min_margin", 0.0) : 0.0;
    auto cm = machineOver(std::move(step), std::move(planned), std::move(proof), std::move(engine));
    cm->loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    cm->compileSeconds = planSeconds;
    cm->idRowOffset = sp.value("vocab", nlohmann::json::object()).value("gpu_id_offset", int64_t{0});
    cm->spliced = true;
    cm->checkpoint = dir;
    cm->manifest = std::move(m);
    return cm;
  } catch (const model::ModelError& e) {
    throw badCheckpoint(dir, e.what());
  }
}

}  // namespace

std::string machineIsaFingerprint() {
  std::string text = "ops\n";
  for (uint32_t i = 0; i < static_cast<uint32_t>(machine::MOp::Count); ++i) {
    const machine::MOpInfo& o = machine::opInfo(static_cast<machine::MOp>(i));
    text += fmt::format("{} {} {} {} {}\n", o.name, static_cast<int>(o.family), static_cast<int>(o.exec),
                        static_cast<int>(o.write), o.operands);
  }
  using namespace machine;
  text += fmt::format("tokens {} {} {} {} {} {} {} {} {} {} {} {} {} {}\n", kTextVocab, kChunkMore, kChunkLast, kPack4, kTop,
                      kGoto, kBlock, kWarpStart, kWarpResume, kDepth, kControl, kAt, kActive,
                      machineVocabulary(0).size());
  return sha256OfBytes(text);
}

void checkCheckpointFolder(const fs::path& dir) {
  if (!fs::exists(dir)) return;
  if (!fs::is_directory(dir)) throw CompileError(fmt::format("{}: exists and is not a folder", dir.string()));
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    if (!kFiles.count(e.path().filename().string()))
      throw CompileError(fmt::format("{}: holds {}, not only a checkpoint's files; not overwriting it", dir.string(),
                                     e.path().filename().string()));
}

nlohmann::json writeMachineCheckpoint(const CompiledUnit& unit, const ProofReport& proof, const fs::path& dir,
                                      const nlohmann::json& provenance) {
  if (!unit.store) throw CompileError(fmt::format("{}: the step has no tensors to write", dir.string()));
  checkCheckpointFolder(dir);
  fs::create_directories(dir);
  fs::remove(dir / "manifest.json");  // no manifest describes half-written files
  const CheckpointFiles files = writeHfCheckpoint(unit, dir);
  std::map<std::string, int> layerKinds;
  for (model::LayerType t : unit.config.layerTypes) ++layerKinds[std::string(model::layerTypeName(t))];
  nlohmann::json m = provenance;
  m.update({
      {"format", kMachineCheckpointFormat},
      {"machine_isa", {{"fingerprint", machineIsaFingerprint()},
                       {"ops", static_cast<int>(machine::MOp::Count)},
                       {"model_row_of_machine_id", fmt::format("machine id - {}", machine::kTextVocab)}}},
      {"model", {{"layers", unit.config.numLayers},
                 {"layer_kinds", layerKinds},
                 {"hidden_size", unit.config.hiddenSize},
                 {"intermediate_size", unit.config.intermediateSize},
                 {"vocab_size", unit.config.vocabSize},
                 {"residual_channels_used", unit.plan.physicalChannels}}},
      {"parameters", files.entries},
      {"nonzero_parameters", files.nonZeros},
      {"proof", {{"min_margin", proof.minMargin}, {"tightest_gate", proof.tightestGate}, {"tightest_layer", proof.tightestLayer}}},
      {"files", {{"config.json", {{"bytes", fs::file_size(dir / "config.json")}, {"sha256", sha256OfFile(dir / "config.json")}}},
                 {"model.safetensors", {{"bytes", files.safetensorsBytes},
                                        {"sha256", sha256OfFile(dir / "model.safetensors")},
                                        {"bf16_tensors", files.bf16Tensors},
                                        {"f32_tensors", files.f32Tensors}}}}},
  });
  std::ofstream(dir / "manifest.json") << m.dump(2) << "\n";
  return m;
}

std::unique_ptr<CompiledMachine> loadMachineCheckpoint(const fs::path& dir) {
  const fs::path manifestFile = dir / "manifest.json";
  nlohmann::json m;
  try {
    m = nlohmann::json::parse(readText(manifestFile));
  } catch (const nlohmann::json::exception& e) {
    throw badCheckpoint(manifestFile, fmt::format("not JSON ({})", e.what()));
  }
  const bool spliced = m.is_object() && m.value("format", "") == kSplicedCheckpointFormat;
  if (!m.is_object() || (m.value("format", "") != kMachineCheckpointFormat && !spliced))
    throw badCheckpoint(manifestFile, fmt::format("not a {} or {} manifest", kMachineCheckpointFormat, kSplicedCheckpointFormat));
  const std::string isa = machineIsaFingerprint();
  // A spliced checkpoint carries the machine's manifest as its "gpu".
  const nlohmann::json& machineManifest = spliced && m.contains("gpu") && m["gpu"].is_object() ? m["gpu"] : m;
  const nlohmann::json* theirs = machineManifest.contains("machine_isa") ? &machineManifest["machine_isa"] : nullptr;
  if (!theirs || !theirs->is_object() || theirs->value("fingerprint", "") != isa)
    throw badCheckpoint(manifestFile, fmt::format("compiled for machine ISA {}, this build's is {}: recompile it "
                                                  "(qgpu compile machine --out DIR)",
                                                  theirs && theirs->is_object() ? theirs->value("fingerprint", "?") : "?", isa));
  // The plan this build makes of the step: the probe reads channels by it, so the checkpoint
  // must be its model. Planning takes about a second; the tensors are not emitted.
  const auto t = std::chrono::steady_clock::now();
  const TokenVocabulary vocabulary = machineVocabulary(0);
  Unit step = machineStepUnit(&vocabulary);
  CompiledUnit planned = planUnit(step.circuit, machineEmitOptions(vocabulary));
  const double planSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  if (spliced) return loadSplicedMachine(dir, std::move(m), std::move(step), std::move(planned), planSeconds);
  // The model the file describes, as the engine reads it, against the step's: compared in the
  // engine's own spelling, so that fields the engine does not read (max_position_embeddings,
  // whose value this writer changed once) do not refuse a checkpoint of the same weights.
  model::ModelConfig described;
  try {
    described = model::loadConfig(dir / "config.json");
  } catch (const model::ModelError& e) {
    throw badCheckpoint(dir / "config.json", e.what());
  }
  if (model::configJson(described, model::DType::F32) != model::configJson(planned.config, model::DType::F32))
    throw badCheckpoint(dir / "config.json",
                        fmt::format("not the model of the step this build compiles ({} layers, hidden {}, intermediate {}): "
                                    "recompile it (qgpu compile machine --out DIR)",
                                    planned.config.numLayers, planned.config.hiddenSize, planned.config.intermediateSize));
  const fs::path weights = dir / "model.safetensors";
  std::error_code ec;
  const uintmax_t bytes = fs::file_size(weights, ec);
  const uintmax_t promised = m.contains("files") ? m["files"]["model.safetensors"].value("bytes", uintmax_t{0}) : 0;
  if (ec || bytes != promised)
    throw badCheckpoint(weights, ec ? ec.message() : fmt::format("{} bytes, the manifest says {}", bytes, promised));
  std::shared_ptr<model::TensorStore> store;
  try {
    store = model::TensorStore::openCheckpoint(dir);
    ProofReport proof;
    proof.minMargin = m.contains("proof") ? m["proof"].value("min_margin", 0.0) : 0.0;
    auto cm = machineInEngine(std::move(step), std::move(planned), std::move(proof), store);
    cm->compileSeconds = planSeconds;
    cm->checkpoint = dir;
    cm->manifest = std::move(m);
    return cm;
  } catch (const model::ModelError& e) {
    throw badCheckpoint(dir, e.what());
  }
}

}  // namespace qgpu::compiler
