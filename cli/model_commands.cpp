// qgpu model info|generate: the Qwen3.5 engine (qgpu_model) from the command line.
#include "model_commands.h"

#include <fmt/core.h>

#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "qgpu/model/error.h"
#include "qgpu/model/generate.h"
#include "qgpu/model/model.h"

namespace qgpu::model {
namespace {

struct InfoArgs {
    std::string dir;
    bool json = false;
};

struct GenerateArgs {
    std::string dir;
    std::string ids;
    int maxNew = 16;
    bool json = false;
    bool tokenByToken = false;
    bool dense = false;
    std::string logits;  // write every position's logits here (JSON)
};

std::vector<int> parseIds(const std::string& text) {
    std::vector<int> ids;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        std::size_t used = 0;
        long long v = -1;
        try {
            v = std::stoll(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size() || v < 0 || v > 2147483647)
            throw ModelError("--ids: '" + item + "' is not a non-negative token id (expected e.g. 1,2,3)");
        ids.push_back(static_cast<int>(v));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return ids;
}

std::map<std::string, int> storageCounts(const Model& m) {
    std::map<std::string, int> counts;
    for (const Linear* l : m.projections()) ++counts[l->storageName()];
    return counts;
}

void runInfo(const InfoArgs& a) {
    const Model m = Model::load(a.dir);
    const ModelConfig& c = m.config();
    const CheckpointReport& r = m.report();
    std::vector<std::string> types;
    for (LayerType t : c.layerTypes) types.push_back(layerTypeName(t));
    if (a.json) {
        nlohmann::json j = {
            {"dir", a.dir},
            {"model_type", c.modelType},
            {"vocab_size", c.vocabSize},
            {"hidden_size", c.hiddenSize},
            {"intermediate_size", c.intermediateSize},
            {"num_hidden_layers", c.numLayers},
            {"layer_types", types},
            {"num_attention_heads", c.numHeads},
            {"num_key_value_heads", c.numKvHeads},
            {"head_dim", c.headDim},
            {"rotary_dim", c.rotaryDim()},
            {"linear_num_key_heads", c.linearKeyHeads},
            {"linear_num_value_heads", c.linearValueHeads},
            {"linear_key_head_dim", c.linearKeyHeadDim},
            {"linear_value_head_dim", c.linearValueHeadDim},
            {"linear_conv_kernel_dim", c.convKernel},
            {"tie_word_embeddings", c.tieWordEmbeddings},
            {"parameters", r.parameters},
            {"tensor_check", {{"status", "ok"}, {"prefix", r.prefix}, {"text_tensors", r.textTensors},
                              {"skipped_vision", r.skippedVision}, {"skipped_mtp", r.skippedMtp},
                              {"dtypes", r.dtypeCounts}}},
            {"projection_storage", storageCounts(m)},
        };
        std::cout << j.dump(2) << "\n";
        return;
    }
    fmt::print("checkpoint   {}\n", a.dir);
    fmt::print("model_type   {}{}\n", c.modelType, c.composite ? " (text_config used)" : "");
    fmt::print("dimensions   vocab {}, hidden {}, intermediate {}, layers {}\n", c.vocabSize, c.hiddenSize,
               c.intermediateSize, c.numLayers);
    fmt::print("attention    heads {}, kv heads {}, head_dim {}, rotary_dim {}, theta {}\n", c.numHeads, c.numKvHeads,
               c.headDim, c.rotaryDim(), c.ropeTheta);
    fmt::print("deltanet     key heads {}, value heads {}, key dim {}, value dim {}, conv kernel {}\n", c.linearKeyHeads,
               c.linearValueHeads, c.linearKeyHeadDim, c.linearValueHeadDim, c.convKernel);
    std::string typeLine;
    for (std::size_t i = 0; i < types.size(); ++i) typeLine += (i ? ", " : "") + types[i];
    fmt::print("layer_types  {}\n", typeLine);
    fmt::print("lm_head      {}\n", c.tieWordEmbeddings ? "tied to embed_tokens" : "lm_head.weight");
    fmt::print("parameters   {}\n", r.parameters);
    std::string dtypes;
    for (const auto& [d, n] : r.dtypeCounts) dtypes += fmt::format(" {}x{}", n, d);
    fmt::print("tensor check ok: {} text tensors under '{}' ({}), skipped {} vision and {} MTP tensors\n", r.textTensors,
               r.prefix, dtypes.empty() ? "" : dtypes.substr(1), r.skippedVision, r.skippedMtp);
    std::string storage;
    for (const auto& [kind, n] : storageCounts(m)) storage += fmt::format(" {}x{}", n, kind);
    fmt::print("projections {}\n", storage);
}

void runGenerate(const GenerateArgs& a) {
    const std::vector<int> prompt = parseIds(a.ids);
    if (a.maxNew < 0) throw ModelError("--max-new must be >= 0");
    ModelOptions options;
    if (a.dense) options.linear.sparseDensity = 0;
    const Model m = Model::load(a.dir, options);
    const auto t0 = std::chrono::steady_clock::now();
    const Generation g = generateGreedy(m, prompt, a.maxNew, a.tokenByToken ? PromptMode::TokenByToken : PromptMode::Prefill);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!a.logits.empty()) {
        // Each column as f32 values (exact as JSON doubles), so another engine can be compared
        // position by position: the prompt's (one per prompt token) and each new token's.
        auto columns = [](const Eigen::MatrixXf& x) {
            nlohmann::json out = nlohmann::json::array();
            for (Eigen::Index t = 0; t < x.cols(); ++t) {
                nlohmann::json col = nlohmann::json::array();
                for (Eigen::Index v = 0; v < x.rows(); ++v) col.push_back(static_cast<double>(x(v, t)));
                out.push_back(std::move(col));
            }
            return out;
        };
        std::ofstream f(a.logits);
        if (!f) throw ModelError("--logits: cannot write " + a.logits);
        f << nlohmann::json{{"dir", a.dir},
                            {"prompt", prompt},
                            {"tokens", g.tokens},
                            {"mode", a.tokenByToken ? "token-by-token" : "prefill"},
                            {"prompt_logits", columns(g.promptLogits)},
                            {"step_logits", columns(g.stepLogits)}}
                 .dump()
          << "\n";
        if (!f) throw ModelError("--logits: cannot write " + a.logits);
    }
    if (a.json) {
        nlohmann::json j = {{"dir", a.dir},
                            {"prompt", prompt},
                            {"tokens", g.tokens},
                            {"mode", a.tokenByToken ? "token-by-token" : "prefill"},
                            {"elapsed_ms", ms}};
        std::cout << j.dump() << "\n";
        return;
    }
    std::string line;
    for (std::size_t i = 0; i < g.tokens.size(); ++i) line += (i ? "," : "") + std::to_string(g.tokens[i]);
    std::cout << line << "\n";
}

// Runs a subcommand body, turning bad input into the documented error and exit code.
template <typename F>
void guarded(int& exitCode, F&& body) {
    try {
        body();
        exitCode = 0;
    } catch (const ModelError& e) {
        std::cerr << "qgpu model: error: " << e.what() << "\n";
        exitCode = 2;
    } catch (const std::bad_alloc&) {
        std::cerr << "qgpu model: error: out of memory\n";
        exitCode = 2;
    }
}

}  // namespace

void addModelCommands(CLI::App& app, int& exitCode) {
    CLI::App* model = app.add_subcommand("model", "Qwen3.5 forward-pass engine");
    model->require_subcommand(1);

    auto info = std::make_shared<InfoArgs>();
    CLI::App* infoCmd = model->add_subcommand("info", "Config summary, parameter count, layer types and tensor check");
    infoCmd->add_option("dir", info->dir, "checkpoint directory (config.json + safetensors)")->required();
    infoCmd->add_flag("--json", info->json, "machine-readable output");
    infoCmd->callback([info, &exitCode] { guarded(exitCode, [&] { runInfo(*info); }); });

    auto gen = std::make_shared<GenerateArgs>();
    CLI::App* genCmd = model->add_subcommand("generate", "Greedy continuation of a prompt of token ids");
    genCmd->add_option("dir", gen->dir, "checkpoint directory")->required();
    genCmd->add_option("--ids", gen->ids, "prompt token ids, comma separated (e.g. 1,2,3)")->required();
    genCmd->add_option("--max-new", gen->maxNew, "number of tokens to generate")->required();
    genCmd->add_flag("--json", gen->json, "machine-readable output");
    genCmd->add_flag("--token-by-token", gen->tokenByToken, "feed the prompt one token at a time instead of one prefill");
    genCmd->add_flag("--dense", gen->dense, "keep every weight matrix dense (disable the sparse path)");
    genCmd->add_option("--logits", gen->logits,
                       "write the logits of every prompt position and every generated token to FILE (JSON, f32 values)");
    genCmd->callback([gen, &exitCode] { guarded(exitCode, [&] { runGenerate(*gen); }); });
}

}  // namespace qgpu::model
