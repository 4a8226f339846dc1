// The sparse fast path: matrices below the density threshold are stored sparse
// automatically, and a 99%-zero checkpoint decodes to the same greedy tokens and
// (to f32 rounding) the same logits as with every matrix dense.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
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

// A dense matrix whose non-zeros lie in a leading block [0, R) x [0, C) (zero padding to a
// wider model) keeps the block only; its products are a Linear of the unpadded [R, C] matrix's
// bit for bit on rows [0, R) and +0 below, whatever x holds from column C on.
struct PaddedCase {
    DType dtype;
    int rows, cols;            // the padded matrix
    int blockRows, blockCols;  // where its non-zeros lie
    double sparseDensity;      // LinearOptions::sparseDensity
};

TensorView viewOf(DType dtype, int rows, int cols, const std::vector<std::byte>& bytes) {
    TensorView v;
    v.dtype = dtype;
    v.shape = {rows, cols};
    v.bytes = std::span<const std::byte>(bytes.data(), bytes.size());
    return v;
}

// Entries spanning 2^-20 .. 2^20 (so that the f32 sums depend on their order), a few exact
// zeros inside the block, and non-zeros on its last row and column.
std::vector<float> blockValues(int rows, int cols, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_int_distribution<int> scale(-20, 20);
    std::vector<float> w(static_cast<std::size_t>(rows) * cols);
    for (float& v : w) v = rng() % 8 == 0 ? 0.0f : std::ldexp(u(rng), scale(rng));
    w.back() = 0.5f;                                         // row rows - 1, column cols - 1
    w[static_cast<std::size_t>(cols) - 1] = -0.25f;          // row 0, column cols - 1
    w[static_cast<std::size_t>(rows - 1) * cols] = 0.125f;   // row rows - 1, column 0
    return w;
}

std::vector<std::byte> encode(DType dtype, const std::vector<float>& values) {
    std::vector<std::byte> out(values.size() * dtypeSize(dtype));
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (dtype == DType::F32) {
            std::memcpy(out.data() + 4 * i, &values[i], 4);
        } else {
            const std::uint16_t h = floatToBf16(values[i]);
            std::memcpy(out.data() + 2 * i, &h, 2);
        }
    }
    return out;
}

std::vector<float> padded(const std::vector<float>& block, int blockRows, int blockCols, int rows, int cols) {
    std::vector<float> out(static_cast<std::size_t>(rows) * cols, 0.0f);
    for (int r = 0; r < blockRows; ++r)
        for (int c = 0; c < blockCols; ++c)
            out[static_cast<std::size_t>(r) * cols + c] = block[static_cast<std::size_t>(r) * blockCols + c];
    // Some -0 in the padding: zero as well.
    for (std::size_t i = out.size() - 1, k = 0; k < 50; i -= 7, ++k)
        if (static_cast<int>(i / cols) >= blockRows || static_cast<int>(i % cols) >= blockCols) out[i] = -0.0f;
    return out;
}

// Every entry of x non-zero, the padded columns too (an Inf and a NaN among them).
Eigen::MatrixXf inputs(int cols, int blockCols, int count, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_int_distribution<int> scale(-20, 20);
    Eigen::MatrixXf x(cols, count);
    for (int t = 0; t < count; ++t)
        for (int c = 0; c < cols; ++c) x(c, t) = std::ldexp(u(rng), scale(rng)) + (u(rng) > 0 ? 1e-30f : -1e-30f);
    if (cols > blockCols + 1) {
        x(blockCols, 0) = std::numeric_limits<float>::infinity();
        x(cols - 1, count - 1) = std::numeric_limits<float>::quiet_NaN();
    }
    return x;
}

bool sameBits(const float* a, const float* b, std::size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

bool allPositiveZero(const float* a, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t u;
        std::memcpy(&u, a + i, 4);
        if (u != 0) return false;
    }
    return true;
}

