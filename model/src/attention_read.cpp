// One query head's read of a key-value cache: softmaxRead (the engine's definition) and the
// equal-key shortcut (attention_read.h says why it gives the same bits).
#include "qgpu/model/attention_read.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace qgpu::model {

namespace {

// The one scoring function: every position, and every group's first position, goes through it.
float score(const Eigen::Ref<const Eigen::MatrixXf>& keys, Eigen::Index i, const Eigen::VectorXf& q, float scaling) {
    return keys.col(i).dot(q) * scaling;
}

// A float's bits with -0 read as +0: equal for equal reals (NaNs aside, which never share a
// group's shortcut: their scores are not finite).
std::uint32_t zeroSignless(float x) {
    const auto bits = std::bit_cast<std::uint32_t>(x);
    return (bits & 0x7fffffffu) == 0 ? 0u : bits;
}

std::uint64_t keyHash(const Eigen::Ref<const Eigen::MatrixXf>& keys, Eigen::Index i) {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the signless words
    for (Eigen::Index r = 0; r < keys.rows(); ++r) {
        h ^= zeroSignless(keys(r, i));
        h *= 1099511628211ull;
    }
    return h;
}

bool sameKey(const Eigen::Ref<const Eigen::MatrixXf>& keys, Eigen::Index i, Eigen::Index j) {
    for (Eigen::Index r = 0; r < keys.rows(); ++r)
        if (zeroSignless(keys(r, i)) != zeroSignless(keys(r, j))) return false;
    return true;
}

bool allPositiveZero(const Eigen::Ref<const Eigen::MatrixXf>& values, Eigen::Index i) {
    for (Eigen::Index r = 0; r < values.rows(); ++r)
        if (std::bit_cast<std::uint32_t>(values(r, i)) != 0u) return false;
    return true;
}

// Grouping stops once there are this many groups and at least half as many as positions.
constexpr std::size_t kMostGroups = 4096;
// exp's e_i sum to the group's count exactly while it is below 2^24.
constexpr int kExactCount = 1 << 24;

}  // namespace

Eigen::VectorXf softmaxRead(const Eigen::Ref<const Eigen::MatrixXf>& keys, const Eigen::Ref<const Eigen::MatrixXf>& values,
                            const Eigen::VectorXf& q, float scaling) {
    const Eigen::Index n = keys.cols();
    Eigen::VectorXf e(n);
    for (Eigen::Index i = 0; i < n; ++i) e[i] = score(keys, i, q, scaling);
    float top = e[0];
    for (Eigen::Index i = 1; i < n; ++i)
        if (e[i] > top) top = e[i];
    float sum = 0.0f;
    for (Eigen::Index i = 0; i < n; ++i) {
        e[i] = std::exp(e[i] - top);
        sum += e[i];
    }
    Eigen::VectorXf a = Eigen::VectorXf::Zero(values.rows());
    for (Eigen::Index i = 0; i < n; ++i) a += (e[i] / sum) * values.col(i);
    return a;
}

void EqualKeyGroups::append(const Eigen::Ref<const Eigen::MatrixXf>& keys, const Eigen::Ref<const Eigen::MatrixXf>& values) {
    const Eigen::Index at = keys.cols() - 1;
    positions_ = static_cast<int>(keys.cols());
    valuesFinite_ = valuesFinite_ && values.col(at).allFinite();
    if (!tracking_) return;
    std::vector<int>& bucket = byHash_[keyHash(keys, at)];
    int group = -1;
    for (int g : bucket)
        if (sameKey(keys, first_[static_cast<std::size_t>(g)], at)) group = g;
    const bool zero = allPositiveZero(values, at);
    if (group >= 0) {
        ++count_[static_cast<std::size_t>(group)];
        valuesPositiveZero_[static_cast<std::size_t>(group)] &= static_cast<char>(zero);
        return;
    }
    bucket.push_back(static_cast<int>(first_.size()));
    first_.push_back(static_cast<int>(at));
    count_.push_back(1);
    valuesPositiveZero_.push_back(static_cast<char>(zero));
    if (first_.size() >= kMostGroups && 2 * first_.size() >= static_cast<std::size_t>(positions_)) {
        tracking_ = false;  // a text model's cache: every key its own
        byHash_ = {};
        first_ = {};
        count_ = {};
        valuesPositiveZero_ = {};
    }
}

std::optional<Eigen::VectorXf> EqualKeyGroups::read(const Eigen::Ref<const Eigen::MatrixXf>& keys,
                                                    const Eigen::Ref<const Eigen::MatrixXf>& values,
                                                    const Eigen::VectorXf& q, float scaling) const {
    if (!tracking_ || !valuesFinite_ || positions_ != keys.cols() || 2 * first_.size() > static_cast<std::size_t>(positions_))
        return std::nullopt;
    std::vector<float> s(first_.size());
    for (std::size_t g = 0; g < first_.size(); ++g) {
        s[g] = score(keys, first_[g], q, scaling);
        if (!std::isfinite(s[g])) return std::nullopt;
    }
    float top = s[0];
    for (float x : s)
        if (x > top) top = x;
    int hit = -1;
    for (std::size_t g = 0; g < s.size(); ++g) {
        if (std::exp(s[g] - top) == 0.0f) continue;
        if (hit >= 0) return std::nullopt;  // two groups share the weight
        hit = static_cast<int>(g);
    }
    const auto h = static_cast<std::size_t>(hit);
    if (count_[h] >= kExactCount) return std::nullopt;
    if (valuesPositiveZero_[h]) return Eigen::VectorXf::Zero(values.rows());
    if (count_[h] != 1) return std::nullopt;
    // e = 1, sum = 1: the term is the value itself; a zero entry sums to +0 from +0.
    Eigen::VectorXf a = values.col(first_[h]);
    for (Eigen::Index r = 0; r < a.size(); ++r)
        if (a[r] == 0.0f) a[r] = 0.0f;
    return a;
}

}  // namespace qgpu::model
