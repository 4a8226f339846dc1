// The tensors a Qwen3.5 checkpoint must hold, and the check of a TensorStore against them.
#include "qgpu/model/checkpoint_check.h"

#include <set>

#include "qgpu/model/error.h"

namespace qgpu::model {
namespace {

bool startsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

bool isVision(const std::string& n) { return startsWith(n, "model.visual.") || startsWith(n, "visual."); }
bool isMtp(const std::string& n) { return startsWith(n, "mtp.") || startsWith(n, "model.mtp."); }

}  // namespace

std::vector<ExpectedTensor> expectedTensors(const ModelConfig& c, const std::string& prefix) {
    using S = std::vector<std::int64_t>;
    const std::int64_t H = c.hiddenSize, I = c.intermediateSize, V = c.vocabSize;
    std::vector<ExpectedTensor> out;
    auto add = [&](std::string name, S shape) { out.push_back({prefix + name, std::move(shape)}); };
    add("embed_tokens.weight", {V, H});
    add("norm.weight", {H});
    for (int i = 0; i < c.numLayers; ++i) {
        const std::string l = "layers." + std::to_string(i) + ".";
        add(l + "input_layernorm.weight", {H});
        add(l + "post_attention_layernorm.weight", {H});
        add(l + "mlp.gate_proj.weight", {I, H});
        add(l + "mlp.up_proj.weight", {I, H});
        add(l + "mlp.down_proj.weight", {H, I});
        if (c.layerTypes[i] == LayerType::LinearAttention) {
            const std::string a = l + "linear_attn.";
            add(a + "in_proj_qkv.weight", {c.convDim(), H});
            add(a + "in_proj_z.weight", {c.valueDim(), H});
            add(a + "in_proj_b.weight", {c.linearValueHeads, H});
            add(a + "in_proj_a.weight", {c.linearValueHeads, H});
            add(a + "conv1d.weight", {c.convDim(), 1, c.convKernel});
            add(a + "dt_bias", {c.linearValueHeads});
            add(a + "A_log", {c.linearValueHeads});
            add(a + "norm.weight", {c.linearValueHeadDim});
            add(a + "out_proj.weight", {H, c.valueDim()});
        } else {
            const std::string a = l + "self_attn.";
            const std::int64_t hd = c.headDim;
            add(a + "q_proj.weight", {2 * c.numHeads * hd, H});
            add(a + "k_proj.weight", {c.numKvHeads * hd, H});
            add(a + "v_proj.weight", {c.numKvHeads * hd, H});
            add(a + "o_proj.weight", {H, c.numHeads * hd});
            add(a + "q_norm.weight", {hd});
            add(a + "k_norm.weight", {hd});
        }
    }
    if (!c.tieWordEmbeddings) out.push_back({"lm_head.weight", {V, H}});
    return out;
}

CheckpointReport checkTensors(const ModelConfig& c, const TensorStore& store) {
    CheckpointReport report;
    bool multimodal = false;
    for (const auto& [name, v] : store.tensors()) multimodal |= startsWith(name, "model.language_model.");
    for (const auto& [name, u] : store.unsupported()) multimodal |= startsWith(name, "model.language_model.");
    report.prefix = multimodal ? "model.language_model." : "model.";

    std::vector<std::string> problems;
    std::set<std::string> expectedNames;
    for (const auto& e : expectedTensors(c, report.prefix)) {
        expectedNames.insert(e.name);
        if (auto u = store.unsupported().find(e.name); u != store.unsupported().end()) {
            problems.push_back("tensor '" + e.name + "' in " + u->second.origin + " has dtype " + u->second.dtypeName +
                               "; expected F32, F16 or BF16");
            continue;
        }
        const TensorView* v = store.find(e.name);
        if (!v) {
            problems.push_back("tensor '" + e.name + "' is missing (expected shape " + shapeString(e.shape) + ")");
            continue;
        }
        if (v->shape != e.shape) {
            problems.push_back("tensor '" + e.name + "' in " + v->origin + " has shape " + shapeString(v->shape) +
                               " but the config implies " + shapeString(e.shape));
            continue;
        }
        ++report.textTensors;
        report.parameters += v->numel();
        ++report.dtypeCounts[std::string(dtypeName(v->dtype))];
    }
    auto classify = [&](const std::string& name, const std::string& origin) {
        if (expectedNames.count(name)) return;
        if (isVision(name)) ++report.skippedVision;
        else if (isMtp(name)) ++report.skippedMtp;
        else if (name == "lm_head.weight" && c.tieWordEmbeddings)
            problems.push_back("unexpected tensor 'lm_head.weight' in " + origin +
                               ": tie_word_embeddings is true, so the head is the embedding");
        else problems.push_back("unexpected tensor '" + name + "' in " + origin + " (not part of this config's text model)");
    };
    for (const auto& [name, v] : store.tensors()) classify(name, v.origin);
    for (const auto& [name, u] : store.unsupported()) classify(name, u.origin);

    if (!problems.empty()) {
        std::string msg = "checkpoint does not match its config (" + std::to_string(problems.size()) + " problem" +
                          (problems.size() == 1 ? "" : "s") + "):";
        constexpr std::size_t kShown = 20;
        for (std::size_t i = 0; i < problems.size() && i < kShown; ++i) msg += "\n  " + problems[i];
        if (problems.size() > kShown) msg += "\n  ... and " + std::to_string(problems.size() - kShown) + " more";
        throw ModelError(msg);
    }
    return report;
}

}  // namespace qgpu::model
