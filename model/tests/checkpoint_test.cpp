// Loading checkpoints from disk: layouts that must load (flat, full multimodal
// with vision/MTP tensors, sharded, f16) and every kind of broken checkpoint,
// each of which must give a ModelError saying where and why.
#include <gtest/gtest.h>

#include <fstream>

#include "qgpu/model/error.h"
#include "qgpu/model/generate.h"
#include "qgpu/model/model.h"
#include "test_util.h"

namespace qgpu::model {
namespace {

namespace fs = std::filesystem;

void expectLoadError(const fs::path& dir, const std::vector<std::string>& needles) {
    try {
        Model::load(dir);
        ADD_FAILURE() << "loaded; expected an error";
    } catch (const ModelError& e) {
        for (const auto& n : needles) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
    }
}

std::vector<std::byte> bytesOfFloats(const std::vector<float>& v) {
    std::vector<std::byte> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

const std::vector<int> kPrompt = {3, 141, 59, 26, 5, 35};

class CheckpointTest : public ::testing::Test {
protected:
    test::TempDir tmp;
    nlohmann::json config = test::tinyConfigJson();
    std::vector<TensorToWrite> tensors = test::randomTensors(config);
    fs::path dir() const { return tmp.path() / "ckpt"; }
    void write() { test::writeCheckpoint(dir(), config, tensors); }
};

TEST_F(CheckpointTest, LoadsValidCheckpointAndReportsIt) {
    write();
    const Model m = Model::load(dir());
    EXPECT_EQ(m.report().prefix, "model.");
    EXPECT_EQ(m.report().textTensors, tensors.size());
    EXPECT_EQ(m.report().textTensors, 2u + 3 * 14 + 11);  // embed + final norm, 3 DeltaNet layers, 1 attention layer
    std::size_t params = 0;
    for (const auto& t : tensors) params += t.bytes.size() / 4;
    EXPECT_EQ(m.report().parameters, params);
}

TEST_F(CheckpointTest, PrefillAndTokenByTokenAgree) {
    write();
    const Model m = Model::load(dir());
    const Generation a = generateGreedy(m, kPrompt, 8, PromptMode::Prefill);
    const Generation b = generateGreedy(m, kPrompt, 8, PromptMode::TokenByToken);
    EXPECT_EQ(a.tokens, b.tokens);
    const float scale = a.promptLogits.cwiseAbs().maxCoeff();
    EXPECT_GT(scale, 0.0f);
    EXPECT_LE((a.promptLogits - b.promptLogits).cwiseAbs().maxCoeff(), 1e-5f * scale);
    EXPECT_LE((a.stepLogits - b.stepLogits).cwiseAbs().maxCoeff(), 1e-5f * scale);
}

TEST_F(CheckpointTest, FullMultimodalLayoutLoadsTextAndSkipsVisionAndMtp) {
    write();
    const Generation flat = generateGreedy(Model::load(dir()), kPrompt, 4, PromptMode::Prefill);
    for (auto& t : tensors) t.name = "model.language_model." + t.name.substr(std::string("model.").size());
    tensors.push_back({"model.visual.blocks.0.attn.qkv.weight", "F32", {6, 2}, bytesOfFloats(std::vector<float>(12, 1.0f))});
    tensors.push_back({"model.visual.patch_embed.proj.bias", "BF16", {2}, std::vector<std::byte>(4)});
    tensors.push_back({"mtp.fc.weight", "F32", {2, 2}, bytesOfFloats({1, 2, 3, 4})});
    // The composite config carries the tie at the top level, as Qwen3_5Config writes it (and
    // as transformers' Qwen3_5ForConditionalGeneration reads it: Config.CompositeConfigsTie...).
    const nlohmann::json full = {{"model_type", "qwen3_5"},
                                 {"tie_word_embeddings", config.at("tie_word_embeddings")},
                                 {"text_config", config},
                                 {"vision_config", {{"depth", 1}}}};
    test::writeCheckpoint(tmp.path() / "full", full, tensors);
    const Model m = Model::load(tmp.path() / "full");
    EXPECT_EQ(m.report().prefix, "model.language_model.");
    EXPECT_EQ(m.report().skippedVision, 2u);
    EXPECT_EQ(m.report().skippedMtp, 1u);
    const Generation g = generateGreedy(m, kPrompt, 4, PromptMode::Prefill);
    EXPECT_EQ(g.tokens, flat.tokens);
    EXPECT_EQ((g.promptLogits - flat.promptLogits).cwiseAbs().maxCoeff(), 0.0f);
}

TEST_F(CheckpointTest, ShardedCheckpointLoads) {
    write();
    const Generation single = generateGreedy(Model::load(dir()), kPrompt, 4, PromptMode::Prefill);
    const fs::path sharded = tmp.path() / "sharded";
    fs::create_directories(sharded);
    test::writeJson(sharded / "config.json", config);
    std::vector<TensorToWrite> a(tensors.begin(), tensors.begin() + 20), b(tensors.begin() + 20, tensors.end());
    writeSafetensors(sharded / "model-00001-of-00002.safetensors", a);
    writeSafetensors(sharded / "model-00002-of-00002.safetensors", b);
    nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
    for (const auto& t : a) index["weight_map"][t.name] = "model-00001-of-00002.safetensors";
    for (const auto& t : b) index["weight_map"][t.name] = "model-00002-of-00002.safetensors";
    test::writeJson(sharded / "model.safetensors.index.json", index);
    const Generation g = generateGreedy(Model::load(sharded), kPrompt, 4, PromptMode::Prefill);
    EXPECT_EQ(g.tokens, single.tokens);
    EXPECT_EQ((g.promptLogits - single.promptLogits).cwiseAbs().maxCoeff(), 0.0f);

    // An index that names the wrong shard for a tensor is rejected.
    index["weight_map"][a.front().name] = "model-00002-of-00002.safetensors";
    test::writeJson(sharded / "model.safetensors.index.json", index);
    expectLoadError(sharded, {"model.safetensors.index.json", a.front().name, "is listed for model-00002-of-00002.safetensors but found in"});
}

// Deeply nested JSON in the shard index or a safetensors header is refused with the limit
// named, not parsed recursively into a stack overflow.
TEST_F(CheckpointTest, DeeplyNestedIndexAndHeaderAreRefused) {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    const fs::path sharded = tmp.path() / "deep-index";
    fs::create_directories(sharded);
    test::writeJson(sharded / "config.json", config);
    std::ofstream(sharded / "model.safetensors.index.json") << "{\"metadata\": " << deep << ", \"weight_map\": {}}";
    expectLoadError(sharded, {"model.safetensors.index.json", "nested deeper than 64 levels"});
    const fs::path header = tmp.path() / "deep-header";
    fs::create_directories(header);
    test::writeJson(header / "config.json", config);
    const std::string h = "{\"__metadata__\": " + deep + "}";
    std::ofstream f(header / "model.safetensors", std::ios::binary);
    for (int i = 0; i < 8; ++i) f.put(static_cast<char>((h.size() >> (8 * i)) & 0xff));
    f << h;
    f.close();
    expectLoadError(header, {"model.safetensors", "nested deeper than 64 levels"});
}

// f16 weights are widened exactly: a checkpoint of f16 values computes what
// the same values stored as f32 compute.
TEST_F(CheckpointTest, F16WeightsMatchTheSameValuesInF32) {
    for (auto& t : tensors) {
        std::vector<float> v(t.bytes.size() / 4);
        std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
        std::vector<std::byte> half(v.size() * 2);
        for (std::size_t i = 0; i < v.size(); ++i) {
            // Quantise to a multiple of 2^-8 (|v| < 4): at most 10 fraction bits, exact in f16.
            const float q = std::round(v[i] * 256.0f) / 256.0f;
            v[i] = q;
            const std::uint32_t sign = q < 0 ? 0x8000u : 0u;
            const float a = std::fabs(q);
            std::uint16_t h;
            if (a == 0.0f) {
                h = static_cast<std::uint16_t>(sign);
            } else if (a < 6.103515625e-05f) {
                h = static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(a * 16777216.0f));  // subnormal
            } else {
                int e;
                const float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
                h = static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(e + 14) << 10 |
                                               (static_cast<std::uint32_t>(m * 2048.0f) & 0x3ffu));
            }
            EXPECT_EQ(f16ToFloat(h), q);
            std::memcpy(half.data() + 2 * i, &h, 2);
        }
        t.bytes = bytesOfFloats(v);
        if (t.name.find("layers.0.") != std::string::npos || t.name.find("embed") != std::string::npos) {
            t.dtypeName = "F16";
            t.bytes = half;
        }
    }
    write();
    const Model f16 = Model::load(dir());
    EXPECT_GT(f16.report().dtypeCounts.at("F16"), 0u);
    for (auto& t : tensors) {
        if (t.dtypeName != "F16") continue;
        std::vector<float> v(t.bytes.size() / 2);
        for (std::size_t i = 0; i < v.size(); ++i) {
            std::uint16_t h;
            std::memcpy(&h, t.bytes.data() + 2 * i, 2);
            v[i] = f16ToFloat(h);
        }
        t.dtypeName = "F32";
        t.bytes = bytesOfFloats(v);
    }
    test::writeCheckpoint(tmp.path() / "f32", config, tensors);
    const Generation a = generateGreedy(f16, kPrompt, 4, PromptMode::Prefill);
    const Generation b = generateGreedy(Model::load(tmp.path() / "f32"), kPrompt, 4, PromptMode::Prefill);
    EXPECT_EQ(a.tokens, b.tokens);
    EXPECT_EQ((a.promptLogits - b.promptLogits).cwiseAbs().maxCoeff(), 0.0f);
}

TEST_F(CheckpointTest, MissingTensorIsNamed) {
    tensors.erase(tensors.begin() + 5);
    const std::string name = test::randomTensors(config)[5].name;
    write();
    expectLoadError(dir(), {"'" + name + "' is missing", "expected shape"});
}

TEST_F(CheckpointTest, ExtraTensorIsNamed) {
    tensors.push_back({"model.layers.0.mlp.extra_proj.weight", "F32", {2}, bytesOfFloats({1, 2})});
    write();
    expectLoadError(dir(), {"unexpected tensor 'model.layers.0.mlp.extra_proj.weight'", "model.safetensors"});
}

TEST_F(CheckpointTest, HeadInTiedCheckpointIsUnexpected) {
    tensors.push_back({"lm_head.weight", "F32", {256, 64}, bytesOfFloats(std::vector<float>(256 * 64, 0.0f))});
    write();
    expectLoadError(dir(), {"lm_head.weight", "tie_word_embeddings is true"});
}

TEST_F(CheckpointTest, WrongShapeIsNamed) {
    auto& t = test::tensorNamed(tensors, "model.layers.3.self_attn.k_proj.weight");
    t.shape = {64, 32};  // same byte count, transposed shape
    write();
    expectLoadError(dir(), {"model.layers.3.self_attn.k_proj.weight", "has shape [64, 32]", "implies [32, 64]"});
}

TEST_F(CheckpointTest, WrongDtypeIsNamed) {
    auto& t = test::tensorNamed(tensors, "model.norm.weight");
    t.dtypeName = "I32";
    write();
    expectLoadError(dir(), {"model.norm.weight", "dtype I32", "expected F32, F16 or BF16"});
}

TEST_F(CheckpointTest, TruncatedFileIsReported) {
    write();
    const fs::path file = dir() / "model.safetensors";
    fs::resize_file(file, fs::file_size(file) - 100);
    expectLoadError(dir(), {"model.safetensors", "points outside the file", "truncated"});
}

TEST_F(CheckpointTest, OffsetsOutsideFileAreReported) {
    write();
    // Rewrite the header so the last tensor's end offset points far past the data.
    const fs::path file = dir() / "model.safetensors";
    std::ifstream in(file, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    std::uint64_t len = 0;
    for (int i = 7; i >= 0; --i) len = (len << 8) | static_cast<unsigned char>(bytes[i]);
    nlohmann::json header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(len));
    header["model.norm.weight"]["data_offsets"] = {1u << 30, (1u << 30) + 256u};
    const std::string text = header.dump();  // offsets are relative to the data section, which is copied as is
    std::ofstream out(file, std::ios::binary);
    const std::uint64_t newLen = text.size();
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>((newLen >> (8 * i)) & 0xff));
    out << text;
    out.write(bytes.data() + 8 + len, static_cast<long>(bytes.size() - 8 - len));
    out.close();
    expectLoadError(dir(), {"model.norm.weight", "points outside the file"});
}

TEST_F(CheckpointTest, UnknownLayerTypeIsReported) {
    config["layer_types"][1] = "mamba";
    write();
    expectLoadError(dir(), {"config.json", "layer_types", "'mamba'"});
}

TEST_F(CheckpointTest, MissingFilesAreReported) {
    expectLoadError(tmp.path() / "nowhere", {"nowhere"});
    fs::create_directories(dir());
    test::writeJson(dir() / "config.json", config);
    expectLoadError(dir(), {"neither model.safetensors nor model.safetensors.index.json"});
}

TEST_F(CheckpointTest, BadTokenIdIsReported) {
    write();
    const Model m = Model::load(dir());
    DecodeState s = m.newState();
    EXPECT_THROW(m.step(s, 256), ModelError);
    EXPECT_THROW(m.step(s, -1), ModelError);
}

}  // namespace
}  // namespace qgpu::model
