// One query head's read of a key-value cache: the engine's softmax attention, defined position
// by position, and the equal-key shortcut that gives its bits while scoring each distinct key
// once (a compiled machine's lookups: a ROM of a few hundred keys among thousands of positions
// that all hold the key 0).
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace qgpu::model {

// keys and values: hd x n (position i in column i); q: hd.
//   s_i = dot(key_i, q) * scaling       (one function for every position: equal keys, equal s)
//   e_i = exp(s_i - max_j s_j)          (std::exp: underflows to exactly +0, as torch's does)
//   a   = sum_i (e_i / sum_j e_j) v_i   (from +0, in position order)
Eigen::VectorXf softmaxRead(const Eigen::Ref<const Eigen::MatrixXf>& keys, const Eigen::Ref<const Eigen::MatrixXf>& values,
                            const Eigen::VectorXf& q, float scaling);

// The positions of one key-value head grouped by key, the key's bits compared with -0 taken
// as +0. Two positions whose keys differ only in the signs of zeros score the same real
// number (the same operations on equal reals), so the same e_i. When exactly one group has a
// non-zero e (the maximum's, whose e is exp(0) = 1) and either it is one position or every
// value entry of its positions is +0, softmaxRead's sum has one term that can be non-zero:
// the shortcut reads it from that position and gives softmaxRead's bits (a zero entry as +0,
// the sum's from +0), provided every cached value is finite (0 x Inf would be NaN).
// Anything else — a tie between groups, a score gap under exp's underflow, a non-finite score
// — returns nullopt and the caller reads densely.
class EqualKeyGroups {
public:
    // Position n = keys.cols() - 1 was just appended (its key and value are the last columns).
    void append(const Eigen::Ref<const Eigen::MatrixXf>& keys, const Eigen::Ref<const Eigen::MatrixXf>& values);

    // softmaxRead(keys, values, q, scaling), or nullopt where the shortcut does not apply or
    // scoring the groups would not be cheaper than scoring every position.
    std::optional<Eigen::VectorXf> read(const Eigen::Ref<const Eigen::MatrixXf>& keys,
                                        const Eigen::Ref<const Eigen::MatrixXf>& values, const Eigen::VectorXf& q,
                                        float scaling) const;

    std::size_t groups() const { return first_.size(); }
    // Grouping stops (for good) once keys are mostly distinct: a text model's cache.
    bool tracking() const { return tracking_; }

private:
    bool tracking_ = true;
    bool valuesFinite_ = true;
    int positions_ = 0;
    std::unordered_map<std::uint64_t, std::vector<int>> byHash_;  // key hash -> groups
    std::vector<int> first_;                // group -> its first position
    std::vector<int> count_;                // group -> positions
    std::vector<char> valuesPositiveZero_;  // group -> every value entry of every position is +0
};

}  // namespace qgpu::model
