// The equal-key shortcut of attention reads (attention_read.h): wherever it answers, its
// bits are softmaxRead's; where it cannot know them, it declines.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>

#include "qgpu/model/attention_read.h"

namespace qgpu::model {
namespace {

constexpr int kDim = 16;
constexpr float kScaling = 0.25f;

unsigned draw(std::mt19937& rng, unsigned n) { return static_cast<unsigned>(rng() % n); }

bool sameBits(const Eigen::VectorXf& a, const Eigen::VectorXf& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<std::size_t>(a.size())) == 0;
}

// A cache whose keys come from a small table (dual-rail 0/32 entries: a bit apart scores 256 lower, as in a compiled lookup),
// each copy with its zero entries' signs drawn at random, and whose values are drawn by `value`.
struct Cache {
    Eigen::MatrixXf keys, values;
    EqualKeyGroups groups;

    void push(const Eigen::VectorXf& key, const Eigen::VectorXf& value) {
        const Eigen::Index n = keys.cols();
        keys.conservativeResize(kDim, n + 1);
        values.conservativeResize(kDim, n + 1);
        keys.col(n) = key;
        values.col(n) = value;
        groups.append(keys, values);
    }
};

Eigen::VectorXf railKey(unsigned entry, std::mt19937& rng) {
    Eigen::VectorXf k(kDim);
    for (int b = 0; b < kDim / 2; ++b) {
        const bool bit = (entry >> b) & 1u;
        k[2 * b] = bit ? 32.0f : 0.0f;
        k[2 * b + 1] = bit ? 0.0f : 32.0f;
    }
    for (int i = 0; i < kDim; ++i)
        if (k[i] == 0.0f && rng() % 2) k[i] = -0.0f;  // RoPE's signs on zero rows
    return k;
}

Eigen::VectorXf randomValue(std::mt19937& rng, bool withSignedZeros) {
    Eigen::VectorXf v(kDim);
    for (int i = 0; i < kDim; ++i) {
        const unsigned pick = draw(rng, 4);
        v[i] = pick == 0 ? 0.0f : pick == 1 && withSignedZeros ? -0.0f : std::ldexp(static_cast<float>(draw(rng, 2001)) - 1000.0f, -7);
    }
    return v;
}

// Read `q` both ways; the shortcut's answer, where it gives one, must be the dense bits.
std::optional<Eigen::VectorXf> readBoth(const Cache& c, const Eigen::VectorXf& q, Eigen::VectorXf& dense) {
    dense = softmaxRead(c.keys, c.values, q, kScaling);
    std::optional<Eigen::VectorXf> fast = c.groups.read(c.keys, c.values, q, kScaling);
    if (fast) {
        EXPECT_TRUE(sameBits(*fast, dense)) << "shortcut " << fast->transpose() << "\ndense " << dense.transpose();
    }
    return fast;
}

TEST(AttentionRead, SoftmaxUnderflowsToZeroAndReadsTheSelectedValueExactly) {
    // Scores 256 apart: exp(-256 * k) is +0 in f32, so the read is the selected value itself.
    Cache c;
    std::mt19937 rng(3);
    for (unsigned e = 0; e < 6; ++e) c.push(railKey(e, rng), randomValue(rng, false));
    std::mt19937 rq(4);
    for (unsigned e = 0; e < 6; ++e) {
        const Eigen::VectorXf dense = softmaxRead(c.keys, c.values, railKey(e, rq), kScaling);
        EXPECT_TRUE(sameBits(dense, c.values.col(static_cast<Eigen::Index>(e)))) << "entry " << e;
    }
}

TEST(AttentionRead, ShortcutGivesTheDenseBitsWhereverItAnswers) {
    // A ROM of 40 entries, then 2,000 positions of key 0 (the entries' "no key") with values
    // that are +0, or not; queries of every entry and of key 0. Values carry -0 entries: the
    // read of a selected -0 is +0 (the sum from +0), which the shortcut must reproduce.
    for (const bool zeroValues : {true, false}) {
        Cache c;
        std::mt19937 rng(zeroValues ? 11 : 12);
        for (unsigned e = 1; e <= 40; ++e) c.push(railKey(e, rng), randomValue(rng, true));
        for (int t = 0; t < 2000; ++t)
            c.push(railKey(0, rng), zeroValues ? Eigen::VectorXf::Zero(kDim) : randomValue(rng, true));
        EXPECT_EQ(c.groups.groups(), 41u);
        int answered = 0;
        for (unsigned e = 0; e <= 40; ++e) {
            Eigen::VectorXf dense;
            const auto fast = readBoth(c, railKey(e, rng), dense);
            answered += fast ? 1 : 0;
            // Key 0 selects 2,000 positions: the shortcut answers only when their values are +0.
            if (e == 0) EXPECT_EQ(fast.has_value(), zeroValues);
            else EXPECT_TRUE(fast.has_value()) << "entry " << e;
        }
        EXPECT_EQ(answered, zeroValues ? 41 : 40);
    }
}

TEST(AttentionRead, ShortcutDeclinesWhatItCannotKnow) {
    std::mt19937 rng(21);
    Cache c;
    for (unsigned e = 1; e <= 8; ++e) c.push(railKey(e, rng), randomValue(rng, false));
    for (int t = 0; t < 100; ++t) c.push(railKey(0, rng), Eigen::VectorXf::Zero(kDim));
    Eigen::VectorXf dense;
    ASSERT_TRUE(readBoth(c, railKey(3, rng), dense).has_value());
    // A gap that exp does not underflow: every position weighs in.
    EXPECT_FALSE(readBoth(c, railKey(3, rng) * 0.01f, dense).has_value());
    // Distinct keys with the same top score: a query of one rail (bit 3 clear), which
    // entries 1-7 and key 0 all match.
    Eigen::VectorXf tie = Eigen::VectorXf::Zero(kDim);
    tie[2 * 3 + 1] = 32.0f;
    EXPECT_FALSE(readBoth(c, tie, dense).has_value());
    // A non-finite query.
    Eigen::VectorXf nanQuery = railKey(3, rng);
    nanQuery[0] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(c.groups.read(c.keys, c.values, nanQuery, kScaling).has_value());
    // A second position holding entry 3's key with a non-zero value: two terms.
    c.push(railKey(3, rng), randomValue(rng, false));
    EXPECT_FALSE(readBoth(c, railKey(3, rng), dense).has_value());
    ASSERT_TRUE(readBoth(c, railKey(4, rng), dense).has_value());
    // An Inf value anywhere: 0 x Inf is NaN in the dense sum.
    Eigen::VectorXf inf = Eigen::VectorXf::Zero(kDim);
    inf[5] = std::numeric_limits<float>::infinity();
    c.push(railKey(0, rng), inf);
    EXPECT_FALSE(readBoth(c, railKey(4, rng), dense).has_value());
    EXPECT_TRUE(std::isnan(dense[5]));
}

TEST(AttentionRead, FewPositionsPerKeyReadDenselyAndDistinctKeysStopTheGrouping) {
    std::mt19937 rng(31);
    Cache c;
    for (unsigned e = 1; e <= 8; ++e) c.push(railKey(e, rng), randomValue(rng, false));
    Eigen::VectorXf dense;
    EXPECT_FALSE(readBoth(c, railKey(3, rng), dense).has_value());  // as many groups as positions
    // A text model's cache: every key its own. Grouping stops at 4,096 groups.
    Cache text;
    std::normal_distribution<float> normal;
    for (int t = 0; t < 4200; ++t) {
        Eigen::VectorXf k(kDim);
        for (float& x : k) x = normal(rng);
        text.push(k, randomValue(rng, false));
        if (t == 4000) {
            EXPECT_TRUE(text.groups.tracking());
        }
    }
    EXPECT_FALSE(text.groups.tracking());
    EXPECT_EQ(text.groups.groups(), 0u);
}

TEST(AttentionRead, RandomCachesNeverGiveOtherBits) {
    // Random tables, repetition rates, value kinds and queries (entries, scaled entries, noise):
    // the shortcut must answer often and always with the dense bits.
    std::mt19937 rng(41);
    int answered = 0, asked = 0;
    for (int trial = 0; trial < 60; ++trial) {
        // A table of 1-12 entries (values +0 or not), then 20-320 positions of key 0 (values
        // all +0 in half the trials) among which an entry now and then recurs.
        Cache c;
        const unsigned entries = 1 + draw(rng, 12);
        for (unsigned e = 1; e <= entries; ++e)
            c.push(railKey(e, rng), draw(rng, 3) == 0 ? Eigen::VectorXf::Zero(kDim) : randomValue(rng, true));
        const bool zeroNoise = draw(rng, 2) == 0;
        const int n = 20 + static_cast<int>(draw(rng, 300));
        for (int t = 0; t < n; ++t) {
            const unsigned e = draw(rng, 20) == 0 ? 1 + draw(rng, entries) : 0;
            c.push(railKey(e, rng), e == 0 && zeroNoise ? Eigen::VectorXf::Zero(kDim) : randomValue(rng, true));
        }
        for (int k = 0; k < 20; ++k) {
            Eigen::VectorXf q = railKey(draw(rng, entries + 1), rng);
            if (rng() % 4 == 0) q *= std::ldexp(1.0f, -static_cast<int>(draw(rng, 8)));
            if (rng() % 8 == 0) q[static_cast<Eigen::Index>(draw(rng, kDim))] += 0.5f;
            Eigen::VectorXf dense;
            answered += readBoth(c, q, dense) ? 1 : 0;
            ++asked;
        }
    }
    std::cout << "[ grouped ] " << answered << " of " << asked << " reads answered by the shortcut\n";
    EXPECT_GT(answered, asked / 4);
    EXPECT_LT(answered, asked);
}

}  // namespace
}  // namespace qgpu::model
