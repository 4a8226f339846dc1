// Qwen3.5's gated full-attention token mixer.
#include "qgpu/model/gated_attention.h"

#include <algorithm>
#include <cmath>

#include "qgpu/model/activations.h"
#include "qgpu/model/gated_delta_net.h"
#include "qgpu/model/rms_norm.h"

namespace qgpu::model {

GatedAttention::GatedAttention(const ModelConfig& c, const WeightSource& w, const std::string& p)
    : numHeads_(c.numHeads),
      numKvHeads_(c.numKvHeads),
      headDim_(c.headDim),
      eps_(static_cast<float>(c.rmsNormEps)),
      scaling_(static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.headDim)))),
      rotary_(c.rotaryDim(), c.ropeTheta),
      qProj_(w.linear(p + "q_proj.weight")),
      kProj_(w.linear(p + "k_proj.weight")),
      vProj_(w.linear(p + "v_proj.weight")),
      oProj_(w.linear(p + "o_proj.weight")),
      qNormGain_(w.normGain(p + "q_norm.weight")),
      kNormGain_(w.normGain(p + "k_norm.weight")),
      headRead_(inputBlocksRead(oProj_, numHeads_, headDim_, w.options())),
      groupEqualKeys_(w.options().sparseDensity > 0 && w.options().groupEqualKeys) {}

std::vector<const Linear*> GatedAttention::projections() const { return {&qProj_, &kProj_, &vProj_, &oProj_}; }

Eigen::MatrixXf GatedAttention::forward(KvCache& cache, const Eigen::MatrixXf& u) const {
    const Eigen::MatrixXf qg = project(qProj_, u);
    const Eigen::MatrixXf k = project(kProj_, u);
    const Eigen::MatrixXf v = project(vProj_, u);
    Eigen::MatrixXf gated(numHeads_ * headDim_, u.cols());
    for (Eigen::Index t = 0; t < u.cols(); ++t) gated.col(t) = attendToken(cache, qg.col(t), k.col(t), v.col(t));
    return project(oProj_, gated);
}

Eigen::VectorXf GatedAttention::attendToken(KvCache& cache, Eigen::VectorXf qg, Eigen::VectorXf k, const Eigen::VectorXf& v) const {
    const int hd = headDim_;
    const int position = cache.length;
    for (int c = 0; c < numKvHeads_; ++c) {
        auto kc = k.segment(c * hd, hd);
        rmsNormInPlace(kc, kNormGain_, eps_);
        rotary_.apply(kc, position);
    }
    // Append to the cache, doubling its capacity when full.
    if (cache.length == cache.keys.cols()) {
        const Eigen::Index capacity = std::max<Eigen::Index>(16, 2 * cache.keys.cols());
        cache.keys.conservativeResize(numKvHeads_ * hd, capacity);
        cache.values.conservativeResize(numKvHeads_ * hd, capacity);
    }
    cache.keys.col(cache.length) = k;
    cache.values.col(cache.length) = v;
    const int length = ++cache.length;
    if (groupEqualKeys_) {
        cache.keyGroups.resize(static_cast<std::size_t>(numKvHeads_));
        for (int c = 0; c < numKvHeads_; ++c)
            cache.keyGroups[static_cast<std::size_t>(c)].append(cache.keys.block(c * hd, 0, hd, length),
                                                                cache.values.block(c * hd, 0, hd, length));
    }

    const int groups = numHeads_ / numKvHeads_;
    Eigen::VectorXf out(numHeads_ * hd);
    for (int h = 0; h < numHeads_; ++h) {
        if (!headRead_[static_cast<std::size_t>(h)]) {
            out.segment(h * hd, hd).setZero();
            ++cache.skippedHeads;
            continue;
        }
        // q_proj rows are interleaved per head: [query_h (hd) | gate_h (hd)].
        Eigen::VectorXf q = qg.segment(h * 2 * hd, hd);
        const auto gate = qg.segment(h * 2 * hd + hd, hd);
        rmsNormInPlace(q, qNormGain_, eps_);
        rotary_.apply(q, position);
        const int c = h / groups;
        const auto keys = cache.keys.block(c * hd, 0, hd, length);
        const auto values = cache.values.block(c * hd, 0, hd, length);
        std::optional<Eigen::VectorXf> grouped;
        if (groupEqualKeys_) grouped = cache.keyGroups[static_cast<std::size_t>(c)].read(keys, values, q, scaling_);
        cache.groupedReads += grouped ? 1 : 0;
        Eigen::VectorXf a = grouped ? std::move(*grouped) : softmaxRead(keys, values, q, scaling_);
        for (int i = 0; i < hd; ++i) a[i] *= sigmoid(gate[i]);
        out.segment(h * hd, hd) = a;
    }
    return out;
}

}  // namespace qgpu::model
