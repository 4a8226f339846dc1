// Pass 3, emission: a layer plan as the tensors of a Qwen3.5 text checkpoint (in memory,
// for the engine's Model::fromStore, and on disk in Hugging Face's format). Every norm
// scale is an exact power of two because two anchor channels of 2^m dominate the
// residual's mean square (docs/compiler.md §2); mixers are exactly silent.
#pragma once

#include <Eigen/Dense>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "qgpu/compiler/circuit.h"
#include "qgpu/compiler/layer_plan.h"
#include "qgpu/compiler/token_io.h"
#include "qgpu/model/config.h"
#include "qgpu/model/tensor_store.h"

namespace qgpu::compiler {

struct EmitOptions {
  int anchorExponent = 40;  // anchors hold 2^m
  Gains gains;
  int minHidden = 64;
  bool reuseChannels = true;  // clear and reuse residual channels after their last reader
  /// Token I/O (token_io.h): the embedding sets the circuit's token inputs (it may have no
  /// others) and the head's argmax is the token its outputs name. None: the test layout
  /// (anchors-only embeddings, one logit per output).
  const TokenVocabulary* tokens = nullptr;
  /// With `tokens`: the circuit's inputs for token `id` (circuit.inputs() order), what its
  /// embedding row holds — for a circuit whose inputs are its token's features rather than
  /// tokenInput's class and value bits (the machine step's front end). Every id of a class
  /// is embedded; ids of no class hold the anchors only.
  std::function<std::vector<int64_t>(int64_t id)> tokenFeatures;
};

struct CompiledUnit {
  std::string name;
  LayerPlan plan;
  model::ModelConfig config;
  std::shared_ptr<model::TensorStore> store;
  int anchorExponent = 0;
  uint32_t liveAnchors = 0;  // 1 or 2: chosen so the mean square is a power of 4
  int normExponent = 0;      // every RMSNorm multiplies by exactly 2^-normExponent

  /// The residual-stream vector (hidden) holding the anchors and these input values: the
  /// test-only way of placing operands (the machine feeds them through tokens).
  Eigen::VectorXf residual(const std::vector<int64_t>& inputs) const;
  /// Output values read from one logits column (lm_head row o = output o). Throws
  /// CompileError if a logit is not the exact integer the circuit promises.
  std::vector<int64_t> decode(const Eigen::VectorXf& logits) const;
};

/// Schedules and plans `c` and sizes its model (plan, config, anchors, norm exponent) without
/// emitting tensors (store stays null): what probing a checkpoint from disk needs.
CompiledUnit planUnit(const Circuit& c, const EmitOptions& options = {});

/// Schedules, plans and emits `c`. Does not prove it: see proveExact (proof.h).
CompiledUnit compileCircuit(const Circuit& c, const EmitOptions& options = {});

struct CheckpointFiles {
  uint64_t safetensorsBytes = 0;
  size_t bf16Tensors = 0, f32Tensors = 0;
  size_t entries = 0, nonZeros = 0;  // over every tensor
};
/// Writes DIR/config.json and DIR/model.safetensors, byte-for-byte deterministic, streamed
/// from the unit's tensors. Each tensor is stored as BF16 when every one of its values is a
/// bf16 exactly (most are: small integers, powers of two, the anchors), else as F32: a loader
/// that widens to f32 (the engine; transformers with dtype=float32) gets the same f32 values
/// from half the bytes.
CheckpointFiles writeHfCheckpoint(const CompiledUnit& unit, const std::filesystem::path& dir);

/// The sha256 of a file, as hex (the checkpoint's identity in manifests and tests).
std::string sha256OfFile(const std::filesystem::path& file);
/// The sha256 of bytes in memory, lowercase hex.
std::string sha256OfBytes(std::string_view bytes);

/// The config.json text of a compiled unit (stable key order).
std::string hfConfigJson(const model::ModelConfig& config);

}  // namespace qgpu::compiler
