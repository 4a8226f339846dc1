// One bias-free projection y = W x (W is [out, in], PyTorch nn.Linear layout).
// The storage is chosen per matrix when the model is built:
//   * dense f32  - Eigen GEMV/GEMM over the mapped (or copied) f32 data;
//   * dense bf16 - stays bf16 in memory (half the bytes to stream per token),
//                  widened to f32 inside the dot-product kernel;
//   * dense block (f32 or bf16) - a dense matrix whose non-zero entries all lie in a leading
//                  block [0, R) x [0, C) of at most half its entries (a checkpoint zero-padded
//                  to a wider model) keeps that block only, copied out of the mapping:
//                  y[0, R) = block x[0, C) by the dense kernels above, y[R, rows) = +0
//                  (LinearOptions::trimZeroPadding);
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
#include <memory>
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
    // Part of the sparse path: an attention head scores each distinct cached key once and
    // reads the one position (or the +0 values) its softmax selects, where that gives the
    // position-by-position read's bits (attention_read.h); off with the sparse path or on its own.
    bool groupEqualKeys = true;
    // A matrix stored dense whose non-zero entries all lie in the leading block [0, R) x [0, C)
    // (R = 1 + the last row holding a non-zero, C = 1 + the last such column), where R x C is
    // at most half of rows x cols, keeps that block only: a product streams its bytes, not the
    // padding's. Its outputs are those of the block alone (the same kernels on the block,
    // bit for bit; rows R.. are +0): the padding's 0 x x terms are not added, so x's entries
    // from C on are never read (an Inf or NaN there does not reach y, as it would through the
    // full dense product). The storage is chosen by the block's density (sparseDensity of
    // R x C), so that padding never turns a dense block into a sparse matrix. A matrix stored
    // dense that is no such block but whose first rows hold entries only in the left half of
    // the columns (a spliced model's head: the base's text rows, then the GPU's ids) is split
    // there, each row range stored as a Linear of its own (the upper one a block, the lower
    // one by its own density), each row computed as its range alone computes it.
    bool trimZeroPadding = true;
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
    // "dense-f32", "dense-bf16", "sparse"; a trimmed dense matrix "dense-bf16 block RxC".
    std::string storageName() const;
    // Sparse storage: the stored entries. Dense storage: not counted; the entries of the stored
    // matrix (rows x cols, or R x C of a trimmed block).
    std::size_t nonZeros() const { return nonZeros_; }
    // The dense matrix kept, [0, blockRows) x [0, blockCols): rows x cols unless trimmed
    // (LinearOptions::trimZeroPadding); rows x cols for sparse storage.
    int blockRows() const { return blockRows_; }
    int blockCols() const { return blockCols_; }
    bool trimmed() const { return storage_ != Storage::Sparse && (blockRows_ != rows_ || blockCols_ != cols_); }
    // Whether the weights were copied out of the view (sparse storage, a trimmed block, f16
    // widened, or a misaligned mapping), so that the view's mapped pages may be released.
    bool ownsWeights() const { return ownsWeights_; }
    // Sparse storage only: whether columns [first, first + count) hold no stored entry, so
    // that no product reads x there (false for dense storage).
    bool columnsEmpty(int first, int count) const;
    // Bytes of weight data one product streams from memory.
    std::size_t bytesPerApply() const;

    // y = W x for one vector. Dense storage with finite weights: an x of +-0 only gives +0 in
    // every row without the product (the kernels' sums start at +0, so they give the same).
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
    Eigen::Map<const RowMajorF32> denseF32() const { return {f32_, blockRows_, blockCols_}; }
    // The dense products over the stored [blockRows, blockCols] matrix; x has blockCols rows.
    Eigen::VectorXf applyDense(const Eigen::VectorXf& x) const;
    Eigen::MatrixXf applyBatchDense(const Eigen::MatrixXf& x) const;

    int rows_ = 0;
    int cols_ = 0;
    int blockRows_ = 0;  // the dense matrix stored (rows_ x cols_ unless trimmed)
    int blockCols_ = 0;
    Storage storage_ = Storage::DenseF32;
    std::size_t nonZeros_ = 0;
    bool ownsWeights_ = false;
    const float* f32_ = nullptr;          // dense f32 data (mapped or ownedF32_)
    const std::uint16_t* bf16_ = nullptr; // dense bf16 data (mapped or ownedBf16_)
    std::vector<float> ownedF32_;         // when widened from f16, trimmed, or the mapping is misaligned
    std::vector<std::uint16_t> ownedBf16_;
    Eigen::SparseMatrix<float, Eigen::RowMajor, int> sparse_;
    struct ColumnBlock {
        int row0 = 0;
        Eigen::SparseMatrix<float, Eigen::ColMajor, int> entries;  // rows [row0, row0 + rows)
    };
    std::vector<ColumnBlock> columnBlocks_;   // sparse storage: the entries by column, in row blocks
    std::vector<std::uint32_t> columnEntries_;  // sparse storage: entries per column, all blocks
    // Split by rows (LinearOptions::trimZeroPadding): rows [0, upper_->rows()) whose entries lie
    // in the left half of the columns, and the rest, each a Linear of its own.
    std::unique_ptr<Linear> upper_, lower_;
    // Dense storage: no Inf or NaN weight, so that an input of zeros gives +0 (apply()).
    bool finiteWeights_ = false;
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
