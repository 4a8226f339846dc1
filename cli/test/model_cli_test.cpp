// The `model info` / `model generate` / `model random` subcommands (cli/model_commands.cpp)
// through the stand-alone qgpu_model_cli binary: output, JSON, and exit code 2 with a clear
// message on bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "test_util.h"

namespace qgpu::model {
namespace {

void expectErrorLater(const std::string& command, const std::string& needle) {
    const auto r = test::runCommand(command);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find(needle), std::string::npos) << r.output;
}

const std::string kCli = QGPU_MODEL_CLI;

std::string testdata(const std::string& name) { return (test::sourceDir() / "model" / "testdata" / name).string(); }

TEST(ModelCli, InfoSummarisesCheckpoint) {
    const auto r = test::runCommand(kCli + " model info " + testdata("tiny-tied"));
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("linear_attention, linear_attention, linear_attention, full_attention"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("tensor check ok: 55 text tensors"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("tied to embed_tokens"), std::string::npos) << r.output;
}

TEST(ModelCli, InfoJsonCountsParameters) {
    const auto r = test::runCommand(kCli + " model info --json " + testdata("tiny-gqa-untied-bf16"));
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_EQ(j.at("num_hidden_layers"), 5);
    EXPECT_EQ(j.at("tie_word_embeddings"), false);
    EXPECT_EQ(j.at("tensor_check").at("status"), "ok");
    EXPECT_EQ(j.at("tensor_check").at("dtypes").at("BF16"), j.at("tensor_check").at("text_tensors"));
    // Parameter count from the tensor sizes on disk: (sum of safetensors data bytes) / 2 for bf16.
    const auto index = test::readJson(testdata("tiny-gqa-untied-bf16") + "/model.safetensors.index.json");
    EXPECT_EQ(j.at("parameters").get<std::size_t>() * 2, index.at("metadata").at("total_size").get<std::size_t>());
}

TEST(ModelCli, GenerateReproducesGoldenGreedyTokens) {
    for (const std::string name : {"tiny-tied", "tiny-gqa-untied-bf16"}) {
        const auto golden = test::readJson(test::sourceDir() / "goldens" / "model" / (name + ".json"));
        std::string ids;
        for (int t : golden.at("prompt")) {
            if (!ids.empty()) ids += ',';
            ids += std::to_string(t);
        }
        for (const std::string mode : {"", " --token-by-token"}) {
            const auto r = test::runCommand(kCli + " model generate " + testdata(name) + " --ids " + ids +
                                            " --max-new 16 --json" + mode);
            ASSERT_EQ(r.exitCode, 0) << r.output;
            const auto j = nlohmann::json::parse(r.output);
            EXPECT_EQ(j.at("tokens"), golden.at("greedy_tokens")) << name << mode;
        }
    }
}

TEST(ModelCli, GeneratePlainOutputIsCommaSeparated) {
    const auto r = test::runCommand(kCli + " model generate " + testdata("tiny-tied") + " --ids 1,2,3 --max-new 3");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    int a, b, c;
    EXPECT_EQ(std::sscanf(r.output.c_str(), "%d,%d,%d", &a, &b, &c), 3) << r.output;
}

TEST(ModelCli, GenerateWritesEveryPositionsLogits) {
    // --logits: the same logits the reference goldens hold (transformers), within their bound,
    // and the tokens are the argmax of the step logits.
    const auto golden = test::readJson(test::sourceDir() / "goldens" / "model" / "tiny-tied.json");
    std::string ids;
    for (int t : golden.at("prompt")) ids += (ids.empty() ? "" : ",") + std::to_string(t);
    const std::string file = (std::filesystem::temp_directory_path() / "qgpu_model_logits.json").string();
    const auto r = test::runCommand(kCli + " model generate " + testdata("tiny-tied") + " --ids " + ids +
                                    " --max-new 16 --logits " + file);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto j = test::readJson(file);
    ASSERT_EQ(j.at("prompt_logits").size(), golden.at("prompt_logits").size());
    ASSERT_EQ(j.at("step_logits").size(), golden.at("greedy_logits").size());
    for (const auto& [ours, ref] : {std::pair{"prompt_logits", "prompt_logits"}, std::pair{"step_logits", "greedy_logits"}}) {
        double scale = 0, diff = 0;
        for (size_t t = 0; t < j.at(ours).size(); ++t)
            for (size_t v = 0; v < j.at(ours)[t].size(); ++v) {
                const double a = j.at(ours)[t][v].get<double>(), b = golden.at(ref)[t][v].get<double>();
                scale = std::max(scale, std::fabs(b));
                diff = std::max(diff, std::fabs(a - b));
            }
        EXPECT_LE(diff, 1e-4 * scale) << ours;
    }
    for (size_t t = 0; t < j.at("tokens").size(); ++t) {
        const auto& row = j.at("step_logits")[t];
        size_t best = 0;
        for (size_t v = 1; v < row.size(); ++v)
            if (row[v].get<double>() > row[best].get<double>()) best = v;
        EXPECT_EQ(static_cast<int>(best), j.at("tokens")[t].get<int>()) << "step " << t;
    }
    expectErrorLater(kCli + " model generate " + testdata("tiny-tied") + " --ids 1 --max-new 1 --logits /nonexistent/dir/x.json",
                     "--logits: cannot write");
    std::filesystem::remove(file);
}

void expectError(const std::string& args, const std::string& needle) {
    const auto r = test::runCommand(kCli + " " + args);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("qgpu model: error: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(needle), std::string::npos) << r.output;
}

TEST(ModelCli, BadInputExitsWithTwo) {
    expectError("model info /nonexistent/ckpt", "/nonexistent/ckpt");
    expectError("model generate " + testdata("tiny-tied") + " --ids 1,x,3 --max-new 2", "'x' is not a non-negative token id");
    expectError("model generate " + testdata("tiny-tied") + " --ids 1,999 --max-new 2", "token id 999 is outside the vocabulary");
    expectError("model generate " + testdata("tiny-tied") + " --ids 1 --max-new -1", "--max-new must be >= 0");

    test::TempDir tmp;
    nlohmann::json config = test::tinyConfigJson();
    config["layer_types"][0] = "conv";
    test::writeCheckpoint(tmp.path(), config, test::randomTensors(test::tinyConfigJson()));
    expectError("model info " + tmp.path().string(), "'conv'");
}

TEST(ModelCli, UsageErrorsExitWithTwo) {
    const auto r = test::runCommand(kCli + " model generate " + testdata("tiny-tied"));
    EXPECT_EQ(r.exitCode, 2) << r.output;
}

std::string fileBytes(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `model random` writes a checkpoint `model info` and `model generate` accept, the same bytes
// for the same seed, other bytes for another; it refuses a directory that is not empty.
TEST(ModelCli, RandomWritesAReproducibleCheckpoint) {
    test::TempDir tmp;
    const std::filesystem::path a = tmp.path() / "a", b = tmp.path() / "b", c = tmp.path() / "c";
    const std::string args = " --shape small --layers 2 --vocab 512 --seed 5";
    auto r = test::runCommand(kCli + " model random --out " + a.string() + args);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("parameters"), std::string::npos) << r.output;

    r = test::runCommand(kCli + " model info --json " + a.string());
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_EQ(j.at("model_type"), "qwen3_5_text");
    EXPECT_EQ(j.at("num_hidden_layers"), 2);
    EXPECT_EQ(j.at("vocab_size"), 512);
    EXPECT_EQ(j.at("hidden_size"), 256);
    EXPECT_EQ(j.at("head_dim"), 256);
    EXPECT_EQ(j.at("num_attention_heads"), 8);
    EXPECT_EQ(j.at("num_key_value_heads"), 2);
    EXPECT_EQ(j.at("linear_num_value_heads"), 16);
    EXPECT_EQ(j.at("tie_word_embeddings"), true);
    EXPECT_EQ(j.at("tensor_check").at("status"), "ok");
    EXPECT_EQ(j.at("tensor_check").at("dtypes").at("BF16"), j.at("tensor_check").at("text_tensors"));
    // The parameters are the file's data: bf16, 2 bytes each, after the header.
    const std::string bytes = fileBytes(a / "model.safetensors");
    ASSERT_GT(bytes.size(), 8u);
    std::uint64_t header = 0;
    for (int i = 7; i >= 0; --i) header = (header << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
    EXPECT_EQ(8 + header + 2 * j.at("parameters").get<std::uint64_t>(), bytes.size());

    r = test::runCommand(kCli + " model generate " + a.string() + " --ids 1,2,3 --max-new 3 --json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(nlohmann::json::parse(r.output).at("tokens").size(), 3u) << r.output;

    r = test::runCommand(kCli + " model random --out " + b.string() + args);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(test::runCommand("cmp " + (a / "model.safetensors").string() + " " + (b / "model.safetensors").string()).exitCode, 0);
    EXPECT_EQ(fileBytes(a / "config.json"), fileBytes(b / "config.json"));
    r = test::runCommand(kCli + " model random --out " + c.string() + " --shape small --layers 2 --vocab 512 --seed 6");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(fileBytes(a / "model.safetensors"), fileBytes(c / "model.safetensors"));

    expectError("model random --out " + a.string() + args, "is not empty");
    EXPECT_EQ(test::runCommand(kCli + " model random --out " + (tmp.path() / "d").string() + " --shape 7b").exitCode, 2);
    EXPECT_EQ(test::runCommand(kCli + " model random --out " + (tmp.path() / "d").string() + " --layers 0").exitCode, 2);
    EXPECT_FALSE(std::filesystem::exists(tmp.path() / "d"));
}

}  // namespace
}  // namespace qgpu::model
