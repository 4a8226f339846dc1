// The Qwen3.5 decoder stack, its caches and forward pass.
#include "qgpu/model/model.h"

#include "qgpu/model/error.h"
#include "qgpu/model/rms_norm.h"
#include "qgpu/model/weight_source.h"

namespace qgpu::model {

Model Model::load(const std::filesystem::path& dir, const ModelOptions& options) {
    const ModelConfig config = loadConfig(dir / "config.json");
    return fromStore(config, TensorStore::openCheckpoint(dir), options);
}

Model Model::fromStore(const ModelConfig& config, std::shared_ptr<const TensorStore> store, const ModelOptions& options) {
    Model m;
    m.config_ = config;
    m.report_ = checkTensors(config, *store);
    m.store_ = std::move(store);
    m.eps_ = static_cast<float>(config.rmsNormEps);
    const WeightSource w(*m.store_, m.report_.prefix, options.linear);
    m.embedding_ = &w.view("embed_tokens.weight");
    for (int i = 0; i < config.numLayers; ++i) {
        const std::string p = "layers." + std::to_string(i) + ".";
        Layer layer;
        layer.type = config.layerTypes[i];
        layer.inputNormGain = w.normGain(p + "input_layernorm.weight");
        layer.postNormGain = w.normGain(p + "post_attention_layernorm.weight");
        if (layer.type == LayerType::LinearAttention)
            layer.deltaNet = std::make_unique<GatedDeltaNet>(config, w, p + "linear_attn.");
        else
            layer.attention = std::make_unique<GatedAttention>(config, w, p + "self_attn.");
        layer.mlp = std::make_unique<Mlp>(w, p + "mlp.");
        m.layers_.push_back(std::move(layer));
    }
    m.finalNormGain_ = w.normGain("norm.weight");
    m.lmHead_ = config.tieWordEmbeddings ? w.linear("embed_tokens.weight") : w.linear("lm_head.weight");
    return m;
}

DecodeState Model::newState() const {
    DecodeState s;
    s.deltaNet.resize(layers_.size());
    s.kv.resize(layers_.size());
    for (std::size_t i = 0; i < layers_.size(); ++i)
        if (layers_[i].deltaNet) s.deltaNet[i] = layers_[i].deltaNet->initialState();
    return s;
}

Eigen::VectorXf Model::embed(int token) const {
    if (token < 0 || token >= config_.vocabSize)
        throw ModelError("token id " + std::to_string(token) + " is outside the vocabulary [0, " +
                         std::to_string(config_.vocabSize) + ")");
    const std::size_t h = static_cast<std::size_t>(config_.hiddenSize);
    Eigen::VectorXf x(config_.hiddenSize);
    for (std::size_t i = 0; i < h; ++i) x[static_cast<Eigen::Index>(i)] = embedding_->at(static_cast<std::size_t>(token) * h + i);
    return x;
}

Eigen::MatrixXf Model::forward(DecodeState& state, std::span<const int> tokens, Logits which,
                               const LayerObserver* observer) const {
    if (tokens.empty()) throw ModelError("forward: no tokens given");
    if (state.deltaNet.size() != layers_.size()) throw ModelError("forward: decode state belongs to another model");
    Eigen::MatrixXf x(config_.hiddenSize, static_cast<Eigen::Index>(tokens.size()));
    for (std::size_t t = 0; t < tokens.size(); ++t) x.col(static_cast<Eigen::Index>(t)) = embed(tokens[t]);
    return forwardEmbeddings(state, std::move(x), which, observer);
}

Eigen::MatrixXf Model::forwardEmbeddings(DecodeState& state, Eigen::MatrixXf x, Logits which,
                                         const LayerObserver* observer) const {
    if (x.cols() == 0) throw ModelError("forward: no positions given");
    if (x.rows() != config_.hiddenSize)
        throw ModelError("forward: inputs have " + std::to_string(x.rows()) + " channels, the model " +
                         std::to_string(config_.hiddenSize));
    if (state.deltaNet.size() != layers_.size()) throw ModelError("forward: decode state belongs to another model");
    if (observer) (*observer)(0, x);
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        const Layer& layer = layers_[i];
        const Eigen::MatrixXf normed = rmsNormColumns(x, layer.inputNormGain, eps_);
        if (layer.deltaNet) x += layer.deltaNet->forward(state.deltaNet[i], normed);
        else x += layer.attention->forward(state.kv[i], normed);
        x += layer.mlp->forward(rmsNormColumns(x, layer.postNormGain, eps_));
        if (observer) (*observer)(static_cast<int>(i) + 1, x);
    }
    state.position += static_cast<int>(x.cols());

    if (which == Logits::LastOnly) x = x.rightCols(1).eval();
    return project(lmHead_, rmsNormColumns(x, finalNormGain_, eps_));
}

Eigen::VectorXf Model::step(DecodeState& state, int token) const {
    return forward(state, std::span<const int>(&token, 1)).col(0);
}

std::vector<const Linear*> Model::projections() const {
    std::vector<const Linear*> out;
    for (const Layer& l : layers_) {
        auto mixer = l.deltaNet ? l.deltaNet->projections() : l.attention->projections();
        out.insert(out.end(), mixer.begin(), mixer.end());
        auto mlp = l.mlp->projections();
        out.insert(out.end(), mlp.begin(), mlp.end());
    }
    out.push_back(&lmHead_);
    return out;
}

std::size_t Model::weightBytesPerToken() const {
    std::size_t bytes = 0;
    for (const Linear* p : projections()) bytes += p->bytesPerApply();
    bytes += static_cast<std::size_t>(config_.hiddenSize) * dtypeSize(embedding_->dtype);  // one embedding row
    return bytes;
}

}  // namespace qgpu::model
