// Bias-free projections y = W x, dense (whole or a leading block) or sparse storage chosen per matrix.
#include "qgpu/model/linear.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "qgpu/model/error.h"
#include "qgpu/model/parallel_for.h"

namespace qgpu::model {
namespace {

// Below this many weights a product is too small to be worth waking threads.
constexpr std::size_t kParallelMinWeights = 1u << 16;

float dotBf16Scalar(const std::uint16_t* w, const float* x, int n) {
    float acc[8] = {};
    int c = 0;
    for (; c + 8 <= n; c += 8)
        for (int k = 0; k < 8; ++k) acc[k] += bf16ToFloat(w[c + k]) * x[c + k];
    float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; c < n; ++c) s += bf16ToFloat(w[c]) * x[c];
    return s;
}

// AVX2: widen 8 bf16 at a time by shifting them into the high half of 32-bit
// lanes. Four accumulators hide the FMA latency, so the loop keeps up with memory.
__attribute__((target("avx2,fma"))) float dotBf16Avx2(const std::uint16_t* w, const float* x, int n) {
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    int c = 0;
    for (; c + 32 <= n; c += 32) {
        for (int k = 0; k < 2; ++k) {
            const __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + c + 16 * k));
            const __m256i lo = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(raw)), 16);
            const __m256i hi = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(raw, 1)), 16);
            acc[2 * k] = _mm256_fmadd_ps(_mm256_castsi256_ps(lo), _mm256_loadu_ps(x + c + 16 * k), acc[2 * k]);
            acc[2 * k + 1] = _mm256_fmadd_ps(_mm256_castsi256_ps(hi), _mm256_loadu_ps(x + c + 16 * k + 8), acc[2 * k + 1]);
        }
    }
    const __m256 sum = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
    __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
    s4 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    s4 = _mm_add_ss(s4, _mm_shuffle_ps(s4, s4, 1));
    float s = _mm_cvtss_f32(s4);
    for (; c < n; ++c) s += bf16ToFloat(w[c]) * x[c];
    return s;
}

// AVX-512 (with BW): four rows at a time, 32 columns per step. Interleaving a
// zero register below the bf16 words (unpacklo/hi) widens them in one shuffle,
// but in lane order {0-3, 8-11, 16-19, 24-27} / {4-7, ...}; `xPerm` holds x
// permuted the same way (see permuteForUnpack), so the products pair up.
// Eight independent accumulators hide the FMA latency.
// (GCC 12 warns falsely about the intrinsics' internal _mm512_undefined operands.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f,avx512bw"))) void dot4Bf16Avx512(const std::uint16_t* w, std::size_t stride,
                                                                  const float* xPerm, const float* x, int n, float* y) {
    const __m512i zero = _mm512_setzero_si512();
    __m512 lo[4], hi[4];
    for (int k = 0; k < 4; ++k) lo[k] = hi[k] = _mm512_setzero_ps();
    const int blocked = n & ~31;
    for (int c = 0; c < blocked; c += 32) {
        const __m512 xl = _mm512_loadu_ps(xPerm + c);
        const __m512 xh = _mm512_loadu_ps(xPerm + c + 16);
        for (int k = 0; k < 4; ++k) {
            const __m512i raw = _mm512_loadu_si512(w + k * stride + c);
            lo[k] = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_unpacklo_epi16(zero, raw)), xl, lo[k]);
            hi[k] = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_unpackhi_epi16(zero, raw)), xh, hi[k]);
        }
    }
    for (int k = 0; k < 4; ++k) {
        float s = _mm512_reduce_add_ps(_mm512_add_ps(lo[k], hi[k]));
        for (int c = blocked; c < n; ++c) s += bf16ToFloat(w[k * stride + c]) * x[c];
        y[k] = s;
    }
}

// Single-row version of the above, for the rows left over after blocks of four.
__attribute__((target("avx512f,avx512bw"))) float dotBf16Avx512(const std::uint16_t* w, const float* xPerm,
                                                                 const float* x, int n) {
    const __m512i zero = _mm512_setzero_si512();
    __m512 lo = _mm512_setzero_ps(), hi = _mm512_setzero_ps();
    const int blocked = n & ~31;
    for (int c = 0; c < blocked; c += 32) {
        const __m512i raw = _mm512_loadu_si512(w + c);
        lo = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_unpacklo_epi16(zero, raw)), _mm512_loadu_ps(xPerm + c), lo);
        hi = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_unpackhi_epi16(zero, raw)), _mm512_loadu_ps(xPerm + c + 16), hi);
    }
    float s = _mm512_reduce_add_ps(_mm512_add_ps(lo, hi));
    for (int c = blocked; c < n; ++c) s += bf16ToFloat(w[c]) * x[c];
    return s;
}
#pragma GCC diagnostic pop

