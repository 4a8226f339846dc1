// Qwen3.5's Gated DeltaNet token mixer (linear_attention layers).
#include "qgpu/model/gated_delta_net.h"

#include <cmath>

#include "qgpu/model/activations.h"
#include "qgpu/model/parallel_for.h"
#include "qgpu/model/rms_norm.h"

namespace qgpu::model {

Eigen::MatrixXf project(const Linear& w, const Eigen::MatrixXf& x) {
    if (x.cols() == 1) return w.apply(x.col(0));
    return w.applyBatch(x);
}

GatedDeltaNet::GatedDeltaNet(const ModelConfig& c, const WeightSource& w, const std::string& p)
    : numKeyHeads_(c.linearKeyHeads),
      numValueHeads_(c.linearValueHeads),
      keyHeadDim_(c.linearKeyHeadDim),
      valueHeadDim_(c.linearValueHeadDim),
      convKernel_(c.convKernel),
      eps_(static_cast<float>(c.rmsNormEps)),
      inProjQkv_(w.linear(p + "in_proj_qkv.weight")),
      inProjZ_(w.linear(p + "in_proj_z.weight")),
      inProjB_(w.linear(p + "in_proj_b.weight")),
      inProjA_(w.linear(p + "in_proj_a.weight")),
      outProj_(w.linear(p + "out_proj.weight")) {
    const Eigen::VectorXf conv = w.vector(p + "conv1d.weight");  // [conv_dim, 1, Kc] row-major
    convWeight_ = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        conv.data(), c.convDim(), c.convKernel);
    negExpA_ = -w.vector(p + "A_log").array().exp();
    dtBias_ = w.vector(p + "dt_bias");
    normWeight_ = w.vector(p + "norm.weight");
}

std::vector<const Linear*> GatedDeltaNet::projections() const {
    return {&inProjQkv_, &inProjZ_, &inProjB_, &inProjA_, &outProj_};
}

GatedDeltaNetState GatedDeltaNet::initialState() const {
    GatedDeltaNetState s;
    s.convWindow = Eigen::MatrixXf::Zero(convWeight_.rows(), convKernel_ - 1);  // zero left padding
    s.recurrent.assign(numValueHeads_, Eigen::MatrixXf::Zero(keyHeadDim_, valueHeadDim_));
    return s;
}

Eigen::MatrixXf GatedDeltaNet::forward(GatedDeltaNetState& state, const Eigen::MatrixXf& u) const {
    const Eigen::MatrixXf qkv = project(inProjQkv_, u);
    const Eigen::MatrixXf z = project(inProjZ_, u);
    const Eigen::MatrixXf b = project(inProjB_, u);
    const Eigen::MatrixXf a = project(inProjA_, u);
    Eigen::MatrixXf mixed(numValueHeads_ * valueHeadDim_, u.cols());
    for (Eigen::Index t = 0; t < u.cols(); ++t) mixed.col(t) = mixToken(state, qkv.col(t), z.col(t), b.col(t), a.col(t));
    return project(outProj_, mixed);
}

Eigen::VectorXf GatedDeltaNet::mixToken(GatedDeltaNetState& state, const Eigen::VectorXf& qkv, const Eigen::VectorXf& z,
                                        const Eigen::VectorXf& b, const Eigen::VectorXf& a) const {
    const int taps = convKernel_;
    const int history = taps - 1;
    // Causal depthwise conv over [window | current], then SiLU; then roll the window.
    Eigen::VectorXf conv = convWeight_.col(history).cwiseProduct(qkv);
    for (int j = 0; j < history; ++j) conv += convWeight_.col(j).cwiseProduct(state.convWindow.col(j));
    if (history > 0) {
        for (int j = 0; j + 1 < history; ++j) state.convWindow.col(j) = state.convWindow.col(j + 1);
        state.convWindow.col(history - 1) = qkv;
    }
    conv = conv.unaryExpr([](float v) { return silu(v); });

    const int dk = keyHeadDim_, dv = valueHeadDim_;
    const int keyDim = numKeyHeads_ * dk;
    // L2-normalise q and k per key head (eps 1e-6 inside the sqrt), scale q by 1/sqrt(dk).
    Eigen::MatrixXf q(dk, numKeyHeads_), k(dk, numKeyHeads_);
    const float qScale = std::sqrt(static_cast<float>(dk));
    for (int h = 0; h < numKeyHeads_; ++h) {
        const auto qh = conv.segment(h * dk, dk);
        const auto kh = conv.segment(keyDim + h * dk, dk);
        q.col(h) = qh * (1.0f / std::sqrt(qh.squaredNorm() + 1e-6f)) / qScale;
        k.col(h) = kh * (1.0f / std::sqrt(kh.squaredNorm() + 1e-6f));
    }

    const int valuesPerKey = numValueHeads_ / numKeyHeads_;
    Eigen::VectorXf out(numValueHeads_ * dv);
    auto mixHead = [&](int j) {
        const int h = j / valuesPerKey;  // value heads are grouped by key head (repeat_interleave)
        const float beta = sigmoid(b[j]);
        const float decay = std::exp(negExpA_[j] * softplus(a[j] + dtBias_[j]));
        Eigen::MatrixXf& s = state.recurrent[j];
        const auto kh = k.col(h);
        const auto qh = q.col(h);
        Eigen::VectorXf o(dv);
        // One pass over the state, column by column (column c of S is the memory of value channel c):
        // decay, read m = S^T k, delta-rule write, then read the output with q, in HF's order.
        for (int c = 0; c < dv; ++c) {
            auto col = s.col(c);
            col *= decay;
            const float memory = col.dot(kh);
            const float delta = (conv[2 * keyDim + j * dv + c] - memory) * beta;
            col += kh * delta;
            o[c] = col.dot(qh);
        }
        // Gated RMSNorm: plain-weight norm first, then the SiLU(z) gate.
        o *= inverseRms(o, eps_);
        o = normWeight_.cwiseProduct(o);
        for (int i = 0; i < dv; ++i) o[i] *= silu(z[j * dv + i]);
        out.segment(j * dv, dv) = o;
    };
    // Heads are independent; at real size (16 heads of 128x128 state) they are worth splitting over threads.
    const auto heads = static_cast<std::size_t>(numValueHeads_);
    const bool parallel = heads * dk * dv >= (1u << 16);
    parallelFor(heads, parallel ? 1 : heads, [&](std::size_t j0, std::size_t j1) {
        for (std::size_t j = j0; j < j1; ++j) mixHead(static_cast<int>(j));
    });
    return out;
}

}  // namespace qgpu::model