TEST(LinearTrim, PaddedMatrixKeepsItsBlockAndGivesTheBlocksBits) {
    const std::vector<PaddedCase> cases = {
        {DType::BF16, 300, 1100, 77, 203, 0.0},     // neither size a multiple of 32 (vector tails)
        {DType::BF16, 512, 2048, 130, 517, 0.0},    // large enough for the parallel bf16 kernel
        {DType::F32, 384, 4096, 384, 1000, 0.0},    // columns only (a projection of padded inputs)
        {DType::F32, 64, 256, 40, 96, 0.0},         // small: one GEMV
        {DType::BF16, 1024, 256, 256, 256, 0.05},   // rows only (a projection to padded outputs), default density
        {DType::F32, 1024, 256, 256, 256, 0.05},
    };
    std::mt19937 rng(17);
    std::size_t differs = 0;  // rows where the whole padded product's bits are not the block's
    for (const PaddedCase& pc : cases) {
        SCOPED_TRACE(::testing::Message() << dtypeName(pc.dtype) << " " << pc.rows << "x" << pc.cols << " block "
                                          << pc.blockRows << "x" << pc.blockCols);
        const std::vector<float> block = blockValues(pc.blockRows, pc.blockCols, rng);
        const std::vector<std::byte> blockBytes = encode(pc.dtype, block);
        const std::vector<std::byte> paddedBytes =
            encode(pc.dtype, padded(block, pc.blockRows, pc.blockCols, pc.rows, pc.cols));
        LinearOptions options;
        options.sparseDensity = pc.sparseDensity;
        const Linear trimmed(viewOf(pc.dtype, pc.rows, pc.cols, paddedBytes), options);
        const Linear unpadded(viewOf(pc.dtype, pc.blockRows, pc.blockCols, blockBytes), options);

        const Linear::Storage dense = pc.dtype == DType::F32 ? Linear::Storage::DenseF32 : Linear::Storage::DenseBF16;
        const std::string kind = pc.dtype == DType::F32 ? "dense-f32" : "dense-bf16";
        ASSERT_EQ(trimmed.storage(), dense);
        ASSERT_EQ(unpadded.storage(), dense);
        EXPECT_TRUE(trimmed.trimmed());
        EXPECT_FALSE(unpadded.trimmed());
        EXPECT_TRUE(trimmed.ownsWeights());
        EXPECT_EQ(trimmed.rows(), pc.rows);
        EXPECT_EQ(trimmed.cols(), pc.cols);
        EXPECT_EQ(trimmed.blockRows(), pc.blockRows);
        EXPECT_EQ(trimmed.blockCols(), pc.blockCols);
        EXPECT_EQ(trimmed.storageName(), kind + " block " + std::to_string(pc.blockRows) + "x" + std::to_string(pc.blockCols));
        EXPECT_EQ(unpadded.storageName(), kind);
        EXPECT_EQ(trimmed.bytesPerApply(), unpadded.bytesPerApply());
        EXPECT_EQ(trimmed.bytesPerApply(), static_cast<std::size_t>(pc.blockRows) * pc.blockCols * dtypeSize(pc.dtype));
        EXPECT_EQ(trimmed.nonZeros(), static_cast<std::size_t>(pc.blockRows) * pc.blockCols);
        EXPECT_FALSE(trimmed.columnsEmpty(pc.blockCols, pc.cols - pc.blockCols));

        const Eigen::MatrixXf x = inputs(pc.cols, pc.blockCols, 5, rng);
        const Eigen::MatrixXf head = x.topRows(pc.blockCols);
        const std::size_t r = static_cast<std::size_t>(pc.blockRows), below = static_cast<std::size_t>(pc.rows - pc.blockRows);
        for (Eigen::Index t = 0; t < x.cols(); ++t) {
            const Eigen::VectorXf y = trimmed.apply(x.col(t));
            const Eigen::VectorXf want = unpadded.apply(head.col(t));
            ASSERT_EQ(y.size(), pc.rows);
            EXPECT_TRUE(sameBits(y.data(), want.data(), r)) << "apply, column " << t;
            EXPECT_TRUE(allPositiveZero(y.data() + r, below)) << "apply, column " << t;
        }
        const Eigen::MatrixXf y = trimmed.applyBatch(x);
        const Eigen::MatrixXf want = unpadded.applyBatch(head);
        ASSERT_EQ(y.rows(), pc.rows);
        ASSERT_EQ(y.cols(), x.cols());
        for (Eigen::Index t = 0; t < x.cols(); ++t) {
            EXPECT_TRUE(sameBits(y.col(t).data(), want.col(t).data(), r)) << "applyBatch, column " << t;
            EXPECT_TRUE(allPositiveZero(y.col(t).data() + r, below)) << "applyBatch, column " << t;
        }
        // Not vacuous: the whole padded matrix's product (its zero terms added, in another
        // grouping) is not the block's bit for bit. Column 1 of x is finite.
        LinearOptions whole = options;
        whole.trimZeroPadding = false;
        const Linear full(viewOf(pc.dtype, pc.rows, pc.cols, paddedBytes), whole);
        ASSERT_FALSE(full.trimmed());
        const Eigen::VectorXf a = full.apply(x.col(1)), b = unpadded.apply(head.col(1));
        for (int i = 0; i < pc.blockRows; ++i) differs += !sameBits(&a[i], &b[i], 1);
    }
    EXPECT_GT(differs, 20u);
}

