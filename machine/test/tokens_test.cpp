// Token protocol: the vocabulary stays under 18 bits per token, and every register write
// decodes back to the values that were encoded, whichever form the encoder picks.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "qgpu/interp/error.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::machine {
namespace {

uint64_t mask(uint32_t bytes) { return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1; }

TEST(MachineTokens, VocabularyIsAfterTheTextIdsAndUnder18Bits) {
  EXPECT_LT(bitsPerToken(), 18.0);
  EXPECT_GE(kChunkMore, kTextVocab);
  EXPECT_EQ(ctl(Ctl::Halt), kTextVocab + 196608);
  EXPECT_LT(ctl(Ctl::Branch, 15), kTextVocab + kNumMachineIds);
  std::set<std::string> names;
  for (uint32_t c = 0; c < 12; ++c) names.insert(tokenName(kControl + c));
  EXPECT_EQ(names.size(), 12u);  // every control token has its own meaning
  EXPECT_EQ(tokenName(kTextVocab - 1), "text 248319");
}

TEST(MachineTokens, ValuesUseTheFewestSignExtendingChunks) {
  EXPECT_EQ(valueTokens(3, 4), std::vector<uint32_t>{kChunkEnd + 3});
  EXPECT_EQ(valueTokens(0xffffffffu, 4), std::vector<uint32_t>{kChunkEnd + 0xffff});  // -1
  EXPECT_EQ(valueTokens(0x8000, 4), (std::vector<uint32_t>{kChunkMore + 0x8000, kChunkEnd + 0}));
  EXPECT_EQ(valueTokens(0x42000000, 4), (std::vector<uint32_t>{kChunkMore + 0, kChunkEnd + 0x4200}));
  EXPECT_EQ(valueTokens(~0ull, 8).size(), 1u);
  EXPECT_EQ(valueTokens(0x0123456789abcdefull, 8).size(), 4u);
}

std::array<uint64_t, 4> decodeOne(const std::vector<uint32_t>& t, uint32_t m, uint32_t bytes) {
  TokenReader r(t);
  auto v = r.write(m, bytes);
  EXPECT_TRUE(r.atEnd());
  return v;
}

TEST(MachineTokens, FormsAreChosenByCost) {
  WriteForm f;
  EXPECT_EQ(encodeWrite({5, 5, 5, 5}, 0xf, 4, &f).size(), 1u);
  EXPECT_EQ(f, WriteForm::Uniform);
  EXPECT_EQ(encodeWrite({0, 4, 8, 12}, 0xf, 8, &f).size(), 1u);
  EXPECT_EQ(f, WriteForm::Pack4);
  EXPECT_EQ(encodeWrite({0x100, 0x104, 0x108, 0x10c}, 0xf, 8, &f).size(), 3u);
  EXPECT_EQ(f, WriteForm::Affine);
  EXPECT_EQ(encodeWrite({0x41000000, 0x40000000, 0x3f800000, 0}, 0xf, 4, &f).size(), 5u);
  EXPECT_EQ(f, WriteForm::LanesHigh);
  EXPECT_EQ(encodeWrite({0x12345, 0x2, 0x98765, 0x4}, 0xf, 4, &f).size(), 7u);
  EXPECT_EQ(f, WriteForm::Lanes);
}

TEST(MachineTokens, RandomWritesRoundTrip) {
  std::mt19937_64 rng(11);
  const uint32_t widths[] = {1, 2, 4, 8};
  for (int i = 0; i < 50000; ++i) {
    uint32_t bytes = widths[rng() % 4];
    uint32_t m = 1 + static_cast<uint32_t>(rng() % 15);
    std::array<uint64_t, 4> v{};
    uint64_t base = rng(), stride = rng() % 9;
    for (uint32_t l = 0; l < 4; ++l) {
      switch (i % 5) {
        case 0: v[l] = base; break;                      // uniform
        case 1: v[l] = rng() % 16; break;                // small
        case 2: v[l] = base + stride * l; break;         // affine
        case 3: v[l] = rng() << 16; break;               // low chunk zero
        default: v[l] = rng() >> (rng() % 64); break;    // anything
      }
      v[l] &= mask(bytes);
    }
    std::vector<uint32_t> t = encodeWrite(v, m, bytes);
    ASSERT_FALSE(t.empty());
    auto back = decodeOne(t, m, bytes);
    for (uint32_t l = 0; l < 4; ++l)
      if ((m >> l) & 1) {
        ASSERT_EQ(back[l], v[l]) << "lane " << l << " case " << i;
      }
  }
}

TEST(MachineTokens, MalformedStreamsAreErrors) {
  std::vector<uint32_t> truncated{kChunkMore + 1};
  TokenReader r1(truncated);
  EXPECT_THROW(r1.write(0xf, 4), Error);
  std::vector<uint32_t> tooLong{kChunkMore, kChunkMore, kChunkEnd};
  TokenReader r2(tooLong);
  EXPECT_THROW(r2.write(0xf, 4), Error);  // three chunks for a 32-bit value
  std::vector<uint32_t> inactive{kPack4 + 0x1000};
  TokenReader r3(inactive);
  EXPECT_THROW(r3.write(0x7, 4), Error);  // value for lane 3, which is not active
  std::vector<uint32_t> text{42};
  TokenReader r4(text);
  EXPECT_THROW(r4.write(0xf, 4), Error);
}

}  // namespace
}  // namespace qgpu::machine
