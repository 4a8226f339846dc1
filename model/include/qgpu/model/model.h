// A loaded Qwen3.5 text model and its forward pass. One forward call takes any
// number of tokens continuing a DecodeState: one token is a decoding step
// (GEMV), several are a prefill (GEMM); both run the same layer code and leave
// the same caches behind.
#pragma once

#include <Eigen/Dense>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "qgpu/model/checkpoint_check.h"
#include "qgpu/model/config.h"
#include "qgpu/model/gated_attention.h"
#include "qgpu/model/gated_delta_net.h"
#include "qgpu/model/linear.h"
#include "qgpu/model/mlp.h"
#include "qgpu/model/tensor_store.h"

namespace qgpu::model {

struct ModelOptions {
    LinearOptions linear;
};

// Per-sequence caches: for each layer either a DeltaNet state or a KV cache.
struct DecodeState {
    std::vector<GatedDeltaNetState> deltaNet;  // indexed by layer (empty entries for attention layers)
    std::vector<KvCache> kv;                   // indexed by layer (empty entries for DeltaNet layers)
    int position = 0;                          // tokens consumed so far
};

enum class Logits { All, LastOnly };

// Sees the residual stream (hidden x T) after the embedding (layer 0) and after each layer
// (1..numLayers): a probe of where a forward pass departs from a reference.
using LayerObserver = std::function<void(int layer, const Eigen::MatrixXf& residual)>;

class Model {
public:
    // Reads DIR/config.json and the safetensors weights, checks every tensor.
    static Model load(const std::filesystem::path& dir, const ModelOptions& options = {});
    // Builds from tensors already in a store (e.g. made in memory); checks them too.
    static Model fromStore(const ModelConfig& config, std::shared_ptr<const TensorStore> store,
                           const ModelOptions& options = {});

    const ModelConfig& config() const { return config_; }
    const CheckpointReport& report() const { return report_; }

    DecodeState newState() const;
    // Runs `tokens` at positions state.position...; returns vocab x T logits
    // (or vocab x 1 for the last token only). Throws ModelError on a bad token id.
    Eigen::MatrixXf forward(DecodeState& state, std::span<const int> tokens, Logits which = Logits::All,
                            const LayerObserver* observer = nullptr) const;
    // The same forward pass from given residual-stream inputs (hidden x T, one column per
    // position) in place of token embeddings, as Hugging Face's `inputs_embeds`.
    Eigen::MatrixXf forwardEmbeddings(DecodeState& state, Eigen::MatrixXf x, Logits which = Logits::All,
                                      const LayerObserver* observer = nullptr) const;
    Eigen::VectorXf step(DecodeState& state, int token) const;

    // Every projection matrix (for storage statistics and the bandwidth floor).
    std::vector<const Linear*> projections() const;
    // Weight bytes one decoding step reads (all projections + one embedding row + norms).
    std::size_t weightBytesPerToken() const;

private:
    struct Layer {
        LayerType type;
        Eigen::VectorXf inputNormGain, postNormGain;
        std::unique_ptr<GatedDeltaNet> deltaNet;
        std::unique_ptr<GatedAttention> attention;
        std::unique_ptr<Mlp> mlp;
    };

    Eigen::VectorXf embed(int token) const;

    ModelConfig config_;
    CheckpointReport report_;
    std::shared_ptr<const TensorStore> store_;  // keeps mapped weights alive
    const TensorView* embedding_ = nullptr;
    std::vector<Layer> layers_;
    Eigen::VectorXf finalNormGain_;
    Linear lmHead_;
    float eps_ = 1e-6f;
};

}  // namespace qgpu::model