bool cpuHasAvx512() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"); }
bool cpuHasAvx2() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

Bf16Kernel bestKernel() {
    static const Bf16Kernel best = cpuHasAvx512() ? Bf16Kernel::Avx512 : cpuHasAvx2() ? Bf16Kernel::Avx2 : Bf16Kernel::Scalar;
    return best;
}

// Widens rows [r0, r0+n) of a bf16 matrix into a dense f32 block.
void widenRows(const std::uint16_t* w, int cols, int r0, int n, Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& out) {
    out.resize(n, cols);
    const std::uint16_t* src = w + static_cast<std::size_t>(r0) * cols;
    float* dst = out.data();
    for (std::size_t i = 0, e = static_cast<std::size_t>(n) * cols; i < e; ++i) dst[i] = bf16ToFloat(src[i]);
}

// Reorders each full block of 32 entries of x to match the lane order that
// unpacklo/unpackhi_epi16 give within each 128-bit lane (see dot4Bf16Avx512).
std::vector<float> permuteForUnpack(const float* x, int n) {
    std::vector<float> p(static_cast<std::size_t>(n & ~31));
    for (std::size_t b = 0; b < p.size(); b += 32)
        for (int lane = 0; lane < 4; ++lane)
            for (int i = 0; i < 4; ++i) {
                p[b + 4 * lane + i] = x[b + 8 * lane + i];           // unpacklo half
                p[b + 16 + 4 * lane + i] = x[b + 8 * lane + 4 + i];  // unpackhi half
            }
    return p;
}

// Calls f(index, value) for every entry that is not +-0 (as `value != 0.0f` decides), in
// index order, until f returns false. Reads the raw words of f32 and bf16 data: a mostly-zero
// checkpoint of gigabytes is scanned at memory speed, not one dtype dispatch per entry.
template <class F>
void forEachNonZero(const TensorView& view, F&& f) {
    const std::size_t n = view.numel();
    const std::byte* data = view.bytes.data();
    if (view.dtype == DType::F32) {
        for (std::size_t i = 0; i < n; ++i) {
            std::uint32_t u;
            std::memcpy(&u, data + 4 * i, 4);
            if ((u & 0x7fffffffu) != 0) {
                float v;
                std::memcpy(&v, &u, 4);
                if (!f(i, v)) return;
            }
        }
    } else if (view.dtype == DType::BF16) {
        for (std::size_t i = 0; i < n; ++i) {
            std::uint16_t u;
            std::memcpy(&u, data + 2 * i, 2);
            if ((u & 0x7fffu) != 0 && !f(i, bf16ToFloat(u))) return;
        }
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            const float v = view.at(i);
            if (v != 0.0f && !f(i, v)) return;
        }
    }
}

// The smallest leading block [0, R) x [0, C) of a [rows, cols] matrix of `Word`s that holds
// every entry that is not +-0 ((word & mask) != 0: exact for f32, bf16 and f16 alike), if it
// has at most `limit` entries; nullopt as soon as it is known to have more, so that a matrix
// without zero padding costs a few reads. R from the last non-zero entry (scanning back from
// the end), then C from each row above it, scanned back down to the widest C so far.
template <class Word>
std::optional<std::pair<int, int>> leadingBlockOf(const std::byte* data, int rows, int cols, Word mask, std::size_t limit) {
    const std::size_t stride = static_cast<std::size_t>(cols);
    auto nonZero = [&](std::size_t i) {
        Word u;
        std::memcpy(&u, data + sizeof(Word) * i, sizeof(Word));
        return (u & mask) != 0;
    };
    std::size_t end = static_cast<std::size_t>(rows) * stride;
    while (end > 0 && !nonZero(end - 1)) --end;
    if (end == 0) return std::pair{0, 0};  // no non-zero entry
    const std::size_t r = (end - 1) / stride + 1;
    std::size_t c = (end - 1) % stride + 1;  // row r - 1 is scanned from c on
    if (r * c > limit) return std::nullopt;
    for (std::size_t row = 0; row + 1 < r; ++row) {
        for (std::size_t col = stride; col > c; --col) {
            if (nonZero(row * stride + col - 1)) {
                c = col;
                break;
            }
        }
        if (r * c > limit) return std::nullopt;
    }
    return std::pair{static_cast<int>(r), static_cast<int>(c)};
}

