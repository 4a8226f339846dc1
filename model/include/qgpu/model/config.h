// The Qwen3.5 text-model hyper-parameters the engine needs, read from a Hugging
// Face config.json: either a flat text config (model_type "qwen3_5_text") or a
// full multimodal one (model_type "qwen3_5") whose "text_config" is used.
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "qgpu/model/dtype.h"

namespace qgpu::model {

enum class LayerType { LinearAttention, FullAttention };

std::string layerTypeName(LayerType t);

struct ModelConfig {
    std::string modelType;  // as found at the top level of config.json
    bool composite = false; // true when read from "text_config" of a full Qwen3.5 config
    int vocabSize = 0;
    int hiddenSize = 0;
    int intermediateSize = 0;
    int numLayers = 0;
    std::vector<LayerType> layerTypes;
    // Gated full attention.
    int numHeads = 0;
    int numKvHeads = 0;
    int headDim = 0;
    double ropeTheta = 10000.0;
    double partialRotaryFactor = 1.0;
    // Gated DeltaNet.
    int linearKeyHeads = 0;
    int linearValueHeads = 0;
    int linearKeyHeadDim = 0;
    int linearValueHeadDim = 0;
    int convKernel = 0;
    double rmsNormEps = 1e-6;
    bool tieWordEmbeddings = false;

    int keyDim() const { return linearKeyHeads * linearKeyHeadDim; }
    int valueDim() const { return linearValueHeads * linearValueHeadDim; }
    int convDim() const { return 2 * keyDim() + valueDim(); }
    int rotaryDim() const { return static_cast<int>(headDim * partialRotaryFactor); }
};

// Parses and validates; `origin` names the source in errors. Throws ModelError.
ModelConfig parseConfig(const nlohmann::json& j, const std::string& origin);
ModelConfig loadConfig(const std::filesystem::path& configJson);

// The flat Hugging Face text config of `c` (model_type "qwen3_5_text", Qwen3_5ForCausalLM;
// also for a config read from a composite one): every field parseConfig reads, written
// explicitly (layer_types, rope_parameters with mrope_section, tie_word_embeddings, ...), plus
// the keys transformers' Qwen3_5TextConfig writes that the engine ignores; `weights` gives
// "dtype" (bfloat16, float32, float16). parseConfig reads it back as `c`.
nlohmann::json configJson(const ModelConfig& c, DType weights);

}  // namespace qgpu::model
