// Qwen3.5's Gated DeltaNet token mixer ("linear_attention" layers): projections,
// causal depthwise conv1d with a rolling window, SiLU, L2-normalised q/k, the
// gated delta-rule recurrence per value head, gated RMSNorm, out projection.
// Prefill runs the same recurrence token by token (HF's chunked form is an
// exact algebraic rewrite of it), so both paths share this code.
#pragma once

#include <Eigen/Dense>
#include <utility>
#include <vector>

#include "qgpu/model/config.h"
#include "qgpu/model/linear.h"
#include "qgpu/model/weight_source.h"

namespace qgpu::model {

// A value head's state, dk x dv, stored by rows: the one-hot path reads and writes row k
// (one key's memory of every value channel) as contiguous floats, not dv cache lines.
using DeltaState = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct GatedDeltaNetState {
    Eigen::MatrixXf convWindow;          // conv_dim x (Kc-1) raw projections, oldest first
    std::vector<DeltaState> recurrent;   // per value head, dk x dv
    // Per value head: no entry of its state has the sign bit set (every one is +0 or positive),
    // the condition under which the one-hot fast path gives the dense loop's bits.
    std::vector<uint8_t> signClear;
    std::vector<uint8_t> allZero;  // per value head: every entry of its state is +0
    std::vector<uint64_t> oneHotSteps;  // per value head: tokens it took on the fast path (one-hot or silent)
    std::vector<uint64_t> unreadSteps;  // per value head: tokens it was not computed (out_proj never reads it)
    // Every head took the fast path at the last token: the next one runs its heads on the
    // calling thread (microseconds each, less than waking the pool). Scheduling only.
    bool lastTokenAllFast = false;
};

class GatedDeltaNet {
public:
    GatedDeltaNet(const ModelConfig& config, const WeightSource& weights, const std::string& layerPrefix);

    GatedDeltaNetState initialState() const;
    // u: hidden x T normalised inputs (one token per column), continuing from `state`.
    Eigen::MatrixXf forward(GatedDeltaNetState& state, const Eigen::MatrixXf& u) const;

    std::vector<const Linear*> projections() const;

private:
    // Conv, activation, normalisation, recurrence and gated norm for one token;
    // returns the value_dim vector fed to out_proj.
    Eigen::VectorXf mixToken(GatedDeltaNetState& state, const Eigen::VectorXf& qkv, const Eigen::VectorXf& z,
                             const Eigen::VectorXf& b, const Eigen::VectorXf& a) const;

    int numKeyHeads_, numValueHeads_, keyHeadDim_, valueHeadDim_, convKernel_;
    float eps_;
    Linear inProjQkv_, inProjZ_, inProjB_, inProjA_, outProj_;
    Eigen::MatrixXf convWeight_;  // conv_dim x Kc; tap Kc-1 multiplies the current token
    Eigen::VectorXf negExpA_;     // -exp(A_log)
    Eigen::VectorXf dtBias_;
    Eigen::VectorXf normWeight_;  // gated norm weight (plain, not zero-centred), dv
    // The one-hot fast path (the sparse path's, off when every matrix is dense): a head whose
    // normalised key and query are exactly one-hot and whose decay is exactly 1 touches one
    // row of its state, not all of it (the compiler's memory heads).
    bool oneHotFastPath_ = true;
    // Per value head: whether out_proj reads its output. One it does not read (sparse storage
    // with no entry in the head's columns) is not computed, its state not kept: nothing else
    // reads either, and its output enters no sum of the sparse product.
    std::vector<char> headRead_;
    std::vector<char> keyHeadRead_;              // per key head: some read value head uses it
    std::vector<std::pair<int, int>> convRead_;  // (first, count) conv channels a read head uses
};

// y = W x for one token (GEMV, threaded) or W X for several (GEMM).
Eigen::MatrixXf project(const Linear& w, const Eigen::MatrixXf& x);

}  // namespace qgpu::model