std::optional<std::pair<int, int>> leadingBlock(const TensorView& view, int rows, int cols, std::size_t limit) {
    if (rows == 0 || cols == 0) return std::nullopt;
    if (view.dtype == DType::F32) return leadingBlockOf<std::uint32_t>(view.bytes.data(), rows, cols, 0x7fffffffu, limit);
    return leadingBlockOf<std::uint16_t>(view.bytes.data(), rows, cols, 0x7fffu, limit);  // bf16, f16
}

// The first row holding a non-zero entry in the right half of the columns, if the rows above it
// hold some entry (rows x cols of `Word`s): where a matrix of narrow rows and then wide ones
// splits. rows when no row reaches the right half.
template <class Word>
int firstWideRow(const std::byte* data, int rows, int cols, Word mask) {
    const std::size_t stride = static_cast<std::size_t>(cols);
    for (int r = 0; r < rows; ++r) {
        const std::byte* row = data + sizeof(Word) * stride * static_cast<std::size_t>(r);
        for (std::size_t c = stride; c > stride / 2; --c) {
            Word u;
            std::memcpy(&u, row + sizeof(Word) * (c - 1), sizeof(Word));
            if ((u & mask) != 0) return r;
        }
    }
    return rows;
}

int firstWideRow(const TensorView& view, int rows, int cols) {
    if (view.dtype == DType::F32) return firstWideRow<std::uint32_t>(view.bytes.data(), rows, cols, 0x7fffffffu);
    return firstWideRow<std::uint16_t>(view.bytes.data(), rows, cols, 0x7fffu);
}

// Whether every entry is +0 or -0.
bool allZero(const float* x, std::size_t n) {
    std::uint32_t any = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t u;
        std::memcpy(&u, x + i, 4);
        any |= u << 1;
    }
    return any == 0;
}

// Whether rows [0, n) of every column of x are +-0.
bool topRowsZero(const Eigen::MatrixXf& x, int n) {
    for (Eigen::Index t = 0; t < x.cols(); ++t)
        if (!allZero(x.col(t).data(), static_cast<std::size_t>(n))) return false;
    return true;
}

// Whether every value of `count` bf16 / f32 words is finite.
bool allFinite(const std::uint16_t* w, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i)
        if ((w[i] & 0x7f80u) == 0x7f80u) return false;
    return true;
}
bool allFinite(const float* w, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i)
        if (!std::isfinite(w[i])) return false;
    return true;
}

// Rows [first, first + count) of a 2-D view, as a view of their own.
TensorView rowsOf(const TensorView& view, int first, int count) {
    const std::size_t rowBytes = static_cast<std::size_t>(view.shape[1]) * dtypeSize(view.dtype);
    return TensorView{view.dtype, {count, view.shape[1]},
                      view.bytes.subspan(rowBytes * static_cast<std::size_t>(first), rowBytes * static_cast<std::size_t>(count)),
                      view.origin};
}

}  // namespace

bool bf16KernelSupported(Bf16Kernel kernel) {
    switch (kernel) {
        case Bf16Kernel::Avx512: return cpuHasAvx512();
        case Bf16Kernel::Avx2: return cpuHasAvx2();
        case Bf16Kernel::Auto:
        case Bf16Kernel::Scalar: return true;
    }
    return false;
}