// A block of more than half the entries, or the option off: stored whole, as before.
TEST(LinearTrim, LargeBlocksAndTheOptionOffKeepTheWholeMatrix) {
    std::mt19937 rng(23);
    for (const DType dtype : {DType::BF16, DType::F32}) {
        SCOPED_TRACE(dtypeName(dtype));
        const int rows = 100, cols = 200;
        // 100 x 101 is just over half of 100 x 200: kept whole.
        const std::vector<std::byte> over = encode(dtype, padded(blockValues(100, 101, rng), 100, 101, rows, cols));
        // 50 x 200 is exactly half: trimmed, unless the option is off.
        const std::vector<std::byte> half = encode(dtype, padded(blockValues(50, 200, rng), 50, 200, rows, cols));
        LinearOptions options;
        options.sparseDensity = 0;
        const std::string kind = dtype == DType::F32 ? "dense-f32" : "dense-bf16";

        const Linear whole(viewOf(dtype, rows, cols, over), options);
        EXPECT_FALSE(whole.trimmed());
        EXPECT_FALSE(whole.ownsWeights());  // reads the view in place
        EXPECT_EQ(whole.blockRows(), rows);
        EXPECT_EQ(whole.blockCols(), cols);
        EXPECT_EQ(whole.storageName(), kind);
        EXPECT_EQ(whole.bytesPerApply(), static_cast<std::size_t>(rows) * cols * dtypeSize(dtype));
        EXPECT_EQ(whole.nonZeros(), static_cast<std::size_t>(rows) * cols);

        const Linear trimmed(viewOf(dtype, rows, cols, half), options);
        EXPECT_TRUE(trimmed.trimmed());
        EXPECT_EQ(trimmed.storageName(), kind + " block 50x200");
        EXPECT_EQ(trimmed.bytesPerApply(), static_cast<std::size_t>(50) * cols * dtypeSize(dtype));

        options.trimZeroPadding = false;
        const Linear off(viewOf(dtype, rows, cols, half), options);
        EXPECT_FALSE(off.trimmed());
        EXPECT_EQ(off.storageName(), kind);
        EXPECT_EQ(off.bytesPerApply(), static_cast<std::size_t>(rows) * cols * dtypeSize(dtype));
        // Finite inputs: the whole product adds only 0 x finite = +-0 terms past the block's rows.
        const Eigen::VectorXf x = Eigen::VectorXf::Constant(cols, 0.5f);
        const Eigen::VectorXf a = off.apply(x), b = trimmed.apply(x);
        EXPECT_TRUE(allPositiveZero(b.data() + 50, rows - 50));
        EXPECT_TRUE(a.tail(rows - 50).isZero(0));
    }
}

// The storage follows the block's density, not the padded matrix's: a dense 64 x 32 block in
// a 64 x 2048 matrix (1.6 % non-zero, below the default 5 %) is a dense block with the
// unpadded matrix's bits, as a spliced base's projections need (docs/compiler.md §9); a
// block that is itself sparse stays sparse.
TEST(LinearTrim, PaddingDoesNotMakeADenseBlockSparse) {
    std::mt19937 rng(29);
    const int rows = 64, cols = 2048, bc = 32;
    const std::vector<float> block = blockValues(rows, bc, rng);
    const std::vector<std::byte> bytes = encode(DType::BF16, padded(block, rows, bc, rows, cols));
    const std::vector<std::byte> alone = encode(DType::BF16, block);
    const LinearOptions options;  // default: sparse below 5 %
    const Linear pad(viewOf(DType::BF16, rows, cols, bytes), options), unpadded(viewOf(DType::BF16, rows, bc, alone), options);
    EXPECT_EQ(pad.storageName(), "dense-bf16 block 64x32");
    EXPECT_EQ(unpadded.storageName(), "dense-bf16");
    Eigen::VectorXf x(cols);
    for (float& v : x) v = std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng);
    const Eigen::VectorXf a = pad.apply(x), b = unpadded.apply(x.head(bc));
    EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(float) * rows), 0);
    // A block that is sparse itself (one entry in 64 x 32): sparse storage.
    std::vector<float> one(static_cast<std::size_t>(rows) * bc, 0.0f);
    one[5 * bc + 31] = 1.5f;
    one[63 * bc + 0] = -2.0f;
    const std::vector<std::byte> sparseBytes = encode(DType::BF16, padded(one, rows, bc, rows, cols));
    EXPECT_EQ(Linear(viewOf(DType::BF16, rows, cols, sparseBytes), options).storageName(), "sparse");
    // With trimming off the padded matrix is judged whole: sparse.
    LinearOptions off;
    off.trimZeroPadding = false;
    EXPECT_EQ(Linear(viewOf(DType::BF16, rows, cols, bytes), off).storageName(), "sparse");
}

