// Qwen3.5's gated full-attention token mixer ("full_attention" layers): q_proj
// yields per head [query | output gate], per-head zero-centred RMSNorm on q and
// k, partial RoPE, grouped-query causal attention over a growing KV cache,
// sigmoid output gate, o_proj.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "qgpu/model/attention_read.h"
#include "qgpu/model/config.h"
#include "qgpu/model/linear.h"
#include "qgpu/model/rotary.h"
#include "qgpu/model/weight_source.h"

namespace qgpu::model {

struct KvCache {
    Eigen::MatrixXf keys;    // (nkv*hd) x capacity, keys after k_norm and RoPE
    Eigen::MatrixXf values;  // (nkv*hd) x capacity
    int length = 0;          // positions filled
    std::uint64_t skippedHeads = 0;  // query heads not computed (no o_proj entry reads them)
    // Per key-value head, its positions grouped by key (the sparse path's groupEqualKeys), and
    // the query-head reads that the groups answered without scoring every position.
    std::vector<EqualKeyGroups> keyGroups;
    std::uint64_t groupedReads = 0;
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
    // Per query head: whether o_proj reads its output. A head it does not read (sparse
    // storage with no entry in the head's columns) is not computed: its output enters no
    // sum of the sparse product, by rows or by columns, so the skip changes no bit.
    std::vector<char> headRead_;
    // Read through KvCache::keyGroups where they give softmaxRead's bits (attention_read.h).
    bool groupEqualKeys_;
};

}  // namespace qgpu::model