void bf16MatVec(const std::uint16_t* w, int rows, int cols, const float* x, float* y, Bf16Kernel kernel) {
    if (!bf16KernelSupported(kernel)) throw ModelError("bf16MatVec: this CPU cannot run the requested kernel");
    const std::size_t stride = static_cast<std::size_t>(cols);
    // Chunks of ~64K weights: small enough to balance two cores, large enough to amortise the hand-off.
    const std::size_t parallelRows = static_cast<std::size_t>(rows) * cols >= kParallelMinWeights ? 1 : 0;
    const std::size_t grainRows = parallelRows ? std::max<std::size_t>(4, (kParallelMinWeights / stride) & ~std::size_t{3})
                                               : static_cast<std::size_t>(rows);
    switch (kernel == Bf16Kernel::Auto ? bestKernel() : kernel) {
        case Bf16Kernel::Auto:  // resolved above
        case Bf16Kernel::Avx512: {
            const std::vector<float> xPerm = permuteForUnpack(x, cols);
            parallelFor(static_cast<std::size_t>(rows), grainRows, [&](std::size_t r0, std::size_t r1) {
                std::size_t r = r0;
                for (; r + 4 <= r1; r += 4) dot4Bf16Avx512(w + r * stride, stride, xPerm.data(), x, cols, y + r);
                for (; r < r1; ++r) y[r] = dotBf16Avx512(w + r * stride, xPerm.data(), x, cols);
            });
            break;
        }
        case Bf16Kernel::Avx2:
            parallelFor(static_cast<std::size_t>(rows), grainRows, [&](std::size_t r0, std::size_t r1) {
                for (std::size_t r = r0; r < r1; ++r) y[r] = dotBf16Avx2(w + r * stride, x, cols);
            });
            break;
        case Bf16Kernel::Scalar:
            parallelFor(static_cast<std::size_t>(rows), grainRows, [&](std::size_t r0, std::size_t r1) {
                for (std::size_t r = r0; r < r1; ++r) y[r] = dotBf16Scalar(w + r * stride, x, cols);
            });
            break;
    }
}

