// The sparse fast path: matrices below the density threshold are stored sparse
// automatically, and a 99%-zero checkpoint decodes to the same greedy tokens and
// (to f32 rounding) the same logits as with every matrix dense.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <span>

#include "qgpu/model/generate.h"
#include "qgpu/model/linear.h"
#include "qgpu/model/model.h"
#include "test_util.h"

namespace qgpu::model {
namespace {

nlohmann::json mediumConfig() {
    nlohmann::json c = test::tinyConfigJson();
    c["hidden_size"] = 256;
    c["intermediate_size"] = 512;
    c["vocab_size"] = 512;
    c["head_dim"] = 64;
    c["linear_key_head_dim"] = 32;
    c["linear_value_head_dim"] = 32;
    c["tie_word_embeddings"] = false;
    c["rope_parameters"]["mrope_section"] = {4, 2, 2};
    return c;
}

TEST(SparsePath, NinetyNinePercentZeroCheckpointMatchesDensePath) {
    test::TempDir tmp;
    const nlohmann::json config = mediumConfig();
    test::writeCheckpoint(tmp.path(), config, test::randomTensors(config, 99, /*density=*/0.01, /*scale=*/1.0f));

    const Model sparse = Model::load(tmp.path());  // default options: sparse below 5% density
    ModelOptions denseOptions;
    denseOptions.linear.sparseDensity = 0;
    const Model dense = Model::load(tmp.path(), denseOptions);
    for (const Linear* l : sparse.projections()) {
        EXPECT_EQ(l->storage(), Linear::Storage::Sparse);
        EXPECT_LT(l->nonZeros(), static_cast<std::size_t>(0.02 * l->rows() * l->cols()));
    }
    for (const Linear* l : dense.projections()) EXPECT_EQ(l->storage(), Linear::Storage::DenseF32);

    const std::vector<int> prompt = {1, 100, 200, 300, 400, 500, 7};
    for (PromptMode mode : {PromptMode::Prefill, PromptMode::TokenByToken}) {
        const Generation s = generateGreedy(sparse, prompt, 16, mode);
        const Generation d = generateGreedy(dense, prompt, 16, mode);
        EXPECT_EQ(s.tokens, d.tokens);
        const float scale = d.promptLogits.cwiseAbs().maxCoeff();
        ASSERT_GT(scale, 0.0f);
        // Only the summation order differs (zeros skipped vs added): f32 rounding.
        EXPECT_LE((s.promptLogits - d.promptLogits).cwiseAbs().maxCoeff(), 1e-5f * scale);
        EXPECT_LE((s.stepLogits - d.stepLogits).cwiseAbs().maxCoeff(), 1e-5f * scale);
    }
}

TEST(SparsePath, DenseMatricesStayDense) {
    test::TempDir tmp;
    const nlohmann::json config = mediumConfig();
    test::writeCheckpoint(tmp.path(), config, test::randomTensors(config, 5, /*density=*/0.5));
    const Model m = Model::load(tmp.path());
    for (const Linear* l : m.projections()) EXPECT_EQ(l->storage(), Linear::Storage::DenseF32);
}

// The sparse product by columns (x's non-zero entries only) is the row product bit for bit:
// entries spanning 2^-20 .. 2^20 make the f32 sums depend on their order, x is 90 % exact
// zeros (some -0) — and the choice apply() makes gives those bits too.
TEST(SparsePath, ByColumnsEqualsByRowsBitForBit) {
    const int rows = 3001, cols = 2048;
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_int_distribution<int> scale(-20, 20);
    std::vector<float> w(static_cast<std::size_t>(rows) * cols, 0.0f);
    for (float& v : w)
        if (rng() % 50 == 0) v = std::ldexp(u(rng), scale(rng));
    TensorView view;
    view.dtype = DType::F32;
    view.shape = {rows, cols};
    view.bytes = std::span<const std::byte>(reinterpret_cast<const std::byte*>(w.data()), w.size() * 4);
    LinearOptions options;
    options.sparseDensity = 0.05;
    const Linear m(view, options);
    ASSERT_EQ(m.storage(), Linear::Storage::Sparse);
    size_t compared = 0;
    for (int trial = 0; trial < 20; ++trial) {
        Eigen::VectorXf x = Eigen::VectorXf::Zero(cols);
        for (int c = 0; c < cols; ++c) {
            const auto pick = rng() % 20;
            if (pick < 2) x[c] = std::ldexp(u(rng), scale(rng));
            else if (pick == 2) x[c] = -0.0f;
        }
        if (trial == 0) x.setZero();
        const Eigen::VectorXf byRows = m.applyByRows(x), byColumns = m.applyByColumns(x), chosen = m.apply(x);
        ASSERT_EQ(std::memcmp(byRows.data(), byColumns.data(), sizeof(float) * rows), 0) << "trial " << trial;
        ASSERT_EQ(std::memcmp(byRows.data(), chosen.data(), sizeof(float) * rows), 0) << "trial " << trial;
        compared += rows;
    }
    // Not vacuous: the order of the terms matters for these sums (reversed, some bits differ).
    Eigen::VectorXf x = Eigen::VectorXf::Zero(cols);
    for (int c = 0; c < cols; c += 3) x[c] = std::ldexp(u(rng), scale(rng));
    const Eigen::VectorXf y = m.applyByRows(x);
    size_t differs = 0;
    for (int r = 0; r < rows; ++r) {
        float reversed = 0.0f;
        for (int c = cols - 1; c >= 0; --c) reversed += w[static_cast<std::size_t>(r) * cols + c] * x[c];
        differs += reversed != y[r];
    }
    EXPECT_GT(differs, 100u);
    EXPECT_EQ(compared, 20u * rows);
}

// bf16 storage, the SIMD kernel and the sparse form all compute the same product.
TEST(LinearKernels, AllStoragesAgreeWithDoubleReference) {
    const int rows = 37, cols = 2048 + 45;  // odd sizes exercise the vector tails
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<std::uint16_t> bf16(static_cast<std::size_t>(rows) * cols);
    std::vector<float> f32(bf16.size());
    for (std::size_t i = 0; i < bf16.size(); ++i) {
        bf16[i] = (i % 3 == 0) ? floatToBf16(u(rng)) : 0;  // two thirds zeros
        f32[i] = bf16ToFloat(bf16[i]);
    }
    Eigen::VectorXf x(cols);
    for (int c = 0; c < cols; ++c) x[c] = u(rng);

    auto view = [&](DType t, const void* data, std::size_t bytes) {
        TensorView v;
        v.dtype = t;
        v.shape = {rows, cols};
        v.bytes = std::span<const std::byte>(static_cast<const std::byte*>(data), bytes);
        return v;
    };
    LinearOptions dense, sparse;
    dense.sparseDensity = 0;
    sparse.sparseDensity = 0.5;
    const Linear a(view(DType::BF16, bf16.data(), bf16.size() * 2), dense);
    const Linear b(view(DType::F32, f32.data(), f32.size() * 4), dense);
    const Linear c(view(DType::BF16, bf16.data(), bf16.size() * 2), sparse);
    ASSERT_EQ(a.storage(), Linear::Storage::DenseBF16);
    ASSERT_EQ(b.storage(), Linear::Storage::DenseF32);
    ASSERT_EQ(c.storage(), Linear::Storage::Sparse);
    const Eigen::VectorXf ya = a.apply(x), yb = b.apply(x), yc = c.apply(x);
    Eigen::MatrixXf xs(cols, 3);
    xs << x, x * 2.0f, -x;
    const Eigen::MatrixXf batch = a.applyBatch(xs);
    for (int r = 0; r < rows; ++r) {
        double ref = 0, mag = 0;
        for (int k = 0; k < cols; ++k) {
            ref += static_cast<double>(f32[static_cast<std::size_t>(r) * cols + k]) * x[k];
            mag += std::fabs(static_cast<double>(f32[static_cast<std::size_t>(r) * cols + k]) * x[k]);
        }
        const double tol = 1e-6 * mag;  // f32 accumulation error bound scale for ~700 terms
        EXPECT_NEAR(ya[r], ref, tol) << r;
        EXPECT_NEAR(yb[r], ref, tol) << r;
        EXPECT_NEAR(yc[r], ref, tol) << r;
        EXPECT_NEAR(batch(r, 0), ref, tol) << r;
        EXPECT_NEAR(batch(r, 1), 2 * ref, 2 * tol) << r;
        EXPECT_NEAR(batch(r, 2), -ref, tol) << r;
    }
}

// Every bf16 kernel variant this CPU can run agrees with a double-precision reference.
TEST(LinearKernels, EveryBf16KernelVariantIsAccurate) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (const int cols : {1, 31, 32, 33, 2048 + 45}) {
        const int rows = 4 * 70 + 3;  // blocks of four rows plus leftovers, enough to go parallel
        std::vector<std::uint16_t> w(static_cast<std::size_t>(rows) * cols);
        for (auto& v : w) v = floatToBf16(u(rng));
        std::vector<float> x(cols);
        for (auto& v : x) v = u(rng);
        for (const Bf16Kernel k : {Bf16Kernel::Auto, Bf16Kernel::Avx512, Bf16Kernel::Avx2, Bf16Kernel::Scalar}) {
            if (!bf16KernelSupported(k)) continue;
            std::vector<float> y(rows, -1.0f);
            bf16MatVec(w.data(), rows, cols, x.data(), y.data(), k);
            for (int r = 0; r < rows; ++r) {
                double ref = 0, mag = 0;
                for (int c = 0; c < cols; ++c) {
                    const double p = static_cast<double>(bf16ToFloat(w[static_cast<std::size_t>(r) * cols + c])) * x[c];
                    ref += p;
                    mag += std::fabs(p);
                }
                ASSERT_NEAR(y[r], ref, 1e-6 * mag + 1e-30) << "kernel " << static_cast<int>(k) << " cols " << cols << " row " << r;
            }
        }
    }
}

}  // namespace
}  // namespace qgpu::model
