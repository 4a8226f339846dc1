// config.json parsing: both layouts, defaults HF applies, and clear errors.
#include <gtest/gtest.h>

#include "qgpu/model/config.h"
#include "qgpu/model/error.h"
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
    j["rope_parameters"]["mrope_section"] = {2, 2, 2};
    expectConfigError(j, "mrope_section");
}

}  // namespace
}  // namespace qgpu::model
