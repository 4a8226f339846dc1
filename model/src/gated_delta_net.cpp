// Qwen3.5's Gated DeltaNet token mixer (linear_attention layers).
#include "qgpu/model/gated_delta_net.h"

#include <algorithm>
#include <atomic>
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
    oneHotFastPath_ = w.options().sparseDensity > 0 && w.options().oneHotDeltaNet;
    headRead_ = inputBlocksRead(outProj_, numValueHeads_, valueHeadDim_, w.options());
    // The conv channels some read head uses: its key head's q and k, its own v.
    const int valuesPerKey = numValueHeads_ / numKeyHeads_, keyDim = numKeyHeads_ * keyHeadDim_;
    keyHeadRead_.assign(static_cast<std::size_t>(numKeyHeads_), 0);
    for (int j = 0; j < numValueHeads_; ++j)
        if (headRead_[static_cast<std::size_t>(j)]) keyHeadRead_[static_cast<std::size_t>(j / valuesPerKey)] = 1;
    auto use = [&](int at, int n) {
        if (!convRead_.empty() && convRead_.back().first + convRead_.back().second == at) convRead_.back().second += n;
        else convRead_.emplace_back(at, n);
    };
    for (int h = 0; h < numKeyHeads_; ++h)
        if (keyHeadRead_[static_cast<std::size_t>(h)]) use(h * keyHeadDim_, keyHeadDim_);
    for (int h = 0; h < numKeyHeads_; ++h)
        if (keyHeadRead_[static_cast<std::size_t>(h)]) use(keyDim + h * keyHeadDim_, keyHeadDim_);
    for (int j = 0; j < numValueHeads_; ++j)
        if (headRead_[static_cast<std::size_t>(j)]) use(2 * keyDim + j * valueHeadDim_, valueHeadDim_);
}

namespace {

// One pass over the state, column by column (column c of S is the memory of value channel c):
// decay, read m = S^T k, delta-rule write, then read the output with q, in HF's order. Each
// column is worked on as a contiguous copy, so its dot products sum in the same packet order
// as a column-major state's.
void denseHead(DeltaState& s, const Eigen::Ref<const Eigen::VectorXf>& kh, const Eigen::Ref<const Eigen::VectorXf>& qh,
               float decay, float beta, const Eigen::Ref<const Eigen::VectorXf>& v, Eigen::VectorXf& o) {
    Eigen::VectorXf col(s.rows());
    for (Eigen::Index c = 0; c < s.cols(); ++c) {
        col = s.col(c);
        col *= decay;
        const float memory = col.dot(kh);
        const float delta = (v[c] - memory) * beta;
        col += kh * delta;
        o[c] = col.dot(qh);
        s.col(c) = col;
    }
}

bool allPositiveZero(const Eigen::Ref<const Eigen::VectorXf>& v) {
    return std::all_of(v.data(), v.data() + v.size(), [](float x) { return x == 0.0f && !std::signbit(x); });
}

// The index of the one non-zero entry of v when it is exactly `one` and every other entry is
// +0 (not -0: the dense dot products' signed zeros then match), else -1.
int exactOneHot(const Eigen::Ref<const Eigen::VectorXf>& v, float one) {
    int at = -1;
    for (Eigen::Index i = 0; i < v.size(); ++i) {
        const float x = v[i];
        if (x == 0.0f && !std::signbit(x)) continue;
        if (x != one || at >= 0) return -1;
        at = static_cast<int>(i);
    }
    return at;
}

}  // namespace

std::vector<const Linear*> GatedDeltaNet::projections() const {
    return {&inProjQkv_, &inProjZ_, &inProjB_, &inProjA_, &outProj_};
}