// Narrow rows, then wide sparse ones (a spliced model's head: 200 text rows within the first
// 128 of 512 columns, then 300 rows with a few entries anywhere): split there, the narrow rows
// computed as their block alone and the others as a sparse matrix of those rows alone.
TEST(LinearTrim, NarrowRowsThenWideOnesSplit) {
    std::mt19937 rng(31);
    const int narrow = 200, wide = 300, rows = narrow + wide, cols = 512, bc = 128;
    const std::vector<float> block = blockValues(narrow, bc, rng);
    std::vector<float> all = padded(block, narrow, bc, rows, cols);
    std::vector<float> lower(static_cast<std::size_t>(wide) * cols, 0.0f);
    for (int r = 0; r < wide; ++r)
        for (int k = 0; k < 3; ++k) {
            const int c = k == 0 ? cols / 2 + static_cast<int>(rng() % (cols / 2)) : static_cast<int>(rng() % cols);  // each row wide
            const float v = std::ldexp(static_cast<float>(rng() % 7 + 1), static_cast<int>(rng() % 40) - 20);
            lower[static_cast<std::size_t>(r) * cols + c] = v;
            all[static_cast<std::size_t>(narrow + r) * cols + c] = v;
        }
    const std::vector<std::byte> bytes = encode(DType::BF16, all), top = encode(DType::BF16, block),
                                 bottom = encode(DType::BF16, lower);
    const LinearOptions options;
    const Linear split(viewOf(DType::BF16, rows, cols, bytes), options);
    const Linear upper(viewOf(DType::BF16, narrow, bc, top), options), below(viewOf(DType::BF16, wide, cols, bottom), options);
    EXPECT_EQ(split.storageName(), "dense-bf16 block 200x128 rows 0-199, sparse below");
    EXPECT_EQ(split.bytesPerApply(), upper.bytesPerApply() + below.bytesPerApply());
    Eigen::MatrixXf x(cols, 3);
    for (float& v : x.reshaped()) v = std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng);
    for (int t = 0; t < 3; ++t) {
        const Eigen::VectorXf xt = x.col(t), y = split.apply(xt), a = upper.apply(xt.head(bc)), b = below.apply(xt);
        EXPECT_EQ(std::memcmp(y.data(), a.data(), sizeof(float) * narrow), 0);
        EXPECT_EQ(std::memcmp(y.data() + narrow, b.data(), sizeof(float) * wide), 0);
    }
    const Eigen::MatrixXf yb = split.applyBatch(x), ab = upper.applyBatch(x.topRows(bc)), bb = below.applyBatch(x);
    for (int t = 0; t < 3; ++t) {
        EXPECT_EQ(std::memcmp(yb.col(t).data(), ab.col(t).data(), sizeof(float) * narrow), 0);
        EXPECT_EQ(std::memcmp(yb.col(t).data() + narrow, bb.col(t).data(), sizeof(float) * wide), 0);
    }
    // Trimming off: one dense matrix.
    LinearOptions off;
    off.trimZeroPadding = false;
    EXPECT_EQ(Linear(viewOf(DType::BF16, rows, cols, bytes), off).storageName(), "dense-bf16");
}

