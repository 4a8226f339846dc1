// Part 2c's splice (docs/compiler.md §9): a compiled GPU (the machine step, or any compiled
// unit) and a Qwen3.5 text base in one Qwen3.5 checkpoint — the base's layers, then the
// GPU's — such that text runs exactly as in the base and the GPU exactly as alone.
//
// How, in one paragraph: the two share no residual channel. The spliced hidden size is
// N' = H * 4^k (H the base's), the smallest that holds the base's H channels, the GPU's and
// a flag; the base's residual is carried scaled by s = 2^k (its embedding times s, its
// output projections times s, its input projections divided by s), so every RMSNorm over N'
// channels computes the very quotient the base computed over H (the mean square grows by
// s^2 = N'/H) and every product the base's bits. Each side reads only its own channels, so
// on the other side's tokens its projections see exact zeros and its layers add exact zeros
// (DeltaNet and gated attention give 0 for a zero input: docs/compiler.md §9). The GPU's
// norms stay exact because extra anchor channels (GPU ids only) raise the anchors' square
// sum by N'/H_gpu. Text ids carry a flag of 2^-76 in one channel, whose square is 0 in f32:
// it changes no norm, yet the head reads it to push every GPU id's logit far below the
// text ids' (so text's next-token distribution is the base's, exactly).
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "qgpu/model/config.h"
#include "qgpu/model/tensor_store.h"

namespace qgpu::compiler {

/// The manifest's "format" of a spliced checkpoint.
inline constexpr const char* kSplicedCheckpointFormat = "qgpu-spliced-checkpoint/1";

/// One side of a splice: a Qwen3.5 text model's config and tensors (prefix "model." or
/// "model.language_model.", as checkTensors finds it).
struct SpliceSide {
  model::ModelConfig config;
  const model::TensorStore* store = nullptr;
  std::string origin;  // a folder or "memory", for messages and the manifest
};

struct SpliceOptions {
  /// Model row of the GPU's id 0: the machine's ids are numbered from 248,320 (Qwen3.5's
  /// text vocabulary; docs/machine.md §3.1), so its rows keep their protocol numbers. The
  /// base's vocabulary must end at or below it.
  int64_t gpuIdOffset = 248320;
};

/// Where everything lies in the spliced model (computed before any tensor is written).
struct SplicePlan {
  model::ModelConfig base, gpu, spliced;
  int scaleExponent = 0;        // k: the base's residual is carried times s = 2^k
  int64_t gpuChannel0 = 0;      // GPU channel c is spliced channel gpuChannel0 + c
  int64_t flagChannel = 0;      // text ids hold kTextFlag here
  std::vector<std::pair<int64_t, float>> extraAnchors;  // channel, value (GPU ids only)
  int64_t gpuIdOffset = 0;
  float gpuAnchor = 0;          // the GPU's anchor value (its embedding's channel 0)
  uint32_t gpuLiveAnchors = 0;  // 1 or 2 (channel 1 holds the anchor too)
  int baseLayers = 0, gpuLayers = 0;
  std::string basePrefix, gpuPrefix;  // the sides' tensor name prefixes ("model." or "model.language_model.")
  nlohmann::json describe() const;
};

/// The text flag: its square underflows to +0 in f32 (2^-152 < half the least subnormal).
inline constexpr float kTextFlag = 0x1p-76f;
/// The final norm's gain on the flag channel and the head's weight on it for GPU and
/// filler ids: a text position's GPU logits fall by 2^(40-16) / rms, far below any text logit.
inline constexpr float kFlagGain = 0x1p60f;
inline constexpr float kFlagHeadWeight = -0x1p40f;

/// Checks that the two fit together and plans the layout. Throws Error(ErrorKind::Input)
/// naming what does not fit (a base vocabulary that reaches the GPU's ids, head shapes the
/// GPU's layers cannot take, a GPU without the anchors its norms rely on).
SplicePlan planSplice(const SpliceSide& base, const SpliceSide& gpu, const SpliceOptions& options = {});

struct SpliceFiles {
  uint64_t safetensorsBytes = 0;
  size_t tensors = 0, bf16Tensors = 0, f32Tensors = 0;
  /// Base weights whose scaling by s or 1/s was not exact (underflow or overflow): the
  /// text side is then not bit-exact; 0 for any base of normal-range weights.
  size_t inexactScaled = 0;
};

/// Writes DIR/config.json and DIR/model.safetensors, streamed a block of rows at a time
/// (a 2B-shaped splice is tens of GB, mostly zeros), deterministic.
SpliceFiles writeSplice(const SplicePlan& plan, const SpliceSide& base, const SpliceSide& gpu, const std::filesystem::path& dir);

}  // namespace qgpu::compiler

namespace qgpu::model {
class Model;
}

namespace qgpu::compiler {

/// The spliced model's text against the base's (splice_check.cpp): the same text prompts
/// through both, every position's next-token distribution compared.
struct PromptComparison {
  size_t positions = 0;
  double klMean = 0, klMax = 0;  // KL(base || spliced), nats, per position
  size_t differingLogits = 0;    // base-vocabulary logits not bit-identical
};
struct TextComparison {
  std::vector<PromptComparison> prompts;
  size_t positions = 0, differingLogits = 0;
  double klMean = 0, klMax = 0;
  double maxLogitDifference = 0;  // |base - spliced| over the base's vocabulary
  double otherIdsMassMax = 0;     // the largest probability the spliced model gives ids beyond the base's
  double otherIdsGapMin = 0;      // the smallest (top base-id logit - top other logit)
  bool identical() const { return differingLogits == 0 && klMax == 0 && otherIdsMassMax == 0; }
  nlohmann::json json() const;
};

/// Runs each prompt (token ids below the base's vocabulary) through both models in one
/// prefill and compares every position's logits.
TextComparison compareText(const model::Model& base, const model::Model& spliced, const std::vector<std::vector<int>>& prompts);

/// `count` seeded random prompts of `length` ids below `vocab`.
std::vector<std::vector<int>> randomPrompts(int vocab, size_t count, size_t length, uint64_t seed);

}  // namespace qgpu::compiler
