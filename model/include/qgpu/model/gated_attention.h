// Qwen3.5's gated full-attention token mixer ("full_attention" layers): q_proj
// yields per head [query | output gate], per-head zero-centred RMSNorm on q and
// k, partial RoPE, grouped-query causal attention over a growing KV cache,
// sigmoid output gate, o_proj.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "qgpu/model/config.h"
#include "qgpu/model/linear.h"
#include "qgpu/model/rotary.h"
#include "qgpu/model/weight_source.h"

namespace qgpu::model {

struct KvCache {
    Eigen::MatrixXf keys;    // (nkv*hd) x capacity, keys after k_norm and RoPE
    Eigen::MatrixXf values;  // (nkv*hd) x capacity
    int length = 0;          // positions filled
};

class GatedAttention {
public:
    GatedAttention(const ModelConfig& config, const WeightSource& weights, const std::string& layerPrefix);

    // u: hidden x T normalised inputs at positions cache.length, cache.length+1, ...
    Eigen::MatrixXf forward(KvCache& cache, const Eigen::MatrixXf& u) const;

    std::vector<const Linear*> projections() const;

private:
    Eigen::VectorXf attendToken(KvCache& cache, Eigen::VectorXf qAndGate, Eigen::VectorXf k, const Eigen::VectorXf& v) const;

    int numHeads_, numKvHeads_, headDim_;
    float eps_;
    float scaling_;
    RotaryEmbedding rotary_;
    Linear qProj_, kProj_, vProj_, oProj_;
    Eigen::VectorXf qNormGain_, kNormGain_;
};

}  // namespace qgpu::model
