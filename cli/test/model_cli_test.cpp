// The `model info` / `model generate` subcommands (cli/model_commands.cpp) through the
// stand-alone qgpu_model_cli binary: output, JSON, and exit code 2 with a clear message on
// bad input.
#include <gtest/gtest.h>

#include "test_util.h"

namespace qgpu::model {
namespace {

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

}  // namespace
}  // namespace qgpu::model
