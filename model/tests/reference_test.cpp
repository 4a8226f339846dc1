// The engine against transformers: loads each committed checkpoint and
// reproduces goldens/model/<name>.json (written by tools/hf_reference.py),
// through the prefill path and through the token-by-token path.
#include <gtest/gtest.h>

#include "qgpu/model/generate.h"
#include "qgpu/model/model.h"
#include "test_util.h"

namespace qgpu::model {
namespace {

struct Golden {
    std::vector<int> prompt;
    Eigen::MatrixXf promptLogits;  // vocab x T
    std::vector<int> tokens;
    Eigen::MatrixXf greedyLogits;  // vocab x new tokens
};

Eigen::MatrixXf columnsOf(const nlohmann::json& rows) {
    Eigen::MatrixXf m(static_cast<Eigen::Index>(rows.at(0).size()), static_cast<Eigen::Index>(rows.size()));
    for (std::size_t t = 0; t < rows.size(); ++t)
        for (std::size_t v = 0; v < rows[t].size(); ++v)
            m(static_cast<Eigen::Index>(v), static_cast<Eigen::Index>(t)) = rows[t][v].get<float>();
    return m;
}

Golden loadGolden(const std::string& name) {
    const auto j = test::readJson(test::sourceDir() / "goldens" / "model" / (name + ".json"));
    return {j.at("prompt").get<std::vector<int>>(), columnsOf(j.at("prompt_logits")),
            j.at("greedy_tokens").get<std::vector<int>>(), columnsOf(j.at("greedy_logits"))};
}

// The acceptance bound: max |ours - reference| <= 1e-4 * max |reference|.
void expectClose(const Eigen::MatrixXf& ours, const Eigen::MatrixXf& ref, const std::string& what) {
    ASSERT_EQ(ours.rows(), ref.rows()) << what;
    ASSERT_EQ(ours.cols(), ref.cols()) << what;
    const float diff = (ours - ref).cwiseAbs().maxCoeff();
    const float bound = 1e-4f * ref.cwiseAbs().maxCoeff();
    EXPECT_LE(diff, bound) << what << ": max abs diff " << diff;
    ::testing::Test::RecordProperty(what + "_max_abs_diff", std::to_string(diff));
    ::testing::Test::RecordProperty(what + "_max_abs_logit", std::to_string(ref.cwiseAbs().maxCoeff()));
}

class ReferenceTest : public ::testing::TestWithParam<std::tuple<std::string, PromptMode>> {};

TEST_P(ReferenceTest, ReproducesTransformersLogitsAndGreedyTokens) {
    const auto& [name, mode] = GetParam();
    const Golden golden = loadGolden(name);
    const Model model = Model::load(test::sourceDir() / "model" / "testdata" / name);
    const Generation g = generateGreedy(model, golden.prompt, static_cast<int>(golden.tokens.size()), mode);
    expectClose(g.promptLogits, golden.promptLogits, "prompt_logits");
    EXPECT_EQ(g.tokens, golden.tokens);
    expectClose(g.stepLogits, golden.greedyLogits, "greedy_logits");
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, ReferenceTest,
                         ::testing::Combine(::testing::Values("tiny-tied", "tiny-gqa-untied-bf16"),
                                            ::testing::Values(PromptMode::Prefill, PromptMode::TokenByToken)),
                         [](const auto& param) {
                             std::string n = std::get<0>(param.param);
                             for (char& ch : n)
                                 if (ch == '-') ch = '_';
                             return n + (std::get<1>(param.param) == PromptMode::Prefill ? "_prefill" : "_token_by_token");
                         });

// The bf16 checkpoint must really run on the bf16 kernel (not silently widened).
TEST(ReferenceCheckpoints, Bf16CheckpointKeepsBf16Storage) {
    ModelOptions dense;
    dense.linear.sparseDensity = 0;
    const Model model = Model::load(test::sourceDir() / "model" / "testdata" / "tiny-gqa-untied-bf16", dense);
    for (const Linear* l : model.projections()) EXPECT_EQ(l->storage(), Linear::Storage::DenseBF16);
    EXPECT_FALSE(model.config().tieWordEmbeddings);
    EXPECT_EQ(model.report().dtypeCounts.at("BF16"), model.report().textTensors);
}

}  // namespace
}  // namespace qgpu::model