Linear::Linear(const TensorView& view, const LinearOptions& options) {
    if (view.shape.size() != 2) throw ModelError(view.origin + ": Linear needs a 2-D tensor, got " + shapeString(view.shape));
    rows_ = static_cast<int>(view.shape[0]);
    cols_ = static_cast<int>(view.shape[1]);
    const std::size_t n = view.numel();

    // The leading block of non-zeros first: zero padding (a spliced model's, docs/compiler.md
    // §9) must not change how a matrix is computed, so the density that picks the storage is
    // the block's, not the padded matrix's.
    std::optional<std::pair<int, int>> leading;
    if (options.trimZeroPadding) leading = leadingBlock(view, rows_, cols_, n / 2);
    const std::size_t basis = leading ? static_cast<std::size_t>(leading->first) * static_cast<std::size_t>(leading->second) : n;
    // Count non-zeros once to pick the storage; stop counting as soon as dense wins.
    const std::size_t sparseLimit = static_cast<std::size_t>(options.sparseDensity * static_cast<double>(basis));
    std::size_t nnz = 0;
    if (options.sparseDensity > 0) {
        forEachNonZero(view, [&](std::size_t, float) { return ++nnz <= sparseLimit; });
    }
    if (options.sparseDensity > 0 && nnz <= sparseLimit) {
        // apply() counts the entries a product reaches in 32 bits.
        if (nnz >= (std::size_t{1} << 32)) throw ModelError(view.origin + ": more than 2^32 - 1 non-zero entries for the sparse path");
        storage_ = Storage::Sparse;
        ownsWeights_ = true;
        blockRows_ = rows_;
        blockCols_ = cols_;
        std::vector<Eigen::Triplet<float, int>> triplets;
        triplets.reserve(nnz);
        forEachNonZero(view, [&](std::size_t i, float v) {
            triplets.emplace_back(static_cast<int>(i / static_cast<std::size_t>(cols_)),
                                  static_cast<int>(i % static_cast<std::size_t>(cols_)), v);
            return true;
        });
        sparse_.resize(rows_, cols_);
        sparse_.setFromTriplets(triplets.begin(), triplets.end());
        sparse_.makeCompressed();
        nonZeros_ = nnz;
        // By column, one row block per thread: the blocks write disjoint rows of y.
        const std::size_t blocks = std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(parallelThreads()), static_cast<std::size_t>(rows_)));
        for (std::size_t b = 0; b < blocks; ++b) {
            const int r0 = static_cast<int>(static_cast<std::size_t>(rows_) * b / blocks);
            const int r1 = static_cast<int>(static_cast<std::size_t>(rows_) * (b + 1) / blocks);
            ColumnBlock block;
            block.row0 = r0;
            block.entries = sparse_.middleRows(r0, r1 - r0);
            block.entries.makeCompressed();
            columnBlocks_.push_back(std::move(block));
        }
        columnEntries_.assign(static_cast<std::size_t>(cols_), 0);
        for (const ColumnBlock& b : columnBlocks_)
            for (int c = 0; c < cols_; ++c)
                columnEntries_[static_cast<std::size_t>(c)] += static_cast<std::uint32_t>(b.entries.outerIndexPtr()[c + 1] - b.entries.outerIndexPtr()[c]);
        return;
    }
    // Narrow rows, then wide ones (a spliced model's head: the base's text rows within its
    // columns, then the GPU's ids' rows): each range stored as a matrix of its own, so that the
    // narrow rows are computed as their block alone (and the wide ones, mostly zeros, sparse).
    if (options.trimZeroPadding && !leading) {
        const int split = firstWideRow(view, rows_, cols_);
        if (split > 0 && split < rows_) {
            upper_ = std::make_unique<Linear>(rowsOf(view, 0, split), options);
            lower_ = std::make_unique<Linear>(rowsOf(view, split, rows_ - split), options);
            storage_ = upper_->storage_;
            nonZeros_ = upper_->nonZeros_ + lower_->nonZeros_;
            ownsWeights_ = upper_->ownsWeights_ && lower_->ownsWeights_;
            blockRows_ = rows_;
            blockCols_ = cols_;
            return;
        }
    }
    // Dense: the whole matrix, or its leading block of non-zeros when that is at most half.
    blockRows_ = rows_;
    blockCols_ = cols_;
    if (leading) {
        blockRows_ = leading->first;
        blockCols_ = leading->second;
    }
    const std::size_t stored = static_cast<std::size_t>(blockRows_) * static_cast<std::size_t>(blockCols_);
    nonZeros_ = stored;  // not counted exactly for dense storage
    // Copies (or widens) the block's rows, strided in the view, into `out`.
    auto copyBlock = [&](auto& out, std::size_t elementBytes) {
        out.resize(stored);
        for (std::size_t r = 0; r < static_cast<std::size_t>(blockRows_); ++r)
            std::memcpy(out.data() + r * static_cast<std::size_t>(blockCols_),
                        view.bytes.data() + r * static_cast<std::size_t>(cols_) * elementBytes,
                        static_cast<std::size_t>(blockCols_) * elementBytes);
    };
    const bool trim = trimmed();
    const auto addr = reinterpret_cast<std::uintptr_t>(view.bytes.data());
    switch (view.dtype) {
        case DType::F32:
            storage_ = Storage::DenseF32;
            if (!trim && addr % alignof(float) == 0) {
                f32_ = reinterpret_cast<const float*>(view.bytes.data());
            } else {  // a block, or a misaligned mapping (safetensors does not promise alignment)
                copyBlock(ownedF32_, sizeof(float));
                f32_ = ownedF32_.data();
                ownsWeights_ = true;
            }
            break;
        case DType::F16:
            storage_ = Storage::DenseF32;
            ownedF32_.resize(stored);
            for (std::size_t r = 0; r < static_cast<std::size_t>(blockRows_); ++r)
                for (std::size_t c = 0; c < static_cast<std::size_t>(blockCols_); ++c)
                    ownedF32_[r * static_cast<std::size_t>(blockCols_) + c] = view.at(r * static_cast<std::size_t>(cols_) + c);
            f32_ = ownedF32_.data();
            ownsWeights_ = true;
            break;
        case DType::BF16:
            storage_ = Storage::DenseBF16;
            if (!trim && addr % alignof(std::uint16_t) == 0) {
                bf16_ = reinterpret_cast<const std::uint16_t*>(view.bytes.data());
            } else {
                copyBlock(ownedBf16_, sizeof(std::uint16_t));
                bf16_ = ownedBf16_.data();
                ownsWeights_ = true;
            }
            break;
    }
    finiteWeights_ = storage_ == Storage::DenseBF16 ? allFinite(bf16_, stored) : allFinite(f32_, stored);
}

bool Linear::columnsEmpty(int first, int count) const {
    if (upper_ || storage_ != Storage::Sparse || first < 0 || count < 0 || first + count > cols_) return false;
    for (int c = first; c < first + count; ++c)
        if (columnEntries_[static_cast<std::size_t>(c)] != 0) return false;
    return true;
}

std::vector<char> inputBlocksRead(const Linear& projection, int blocks, int width, const LinearOptions& options) {
    std::vector<char> read;
    for (int i = 0; i < blocks; ++i)
        read.push_back(options.skipUnreadHeads && projection.columnsEmpty(i * width, width) ? 0 : 1);
    return read;
}