GatedDeltaNetState GatedDeltaNet::initialState() const {
    GatedDeltaNetState s;
    s.convWindow = Eigen::MatrixXf::Zero(convWeight_.rows(), convKernel_ - 1);  // zero left padding
    s.recurrent.assign(numValueHeads_, DeltaState::Zero(keyHeadDim_, valueHeadDim_));
    s.signClear.assign(static_cast<std::size_t>(numValueHeads_), 1);
    s.oneHotSteps.assign(static_cast<std::size_t>(numValueHeads_), 0);
    s.unreadSteps.assign(static_cast<std::size_t>(numValueHeads_), 0);
    s.allZero.assign(static_cast<std::size_t>(numValueHeads_), 1);
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
    // Causal depthwise conv over [window | current], then SiLU, over the channels a read head
    // uses (each channel's own products and sum: the same bits as over all; the others stay
    // +0, read by nothing); then roll the window (every channel).
    Eigen::VectorXf conv = Eigen::VectorXf::Zero(qkv.size());
    for (const auto& [at, n] : convRead_) {
        auto c = conv.segment(at, n);
        c = convWeight_.col(history).segment(at, n).cwiseProduct(qkv.segment(at, n));
        for (int j = 0; j < history; ++j)
            c += convWeight_.col(j).segment(at, n).cwiseProduct(state.convWindow.col(j).segment(at, n));
        c = c.unaryExpr([](float v) { return silu(v); });
    }
    if (history > 0) {
        for (int j = 0; j + 1 < history; ++j) state.convWindow.col(j) = state.convWindow.col(j + 1);
        state.convWindow.col(history - 1) = qkv;
    }

    const int dk = keyHeadDim_, dv = valueHeadDim_;
    const int keyDim = numKeyHeads_ * dk;
    // L2-normalise q and k per key head (eps 1e-6 inside the sqrt), scale q by 1/sqrt(dk).
    Eigen::MatrixXf q(dk, numKeyHeads_), k(dk, numKeyHeads_);
    const float qScale = std::sqrt(static_cast<float>(dk));
    for (int h = 0; h < numKeyHeads_; ++h) {
        if (!keyHeadRead_[static_cast<std::size_t>(h)]) continue;  // no read value head uses it
        const auto qh = conv.segment(h * dk, dk);
        const auto kh = conv.segment(keyDim + h * dk, dk);
        q.col(h) = qh * (1.0f / std::sqrt(qh.squaredNorm() + 1e-6f)) / qScale;
        k.col(h) = kh * (1.0f / std::sqrt(kh.squaredNorm() + 1e-6f));
    }

    const int valuesPerKey = numValueHeads_ / numKeyHeads_;
    Eigen::VectorXf out(numValueHeads_ * dv);
    std::atomic<int> fastHeads{0};
    auto mixHead = [&](int j) {
        if (!headRead_[static_cast<std::size_t>(j)]) {
            out.segment(j * dv, dv).setZero();
            ++state.unreadSteps[static_cast<std::size_t>(j)];
            fastHeads.fetch_add(1, std::memory_order_relaxed);
            return;
        }
        const int h = j / valuesPerKey;  // value heads are grouped by key head (repeat_interleave)
        const float beta = sigmoid(b[j]);
        const float decay = std::exp(negExpA_[j] * softplus(a[j] + dtBias_[j]));
        DeltaState& s = state.recurrent[j];
        const auto kh = k.col(h);
        const auto qh = q.col(h);
        Eigen::VectorXf o(dv);
        // One-hot key and query, decay 1, and a state of +0 and positive entries: S^T k is row kj
        // of S, S^T q is row qj times q's entry, and the write changes row kj only — the dense
        // loop's bits, since every other term of its dot products is +0 (an entry >= +0 times +0)
        // and adding (+0) * delta changes no entry when delta is finite.
        // A key and query of +0 only (a silent head) change nothing and read +0 the same way.
        // A silent head (key and query +0 only) on a state of +0 only keeps it so, whatever its
        // (finite) decay, and reads +0.
        const std::size_t hj = static_cast<std::size_t>(j);
        // A decay of exactly 0 on a finite state of +0 and positive entries leaves all +0
        // (0 * x = +0): the dense loop's bits, and from there the one-hot path below applies.
        if (oneHotFastPath_ && decay == 0.0f && state.signClear[hj] && !state.allZero[hj] && s.allFinite()) {
            s.setZero();
            state.allZero[hj] = 1;
        }
        const bool erased = decay == 0.0f && state.allZero[hj];
        const bool eligible = oneHotFastPath_ && (decay == 1.0f || erased) && state.signClear[hj];
        const int kj = eligible ? exactOneHot(kh, 1.0f) : -1;
        const int qj = kj >= 0 ? exactOneHot(qh, qh.maxCoeff()) : -1;
        const bool silent = oneHotFastPath_ && kj < 0 && state.allZero[hj] && std::isfinite(decay) &&
                            allPositiveZero(kh) && allPositiveZero(qh);
        bool fast = (kj >= 0 && qj >= 0) || silent;
        Eigen::VectorXf delta(dv);
        for (int c = 0; c < dv && fast; ++c) {
            delta[c] = (conv[2 * keyDim + j * dv + c] - (silent ? 0.0f : s(kj, c) + 0.0f)) * beta;
            fast = std::isfinite(delta[c]);
        }
        if (fast) fastHeads.fetch_add(1, std::memory_order_relaxed);
        if (fast && silent) {
            o.setZero();
            ++state.oneHotSteps[static_cast<std::size_t>(j)];
        } else if (fast) {
            const float qv = qh[qj];
            bool clear = true;
            for (int c = 0; c < dv; ++c) {
                s(kj, c) += delta[c];
                clear = clear && !std::signbit(s(kj, c));
            }
            for (int c = 0; c < dv; ++c) o[c] = s(qj, c) * qv + 0.0f;
            state.signClear[hj] = clear;
            state.allZero[hj] = state.allZero[hj] && (s.row(kj).array() == 0.0f).all() && clear;
            ++state.oneHotSteps[hj];
        } else {
            denseHead(s, kh, qh, decay, beta, conv.segment(2 * keyDim + j * dv, dv), o);
            if (oneHotFastPath_) {
                state.signClear[hj] = std::none_of(s.data(), s.data() + s.size(), [](float x) { return std::signbit(x); });
                state.allZero[hj] = state.signClear[hj] && (s.array() == 0.0f).all();
            }
        }
        // Gated RMSNorm: plain-weight norm first, then the SiLU(z) gate.
        o *= inverseRms(o, eps_);
        o = normWeight_.cwiseProduct(o);
        for (int i = 0; i < dv; ++i) o[i] *= silu(z[j * dv + i]);
        out.segment(j * dv, dv) = o;
    };
    // Heads are independent; at real size (16 heads of 128x128 state) they are worth splitting over threads.
    const auto heads = static_cast<std::size_t>(numValueHeads_);
    const bool parallel = heads * dk * dv >= (1u << 16) && !state.lastTokenAllFast;
    parallelFor(heads, parallel ? 1 : heads, [&](std::size_t j0, std::size_t j1) {
        for (std::size_t j = j0; j < j1; ++j) mixHead(static_cast<int>(j));
    });
    state.lastTokenAllFast = fastHeads.load() == numValueHeads_;
    return out;
}

}  // namespace qgpu::model
