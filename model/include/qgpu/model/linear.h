// One bias-free projection y = W x (W is [out, in], PyTorch nn.Linear layout).
// The storage is chosen per matrix when the model is built:
//   * dense f32  - Eigen GEMV/GEMM over the mapped (or copied) f32 data;
//   * dense bf16 - stays bf16 in memory (half the bytes to stream per token),
//                  widened to f32 inside the dot-product kernel;
//   * sparse     - an Eigen row-major sparse matrix, used automatically when the
//                  fraction of non-zeros is below LinearOptions::sparseDensity; beside it
//                  the same entries by column (in row blocks, one per thread), so that a
//                  product whose input is mostly exact zeros touches only the columns of
//                  its non-zero inputs (applyByColumns: bit-identical to the row product).
// f16 weights are widened to f32 once at load. All arithmetic is f32.
#pragma once

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/model/tensor_view.h"

namespace qgpu::model {

struct LinearOptions {
    // Matrices with at most this fraction of non-zero entries are stored sparse.
    // 0 disables the sparse path (every matrix dense).
    double sparseDensity = 0.05;
    // Part of the sparse path: DeltaNet heads whose key and query are exactly one-hot touch one
    // row of their state (gated_delta_net.h); off with the sparse path or on its own.
    bool oneHotDeltaNet = true;
    // Part of the sparse path: an attention or DeltaNet head whose output projection's columns
    // hold no entry is not computed (gated_attention.h, gated_delta_net.h); off with the
    // sparse path or on its own.
    bool skipUnreadHeads = true;
};

class Linear {
public:
    enum class Storage { DenseF32, DenseBF16, Sparse };

    Linear() = default;
    // Move-only: the data pointers may point into the owned buffers.
    Linear(Linear&&) = default;
    Linear& operator=(Linear&&) = default;
    Linear(const Linear&) = delete;
    Linear& operator=(const Linear&) = delete;
    // `view` must be 2-D; its bytes must outlive the Linear (the store keeps them mapped).
    Linear(const TensorView& view, const LinearOptions& options);

    int rows() const { return rows_; }
    int cols() const { return cols_; }
    Storage storage() const { return storage_; }
    std::string storageName() const;
    std::size_t nonZeros() const { return nonZeros_; }
    // Sparse storage only: whether columns [first, first + count) hold no stored entry, so
    // that no product reads x there (false for dense storage).
    bool columnsEmpty(int first, int count) const;
    // Bytes of weight data one product streams from memory.
    std::size_t bytesPerApply() const;

    // y = W x for one vector.
    Eigen::VectorXf apply(const Eigen::VectorXf& x) const;
    // The sparse product by rows (every stored entry) and by the columns of x's non-zero
    // entries only (sparse storage): the same bits, each row's terms added in column order
    // from +0 either way, and a term skipped is a +-0 that leaves the sum as it is (a sum
    // that starts at +0 is never -0). apply() takes the cheaper; public for the tests.
    Eigen::VectorXf applyByRows(const Eigen::VectorXf& x) const;
    Eigen::VectorXf applyByColumns(const Eigen::VectorXf& x) const;
    // Y = W X for a block of column vectors (one column per token).
    Eigen::MatrixXf applyBatch(const Eigen::MatrixXf& x) const;

private:
    using RowMajorF32 = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Eigen::Map<const RowMajorF32> denseF32() const { return {f32_, rows_, cols_}; }

    int rows_ = 0;
    int cols_ = 0;
    Storage storage_ = Storage::DenseF32;
    std::size_t nonZeros_ = 0;
    const float* f32_ = nullptr;          // dense f32 data (mapped or ownedF32_)
    const std::uint16_t* bf16_ = nullptr; // dense bf16 data (mapped or ownedBf16_)
    std::vector<float> ownedF32_;         // when widened from f16 or the mapping is misaligned
    std::vector<std::uint16_t> ownedBf16_;
    Eigen::SparseMatrix<float, Eigen::RowMajor, int> sparse_;
    struct ColumnBlock {
        int row0 = 0;
        Eigen::SparseMatrix<float, Eigen::ColMajor, int> entries;  // rows [row0, row0 + rows)
    };
    std::vector<ColumnBlock> columnBlocks_;   // sparse storage: the entries by column, in row blocks
    std::vector<std::uint32_t> columnEntries_;  // sparse storage: entries per column, all blocks
};

// Per block of `width` input columns of `projection` (`blocks` of them, a head's output each):
// whether the product reads it — false only where options.skipUnreadHeads is on and the
// sparse storage holds no entry in the block's columns (the heads skipUnreadHeads skips).
std::vector<char> inputBlocksRead(const Linear& projection, int blocks, int width, const LinearOptions& options);

// The instruction-set variants of the bf16 kernel; Auto picks the best the CPU has.
enum class Bf16Kernel { Auto, Avx512, Avx2, Scalar };
// Whether this CPU can run `kernel` (Auto and Scalar always can).
bool bf16KernelSupported(Bf16Kernel kernel);

// The dot-product kernel of the bf16 path, exposed for tests and benchmarks:
// y[r] = sum_c bf16(w[r*cols + c]) * x[c] for r in [0, rows), in parallel over rows.
void bf16MatVec(const std::uint16_t* w, int rows, int cols, const float* x, float* y, Bf16Kernel kernel = Bf16Kernel::Auto);

}  // namespace qgpu::model