std::string Linear::storageName() const {
    if (upper_)
        return upper_->storageName() + " rows 0-" + std::to_string(upper_->rows_ - 1) + ", " + lower_->storageName() + " below";
    const std::string block = trimmed() ? " block " + std::to_string(blockRows_) + "x" + std::to_string(blockCols_) : "";
    switch (storage_) {
        case Storage::DenseF32: return "dense-f32" + block;
        case Storage::DenseBF16: return "dense-bf16" + block;
        case Storage::Sparse: return "sparse";
    }
    return "?";
}

std::size_t Linear::bytesPerApply() const {
    if (upper_) return upper_->bytesPerApply() + lower_->bytesPerApply();
    const std::size_t n = static_cast<std::size_t>(blockRows_) * static_cast<std::size_t>(blockCols_);
    switch (storage_) {
        case Storage::DenseF32: return n * 4;
        case Storage::DenseBF16: return n * 2;
        case Storage::Sparse: return nonZeros_ * (sizeof(float) + sizeof(int)) + (rows_ + 1) * sizeof(int);
    }
    return 0;
}

Eigen::VectorXf Linear::apply(const Eigen::VectorXf& x) const {
    // Exact zeros in, +0 out, without streaming the matrix (a spliced base's layers at a
    // machine token, docs/compiler.md §9): every kernel's sums start at +0, and +0 + w x (+-0)
    // stays +0 for finite weights, so the product would give +0 in every row too.
    // (A trimmed block reads x's first blockCols_ entries only: those must be zeros.)
    if (storage_ != Storage::Sparse && !upper_ && finiteWeights_ && allZero(x.data(), static_cast<std::size_t>(blockCols_)))
        return Eigen::VectorXf::Zero(rows_);
    if (upper_) {
        Eigen::VectorXf y(rows_);
        y.head(upper_->rows_) = upper_->apply(x);
        y.tail(lower_->rows_) = lower_->apply(x);
        return y;
    }
    if (storage_ == Storage::Sparse) {
        // By columns where the entries under x's non-zeros are under half of all (a scatter
        // costs about twice a gather per entry).
        // Branch-free on the bits (x's zeros and non-zeros are mixed), so that it vectorises;
        // the sum is at most nonZeros_, which a 32-bit count holds (checked at construction).
        std::uint32_t touched = 0;
        const std::uint32_t* entries = columnEntries_.data();
        for (int c = 0; c < cols_; ++c) {
            std::uint32_t bits;
            std::memcpy(&bits, x.data() + c, 4);
            touched += entries[c] & (0u - static_cast<std::uint32_t>((bits << 1) != 0));  // not +-0
        }
        return 2 * touched < nonZeros_ ? applyByColumns(x) : applyByRows(x);
    }
    if (!trimmed()) return applyDense(x);
    // The block's product exactly as a Linear of the block alone computes it: the same
    // kernels on a vector of blockCols_ entries (a copy of x's head), then +0 below.
    Eigen::VectorXf y = Eigen::VectorXf::Zero(rows_);
    if (blockRows_ > 0) {
        const Eigen::VectorXf head = x.head(blockCols_);
        y.head(blockRows_) = applyDense(head);
    }
    return y;
}

Eigen::VectorXf Linear::applyDense(const Eigen::VectorXf& x) const {
    const int rows = blockRows_, cols = blockCols_;
    Eigen::VectorXf y(rows);
    switch (storage_) {
        case Storage::DenseF32: {
            const auto w = denseF32();
            if (static_cast<std::size_t>(rows) * cols < kParallelMinWeights) {
                y.noalias() = w * x;
                break;
            }
            // Eigen's GEMV is single-threaded: split the rows over the pool.
            const std::size_t grain = std::max<std::size_t>(16, kParallelMinWeights / static_cast<std::size_t>(cols));
            parallelFor(static_cast<std::size_t>(rows), grain, [&](std::size_t r0, std::size_t r1) {
                const auto n = static_cast<Eigen::Index>(r1 - r0);
                y.segment(static_cast<Eigen::Index>(r0), n).noalias() = w.middleRows(static_cast<Eigen::Index>(r0), n) * x;
            });
            break;
        }
        case Storage::DenseBF16: bf16MatVec(bf16_, rows, cols, x.data(), y.data()); break;
        case Storage::Sparse: throw ModelError("Linear::applyDense: sparse storage");
    }
    return y;
}

