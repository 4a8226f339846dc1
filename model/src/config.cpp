// Reads a Hugging Face config.json into the engine's Qwen3.5 hyper-parameters.
#include "qgpu/model/config.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "qgpu/model/error.h"
#include "qgpu/model/json_bounded.h"

namespace qgpu::model {
namespace {

using nlohmann::json;

struct Reader {
    const json& j;
    std::string where;

    [[noreturn]] void fail(const std::string& key, const std::string& why) const {
        throw ModelError(where + ": field '" + key + "' " + why);
    }
    int positiveInt(const std::string& key) const {
        auto it = j.find(key);
        if (it == j.end() || it->is_null()) fail(key, "is missing");
        if (!it->is_number_integer() || it->get<long long>() <= 0 || it->get<long long>() > (1 << 30))
            fail(key, "must be a positive integer, got " + it->dump());
        return static_cast<int>(it->get<long long>());
    }
    double number(const json& obj, const std::string& key, double fallback) const {
        auto it = obj.find(key);
        if (it == obj.end() || it->is_null()) return fallback;
        if (!it->is_number()) fail(key, "must be a number, got " + it->dump());
        return it->get<double>();
    }
    bool boolean(const std::string& key, bool fallback) const {
        auto it = j.find(key);
        if (it == j.end() || it->is_null()) return fallback;
        if (!it->is_boolean()) fail(key, "must be true or false, got " + it->dump());
        return it->get<bool>();
    }
};

}  // namespace

static ModelConfig parseConfigUnchecked(const json& top, const std::string& origin);

std::string layerTypeName(LayerType t) {
    return t == LayerType::LinearAttention ? "linear_attention" : "full_attention";
}

static ModelConfig parseConfigUnchecked(const json& top, const std::string& origin) {
    if (!top.is_object()) throw ModelError(origin + ": config is not a JSON object");
    ModelConfig c;
    c.modelType = top.value("model_type", std::string());
    const json* text = &top;
    std::string where = origin;
    if (c.modelType == "qwen3_5") {
        auto it = top.find("text_config");
        if (it == top.end() || !it->is_object())
            throw ModelError(origin + ": model_type 'qwen3_5' needs an object 'text_config'");
        text = &*it;
        where = origin + " (text_config)";
        c.composite = true;
    } else if (c.modelType != "qwen3_5_text") {
        throw ModelError(origin + ": field 'model_type' is '" + c.modelType +
                         "'; expected 'qwen3_5_text' (text config) or 'qwen3_5' (full config)");
    }
    const Reader r{*text, where};

    c.vocabSize = r.positiveInt("vocab_size");
    c.hiddenSize = r.positiveInt("hidden_size");
    c.intermediateSize = r.positiveInt("intermediate_size");
    c.numLayers = r.positiveInt("num_hidden_layers");
    c.numHeads = r.positiveInt("num_attention_heads");
    c.numKvHeads = r.positiveInt("num_key_value_heads");
    c.headDim = r.positiveInt("head_dim");
    c.linearKeyHeads = r.positiveInt("linear_num_key_heads");
    c.linearValueHeads = r.positiveInt("linear_num_value_heads");
    c.linearKeyHeadDim = r.positiveInt("linear_key_head_dim");
    c.linearValueHeadDim = r.positiveInt("linear_value_head_dim");
    c.convKernel = r.positiveInt("linear_conv_kernel_dim");
    c.rmsNormEps = r.number(*text, "rms_norm_eps", 1e-6);
    if (!(c.rmsNormEps >= 0)) r.fail("rms_norm_eps", "must be >= 0");
    // Who decides the tie is the config of the model class that loads it (transformers 5.24,
    // PreTrainedModel.get_expanded_tied_weights_keys reads self.config.tie_word_embeddings):
    // a text config (Qwen3_5ForCausalLM) its own flag; a composite one
    // (Qwen3_5ForConditionalGeneration) its top-level flag, whatever text_config says. Both
    // default to false (Qwen3_5TextConfig, Qwen3_5Config).
    c.tieWordEmbeddings = c.composite ? Reader{top, origin}.boolean("tie_word_embeddings", false)
                                      : r.boolean("tie_word_embeddings", false);

    const std::string act = text->value("hidden_act", std::string("silu"));
    if (act != "silu") r.fail("hidden_act", "is '" + act + "'; only 'silu' is supported");
    if (r.boolean("attention_bias", false)) r.fail("attention_bias", "is true; Qwen3.5 has no attention biases");

    // Rotary parameters: transformers 5 nests them in rope_parameters; older files keep them flat.
    const json* rope = text;
    if (auto it = text->find("rope_parameters"); it != text->end() && it->is_object()) rope = &*it;
    else if (auto it2 = text->find("rope_scaling"); it2 != text->end() && it2->is_object()) rope = &*it2;
    const std::string ropeType = rope->value("rope_type", rope->value("type", std::string("default")));
    if (ropeType != "default") r.fail("rope_type", "is '" + ropeType + "'; only 'default' is supported");
    c.ropeTheta = r.number(*rope, "rope_theta", r.number(*text, "rope_theta", 10000.0));
    c.partialRotaryFactor = r.number(*rope, "partial_rotary_factor", r.number(*text, "partial_rotary_factor", 0.25));
    if (!(c.ropeTheta > 0)) r.fail("rope_theta", "must be positive");
    if (!(c.partialRotaryFactor > 0 && c.partialRotaryFactor <= 1)) r.fail("partial_rotary_factor", "must be in (0, 1]");
    if (c.rotaryDim() % 2 != 0) r.fail("partial_rotary_factor", "gives an odd rotary dimension " + std::to_string(c.rotaryDim()));
    if (auto it = rope->find("mrope_section"); it != rope->end()) {
        // For text all three MRoPE position streams are equal, so whatever the sections say
        // (transformers' default [11, 11, 10] also with heads whose rotary_dim/2 is not 32),
        // every frequency sees the same position: the sections are not used, only their form
        // is checked (transformers slices with them).
        bool ok = it->is_array();
        if (ok)
            for (const auto& s : *it) ok = ok && s.is_number_integer() && s.get<long long>() >= 0;
        if (!ok) r.fail("mrope_section", "must be an array of non-negative integers");
    }

    // Every width the engine forms from two or three fields is an int: check the products here,
    // once, in 64 bits (a wrapped product passed `model info` and gave negative shapes).
    auto fitsInt = [&](const char* what, long long value, const char* key) {
        if (value > 0x7fffffffLL)
            r.fail(key, std::string("makes ") + what + " " + std::to_string(value) + ", more than 2^31-1");
    };
    const long long kd = 1LL * c.linearKeyHeads * c.linearKeyHeadDim, vd = 1LL * c.linearValueHeads * c.linearValueHeadDim;
    fitsInt("linear_num_key_heads x linear_key_head_dim", kd, "linear_key_head_dim");
    fitsInt("linear_num_value_heads x linear_value_head_dim", vd, "linear_value_head_dim");
    fitsInt("the conv1d width 2 x key dim + value dim", 2 * kd + vd, "linear_value_head_dim");
    fitsInt("the q_proj width 2 x num_attention_heads x head_dim", 2LL * c.numHeads * c.headDim, "num_attention_heads");
    fitsInt("num_key_value_heads x head_dim", 1LL * c.numKvHeads * c.headDim, "num_key_value_heads");

    if (c.numHeads % c.numKvHeads != 0)
        r.fail("num_key_value_heads", "(" + std::to_string(c.numKvHeads) + ") must divide num_attention_heads (" +
                                          std::to_string(c.numHeads) + ")");
    if (c.linearValueHeads % c.linearKeyHeads != 0)
        r.fail("linear_num_key_heads", "(" + std::to_string(c.linearKeyHeads) + ") must divide linear_num_value_heads (" +
                                           std::to_string(c.linearValueHeads) + ")");

    if (auto it = text->find("layer_types"); it != text->end() && !it->is_null()) {
        if (!it->is_array()) r.fail("layer_types", "must be an array");
        for (std::size_t i = 0; i < it->size(); ++i) {
            const json& t = (*it)[i];
            const std::string s = t.is_string() ? t.get<std::string>() : t.dump();
            if (s == "linear_attention") c.layerTypes.push_back(LayerType::LinearAttention);
            else if (s == "full_attention") c.layerTypes.push_back(LayerType::FullAttention);
            else r.fail("layer_types", "entry " + std::to_string(i) + " is '" + s +
                                           "'; expected 'linear_attention' or 'full_attention'");
        }
        if (static_cast<int>(c.layerTypes.size()) != c.numLayers)
            r.fail("layer_types", "has " + std::to_string(c.layerTypes.size()) + " entries but num_hidden_layers is " +
                                      std::to_string(c.numLayers));
    } else {
        // Same rule as HF when layer_types is absent: every interval-th layer is full attention.
        const int interval = text->contains("full_attention_interval") ? r.positiveInt("full_attention_interval") : 4;
        for (int i = 0; i < c.numLayers; ++i)
            c.layerTypes.push_back((i + 1) % interval == 0 ? LayerType::FullAttention : LayerType::LinearAttention);
    }
    return c;
}

ModelConfig parseConfig(const json& top, const std::string& origin) {
    try {
        return parseConfigUnchecked(top, origin);
    } catch (const json::exception& e) {
        // e.g. a string field holding a number: report it as bad input, not a crash.
        throw ModelError(origin + ": malformed field: " + e.what());
    }
}

json configJson(const ModelConfig& c, DType weights) {
    json types = json::array();
    for (LayerType t : c.layerTypes) types.push_back(layerTypeName(t));
    // MRoPE sections over the rotary dimension's frequency pairs, as Qwen3.5's [11, 11, 10]
    // for 32 pairs (text positions make them irrelevant to the result; transformers slices with
    // them, so they must add up to the pairs).
    const int pairs = c.rotaryDim() / 2;
    const int section = (pairs + 2) / 3;
    const json mrope = pairs >= 3 ? json{section, section, pairs - 2 * section} : json{pairs, 0, 0};
    const char* dtype = weights == DType::BF16 ? "bfloat16" : weights == DType::F16 ? "float16" : "float32";
    return {
        {"architectures", {"Qwen3_5ForCausalLM"}},
        {"model_type", "qwen3_5_text"},
        {"vocab_size", c.vocabSize},
        {"hidden_size", c.hiddenSize},
        {"intermediate_size", c.intermediateSize},
        {"num_hidden_layers", c.numLayers},
        {"layer_types", types},
        {"num_attention_heads", c.numHeads},
        {"num_key_value_heads", c.numKvHeads},
        {"head_dim", c.headDim},
        {"linear_num_key_heads", c.linearKeyHeads},
        {"linear_num_value_heads", c.linearValueHeads},
        {"linear_key_head_dim", c.linearKeyHeadDim},
        {"linear_value_head_dim", c.linearValueHeadDim},
        {"linear_conv_kernel_dim", c.convKernel},
        {"hidden_act", "silu"},
        {"rms_norm_eps", c.rmsNormEps},
        {"attention_bias", false},
        {"attention_dropout", 0.0},
        {"initializer_range", 0.02},
        {"max_position_embeddings", 262144},  // not read by the engine (no position limit)
        {"tie_word_embeddings", c.tieWordEmbeddings},
        {"use_cache", true},
        {"rope_parameters",
         {{"rope_type", "default"},
          {"rope_theta", c.ropeTheta},
          {"partial_rotary_factor", c.partialRotaryFactor},
          {"mrope_section", mrope},
          {"mrope_interleaved", true}}},
        {"dtype", dtype},
        {"bos_token_id", nullptr},
        {"eos_token_id", nullptr},
        {"pad_token_id", nullptr},
    };
}

ModelConfig loadConfig(const std::filesystem::path& configJson) {
    // A regular file of bounded size, nested at most kMaxConfigDepth deep (docs/limits.md): the
    // value is copied and dumped recursively afterwards.
    constexpr std::uintmax_t kMaxConfigBytes = std::uintmax_t{64} << 20;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(configJson, ec))
        throw ModelError(configJson.string() + ": cannot open (" +
                         (std::filesystem::exists(configJson, ec) ? "not a regular file" : "no such file") + ")");
    if (std::filesystem::file_size(configJson, ec) > kMaxConfigBytes)
        throw ModelError(configJson.string() + ": more than " + std::to_string(kMaxConfigBytes) + " bytes");
    std::ifstream in(configJson);
    if (!in) throw ModelError(configJson.string() + ": cannot open");
    json j = parseJsonBounded(in, configJson.string());
    if (j.is_discarded()) throw ModelError(configJson.string() + ": not valid JSON");
    return parseConfig(j, configJson.string());
}

}  // namespace qgpu::model
