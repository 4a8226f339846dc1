// config.json parsing: both layouts, defaults HF applies, and clear errors.
#include <gtest/gtest.h>

#include "qgpu/model/config.h"
#include "qgpu/model/error.h"
#include "qgpu/model/random_model.h"
#include "test_util.h"

namespace qgpu::model {
namespace {

void expectConfigError(const nlohmann::json& j, const std::string& needle) {
    try {
        parseConfig(j, "config.json");
        ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("config.json"), std::string::npos) << e.what();
    }
}

TEST(Config, ParsesFlatTextConfig) {
    const ModelConfig c = parseConfig(test::tinyConfigJson(), "config.json");
    EXPECT_EQ(c.hiddenSize, 64);
    EXPECT_EQ(c.numLayers, 4);
    EXPECT_EQ(c.layerTypes[3], LayerType::FullAttention);
    EXPECT_EQ(c.layerTypes[0], LayerType::LinearAttention);
    EXPECT_EQ(c.convDim(), 2 * 2 * 16 + 4 * 16);
    EXPECT_EQ(c.rotaryDim(), 8);
    EXPECT_DOUBLE_EQ(c.ropeTheta, 1e7);
    EXPECT_TRUE(c.tieWordEmbeddings);
    EXPECT_FALSE(c.composite);
}

// configJson writes a flat text config that parseConfig reads back as the same config.
TEST(Config, WrittenConfigReadsBackTheSame) {
    ModelConfig small = qwen35SmallConfig();
    small.tieWordEmbeddings = false;
    small.rmsNormEps = 1e-5;
    for (const ModelConfig& c : {qwen35_2bConfig(), small, parseConfig(test::tinyConfigJson(), "tiny")}) {
        const nlohmann::json j = configJson(c, DType::BF16);
        const ModelConfig r = parseConfig(j, "written");
        EXPECT_EQ(r.modelType, "qwen3_5_text");
        EXPECT_FALSE(r.composite);
        EXPECT_EQ(r.vocabSize, c.vocabSize);
        EXPECT_EQ(r.hiddenSize, c.hiddenSize);
        EXPECT_EQ(r.intermediateSize, c.intermediateSize);
        EXPECT_EQ(r.numLayers, c.numLayers);
        EXPECT_EQ(r.layerTypes, c.layerTypes);
        EXPECT_EQ(r.numHeads, c.numHeads);
        EXPECT_EQ(r.numKvHeads, c.numKvHeads);
        EXPECT_EQ(r.headDim, c.headDim);
        EXPECT_EQ(r.ropeTheta, c.ropeTheta);
        EXPECT_EQ(r.partialRotaryFactor, c.partialRotaryFactor);
        EXPECT_EQ(r.linearKeyHeads, c.linearKeyHeads);
        EXPECT_EQ(r.linearValueHeads, c.linearValueHeads);
        EXPECT_EQ(r.linearKeyHeadDim, c.linearKeyHeadDim);
        EXPECT_EQ(r.linearValueHeadDim, c.linearValueHeadDim);
        EXPECT_EQ(r.convKernel, c.convKernel);
        EXPECT_EQ(r.rmsNormEps, c.rmsNormEps);
        EXPECT_EQ(r.tieWordEmbeddings, c.tieWordEmbeddings);
        // The MRoPE sections cover the rotary frequency pairs.
        int pairs = 0;
        for (const auto& s : j.at("rope_parameters").at("mrope_section")) pairs += s.get<int>();
        EXPECT_EQ(pairs, c.rotaryDim() / 2);
        EXPECT_EQ(j.at("dtype"), "bfloat16");
    }
    const nlohmann::json twoB = configJson(qwen35_2bConfig(), DType::F32);
    EXPECT_EQ(twoB.at("rope_parameters").at("mrope_section"), nlohmann::json({11, 11, 10}));
    EXPECT_EQ(twoB.at("dtype"), "float32");
    EXPECT_EQ(twoB.at("tie_word_embeddings"), true);
}

TEST(Config, ReadsTextPartOfFullConfig) {
    nlohmann::json text = test::tinyConfigJson();
    text.erase("tie_word_embeddings");
    text["model_type"] = "qwen3_5_text";
    const nlohmann::json full = {{"model_type", "qwen3_5"},
                                 {"tie_word_embeddings", true},
                                 {"text_config", text},
                                 {"vision_config", {{"depth", 2}}}};
    const ModelConfig c = parseConfig(full, "config.json");
    EXPECT_TRUE(c.composite);
    EXPECT_EQ(c.vocabSize, 256);
    EXPECT_TRUE(c.tieWordEmbeddings);  // falls back to the top-level flag
}

TEST(Config, CompositeConfigsTieByTheTopLevelFlag) {
    // As transformers' Qwen3_5ForConditionalGeneration: the composite config's own flag
    // decides, the text config's is ignored (both directions).
    for (const bool top : {true, false}) {
        nlohmann::json text = test::tinyConfigJson();
        text["tie_word_embeddings"] = !top;
        const nlohmann::json full = {{"model_type", "qwen3_5"},
                                     {"architectures", {"Qwen3_5ForConditionalGeneration"}},
                                     {"tie_word_embeddings", top},
                                     {"text_config", text}};
        EXPECT_EQ(parseConfig(full, "config.json").tieWordEmbeddings, top) << "top-level " << top;
    }
    // Neither flag: not tied (Qwen3_5Config's default).
    nlohmann::json text = test::tinyConfigJson();
    text.erase("tie_word_embeddings");
    EXPECT_FALSE(parseConfig({{"model_type", "qwen3_5"}, {"text_config", text}}, "config.json").tieWordEmbeddings);
}

TEST(Config, IgnoresMropeSectionsForText) {
    // transformers' default sections with a head whose rotary_dim/2 is 4: accepted, as in HF
    // (the three position streams of text are equal); a malformed list is refused.
    nlohmann::json j = test::tinyConfigJson();
    j["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 1e7}, {"partial_rotary_factor", 0.25},
                            {"mrope_section", {11, 11, 10}}, {"mrope_interleaved", true}};
    const ModelConfig c = parseConfig(j, "config.json");
    EXPECT_EQ(c.rotaryDim(), 8);
    j["rope_parameters"]["mrope_section"] = {1, "x"};
    expectConfigError(j, "mrope_section");
}

TEST(Config, DerivesLayerTypesFromIntervalWhenAbsent) {
    nlohmann::json j = test::tinyConfigJson();
    j.erase("layer_types");
    j["num_hidden_layers"] = 8;
    const ModelConfig c = parseConfig(j, "config.json");
    for (int i = 0; i < 8; ++i)
        EXPECT_EQ(c.layerTypes[i], (i + 1) % 4 == 0 ? LayerType::FullAttention : LayerType::LinearAttention) << i;
}

TEST(Config, RejectsUnknownLayerType) {
    nlohmann::json j = test::tinyConfigJson();
    j["layer_types"][2] = "sliding_attention";
    expectConfigError(j, "entry 2 is 'sliding_attention'");
}

TEST(Config, RejectsLayerTypesOfWrongLength) {
    nlohmann::json j = test::tinyConfigJson();
    j["num_hidden_layers"] = 5;
    expectConfigError(j, "has 4 entries but num_hidden_layers is 5");
}

TEST(Config, RejectsMissingOrBadFields) {
    nlohmann::json j = test::tinyConfigJson();
    j.erase("hidden_size");
    expectConfigError(j, "field 'hidden_size' is missing");
    j = test::tinyConfigJson();
    j["head_dim"] = -2;
    expectConfigError(j, "field 'head_dim' must be a positive integer");
    j = test::tinyConfigJson();
    j["hidden_act"] = "gelu";
    expectConfigError(j, "only 'silu' is supported");
    j = test::tinyConfigJson();
    j["hidden_act"] = 3;
    expectConfigError(j, "malformed field");
    j = test::tinyConfigJson();
    j["model_type"] = "llama";
    expectConfigError(j, "model_type");
    j = test::tinyConfigJson();
    j["num_key_value_heads"] = 3;
    expectConfigError(j, "must divide num_attention_heads");
    j = test::tinyConfigJson();
    // Sections that do not sum to rotary_dim/2 are accepted (IgnoresMropeSectionsForText, as
    // transformers does for text); a negative one is not a slice length.
    j["rope_parameters"]["mrope_section"] = {2, -1, 1};
    expectConfigError(j, "mrope_section");
}

}  // namespace
}  // namespace qgpu::model