Eigen::VectorXf Linear::applyByRows(const Eigen::VectorXf& x) const {
    if (storage_ != Storage::Sparse) throw ModelError("Linear::applyByRows: not sparse storage");
    Eigen::VectorXf y(rows_);
    if (nonZeros_ < kParallelMinWeights / 4) {
        y.noalias() = sparse_ * x;
        return y;
    }
    // Row-major storage makes a block of rows a cheap view: split rows over the pool.
    const std::size_t grain = std::max<std::size_t>(64, static_cast<std::size_t>(rows_) * (kParallelMinWeights / 4) / nonZeros_);
    parallelFor(static_cast<std::size_t>(rows_), grain, [&](std::size_t r0, std::size_t r1) {
        const auto n = static_cast<Eigen::Index>(r1 - r0);
        y.segment(static_cast<Eigen::Index>(r0), n).noalias() = sparse_.middleRows(static_cast<Eigen::Index>(r0), n) * x;
    });
    return y;
}

Eigen::VectorXf Linear::applyByColumns(const Eigen::VectorXf& x) const {
    if (storage_ != Storage::Sparse) throw ModelError("Linear::applyByColumns: not sparse storage");
    std::vector<int> live;  // x's non-zero entries, in column order
    for (int c = 0; c < cols_; ++c)
        if (x[c] != 0.0f) live.push_back(c);
    Eigen::VectorXf y = Eigen::VectorXf::Zero(rows_);
    auto run = [&](std::size_t b0, std::size_t b1) {
        for (std::size_t b = b0; b < b1; ++b) {
            const ColumnBlock& block = columnBlocks_[b];
            const int* outer = block.entries.outerIndexPtr();
            const int* inner = block.entries.innerIndexPtr();
            const float* value = block.entries.valuePtr();
            float* out = y.data() + block.row0;
            // Row r's terms arrive in column order, as the row product adds them.
            for (const int c : live) {
                const float xc = x[c];
                for (int k = outer[c]; k < outer[c + 1]; ++k) out[inner[k]] += value[k] * xc;
            }
        }
    };
    if (nonZeros_ < kParallelMinWeights / 4) run(0, columnBlocks_.size());
    else parallelFor(columnBlocks_.size(), 1, run);
    return y;
}

Eigen::MatrixXf Linear::applyBatch(const Eigen::MatrixXf& x) const {
    if (storage_ != Storage::Sparse && !upper_ && finiteWeights_ && topRowsZero(x, blockCols_))
        return Eigen::MatrixXf::Zero(rows_, x.cols());  // as apply()
    if (upper_) {
        Eigen::MatrixXf y(rows_, x.cols());
        y.topRows(upper_->rows_) = upper_->applyBatch(x);
        y.bottomRows(lower_->rows_) = lower_->applyBatch(x);
        return y;
    }
    if (storage_ == Storage::Sparse) {
        Eigen::MatrixXf y(rows_, x.cols());
        y.noalias() = sparse_ * x;
        return y;
    }
    if (!trimmed()) return applyBatchDense(x);
    // As apply(): the block's product on a copy of x's top rows, +0 below.
    Eigen::MatrixXf y = Eigen::MatrixXf::Zero(rows_, x.cols());
    if (blockRows_ > 0) {
        const Eigen::MatrixXf top = x.topRows(blockCols_);
        y.topRows(blockRows_) = applyBatchDense(top);
    }
    return y;
}

Eigen::MatrixXf Linear::applyBatchDense(const Eigen::MatrixXf& x) const {
    const int rows = blockRows_, cols = blockCols_;
    Eigen::MatrixXf y(rows, x.cols());
    switch (storage_) {
        case Storage::DenseF32: y.noalias() = denseF32() * x; break;
        case Storage::DenseBF16: {
            // Widen a block of rows at a time, then one f32 GEMM per block.
            constexpr std::size_t kBlock = 128;
            parallelFor(static_cast<std::size_t>(rows), kBlock, [&](std::size_t r0, std::size_t r1) {
                RowMajorF32 block;
                widenRows(bf16_, cols, static_cast<int>(r0), static_cast<int>(r1 - r0), block);
                y.middleRows(static_cast<Eigen::Index>(r0), static_cast<Eigen::Index>(r1 - r0)).noalias() = block * x;
            });
            break;
        }
        case Storage::Sparse: throw ModelError("Linear::applyBatchDense: sparse storage");
    }
    return y;
}

}  // namespace qgpu::model