// An input of zeros (+0 and -0 mixed) gives +0 in every row without the product, and the
// kernels themselves give exactly that (their sums start at +0: +0 + w x (+-0) = +0), so the
// shortcut has the product's bits; weights of both signs, every bf16 kernel this CPU has,
// Eigen's f32 GEMV and GEMM. An Inf weight turns the shortcut off (its row is NaN).
TEST(LinearZeroInput, ZerosGivePositiveZerosAsTheKernelsDo) {
    std::mt19937 rng(37);
    for (const auto& [rows, cols] : {std::pair{7, 45}, std::pair{300, 512}}) {
        std::vector<float> w(static_cast<std::size_t>(rows) * cols);
        for (float& v : w) v = std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng);
        Eigen::MatrixXf x(cols, 3);
        for (float& v : x.reshaped()) v = rng() % 2 ? 0.0f : -0.0f;
        const std::vector<std::byte> f32 = encode(DType::F32, w), bf16 = encode(DType::BF16, w);
        LinearOptions dense;
        dense.sparseDensity = 0;
        for (const auto* bytes : {&f32, &bf16}) {
            const DType dtype = bytes == &f32 ? DType::F32 : DType::BF16;
            const Linear l(viewOf(dtype, rows, cols, *bytes), dense);
            const Eigen::VectorXf y = l.apply(x.col(0));
            const Eigen::MatrixXf yb = l.applyBatch(x);
            EXPECT_TRUE(allPositiveZero(y.data(), rows));
            EXPECT_TRUE(allPositiveZero(yb.data(), rows * 3));
        }
        // The kernels on the same zeros: +0 too.
        std::vector<std::uint16_t> wb(w.size());
        std::memcpy(wb.data(), bf16.data(), 2 * wb.size());
        const Eigen::VectorXf x0 = x.col(0);
        for (const Bf16Kernel k : {Bf16Kernel::Scalar, Bf16Kernel::Avx2, Bf16Kernel::Avx512}) {
            if (!bf16KernelSupported(k)) continue;
            std::vector<float> out(static_cast<std::size_t>(rows), 1.0f);
            bf16MatVec(wb.data(), rows, cols, x0.data(), out.data(), k);
            EXPECT_TRUE(allPositiveZero(out.data(), rows)) << "bf16 kernel " << static_cast<int>(k);
        }
        const Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> wm(w.data(), rows, cols);
        const Eigen::VectorXf gemv = wm * x0;
        const Eigen::MatrixXf gemm = wm * x;
        EXPECT_TRUE(allPositiveZero(gemv.data(), rows));
        EXPECT_TRUE(allPositiveZero(gemm.data(), rows * 3));
        // A non-finite weight: no shortcut (Inf x 0 is NaN in the product).
        std::vector<float> inf = w;
        inf[3] = std::numeric_limits<float>::infinity();
        const std::vector<std::byte> infBytes = encode(DType::F32, inf);
        const Linear li(viewOf(DType::F32, rows, cols, infBytes), dense);
        EXPECT_TRUE(std::isnan(li.apply(x0)[0]));
    }
    // A trimmed block reads only its columns: zeros there and anything beyond give +0 (the
    // block's product on its zeros), and a non-zero inside the block does not.
    const int rows = 40, cols = 256, bc = 64;
    std::vector<float> block(static_cast<std::size_t>(rows) * bc);
    for (float& v : block) v = std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng);
    const std::vector<std::byte> bytes = encode(DType::BF16, padded(block, rows, bc, rows, cols));
    const Linear trimmed(viewOf(DType::BF16, rows, cols, bytes), LinearOptions{});
    ASSERT_TRUE(trimmed.trimmed());
    Eigen::VectorXf x = Eigen::VectorXf::Zero(cols);
    x.tail(cols - bc).setConstant(3.0f);
    EXPECT_TRUE(allPositiveZero(trimmed.apply(x).data(), rows));
    x[bc - 1] = 1.0f;
    EXPECT_FALSE(trimmed.apply(x).isZero(0));
}

// An all-zero matrix kept dense (the sparse path off) is a 0 x 0 block: every output +0.
TEST(LinearTrim, AllZeroDenseMatrixIsAnEmptyBlock) {
    const std::vector<std::byte> zeros(static_cast<std::size_t>(30) * 40 * 2, std::byte{0});
    LinearOptions options;
    options.sparseDensity = 0;
    const Linear m(viewOf(DType::BF16, 30, 40, zeros), options);
    EXPECT_EQ(m.storageName(), "dense-bf16 block 0x0");
    EXPECT_EQ(m.bytesPerApply(), 0u);
    const Eigen::VectorXf y = m.apply(Eigen::VectorXf::Ones(40));
    ASSERT_EQ(y.size(), 30);
    EXPECT_TRUE(allPositiveZero(y.data(), 30));
    const Eigen::MatrixXf yb = m.applyBatch(Eigen::MatrixXf::Ones(40, 3));
    ASSERT_EQ(yb.rows(), 30);
    EXPECT_TRUE(allPositiveZero(yb.data(), 90));
}

}  // namespace
}  // namespace qgpu::model
