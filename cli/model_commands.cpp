// qgpu model info|generate|random: the Qwen3.5 engine (qgpu_model) from the command line.
#include "model_commands.h"

#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "qgpu/model/error.h"
#include "qgpu/model/generate.h"
#include "qgpu/model/model.h"
#include "qgpu/model/random_model.h"
#include "qgpu/model/safetensors_writer.h"

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

struct RandomArgs {
    std::string out;
    std::string shape = "small";
    int layers = 0;  // 0: the shape's
    int vocab = 0;
    int hidden = 0;
    std::uint64_t seed = 1;
    std::string dtype = "bf16";
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

// A seeded random checkpoint (makeRandomTensors) written as DIR/config.json + DIR/model.safetensors.
void runRandom(const RandomArgs& a) {
    namespace fs = std::filesystem;
    ModelConfig c = a.shape == "2b" ? qwen35_2bConfig() : qwen35SmallConfig();
    // 0: not given (the options refuse an explicit 0 or a negative value).
    if (a.layers != 0) {
        c.numLayers = a.layers;
        c.layerTypes = qwen35LayerTypes(c.numLayers);
    }
    if (a.vocab != 0) c.vocabSize = a.vocab;
    if (a.hidden != 0) c.hiddenSize = a.hidden;
    RandomWeights spec;
    spec.seed = a.seed;
    spec.dtype = a.dtype == "f32" ? DType::F32 : DType::BF16;
    const nlohmann::json config = configJson(c, spec.dtype);
    parseConfig(config, "--shape " + a.shape);  // what loading it will check, before any work

    const fs::path dir(a.out);
    std::error_code ec;
    if (fs::exists(dir, ec)) {
        if (!fs::is_directory(dir, ec)) throw ModelError("--out: " + a.out + " exists and is not a directory");
        if (!fs::is_empty(dir, ec)) throw ModelError("--out: " + a.out + " is not empty; refusing to write into it");
    } else if (!fs::create_directories(dir, ec) || ec) {
        throw ModelError("--out: cannot create " + a.out + (ec ? ": " + ec.message() : ""));
    }

    const std::shared_ptr<TensorStore> store = makeRandomTensors(c, spec);
    std::vector<TensorSlice> slices;
    std::uint64_t parameters = 0;
    for (const auto& [name, view] : store->tensors()) {  // name order
        slices.push_back({name, &view, view.dtype});
        parameters += view.numel();
    }
    {
        std::ofstream f(dir / "config.json");
        f << config.dump(2) << "\n";
        f.close();
        if (!f) throw ModelError("--out: cannot write " + (dir / "config.json").string());
    }
    const std::uint64_t bytes = writeSafetensors(dir / "model.safetensors", slices);
    fmt::print("wrote {}: qwen3_5_text {} shape, {} layers, hidden {}, vocab {}, seed {}, {} parameters, {} "
               "model.safetensors {} bytes\n",
               a.out, a.shape, c.numLayers, c.hiddenSize, c.vocabSize, a.seed, parameters, a.dtype, bytes);
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

    auto rnd = std::make_shared<RandomArgs>();
    CLI::App* rndCmd = model->add_subcommand(
        "random", "Write a seeded random Qwen3.5 text checkpoint (config.json + model.safetensors) to a new directory");
    rndCmd->add_option("--out", rnd->out, "directory to write (must not exist, or be empty)")->required();
    rndCmd->add_option("--shape", rnd->shape,
                       "2b: the Qwen3.5-2B text model (24 layers, hidden 2048, vocab 248320; 3.8 GB in bf16); "
                       "small: the 2B's head shapes at hidden 256, 4 layers, vocab 4096")
        ->check(CLI::IsMember({"2b", "small"}))
        ->capture_default_str();
    rndCmd->add_option("--layers", rnd->layers, "number of layers (every fourth full_attention, as the 2B); default: the shape's")
        ->check(CLI::Range(1, 1 << 30));
    rndCmd->add_option("--vocab", rnd->vocab, "vocabulary size; default: the shape's")->check(CLI::Range(1, 1 << 30));
    rndCmd->add_option("--hidden", rnd->hidden, "hidden size; default: the shape's")->check(CLI::Range(1, 1 << 30));
    rndCmd->add_option("--seed", rnd->seed, "random seed (the same seed writes the same bytes)")->capture_default_str();
    rndCmd->add_option("--dtype", rnd->dtype, "weight type")->check(CLI::IsMember({"bf16", "f32"}))->capture_default_str();
    rndCmd->callback([rnd, &exitCode] { guarded(exitCode, [&] { runRandom(*rnd); }); });
}

}  // namespace qgpu::model
