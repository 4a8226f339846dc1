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
  // The classes tile the machine ids in order, without gaps.
  const uint32_t starts[] = {kChunkMore, kChunkLast, kPack4, kTop, kGoto, kBlock, kWarpStart, kWarpResume, kDepth, kControl, kAt, kActive};
  const uint32_t sizes[] = {65536, 65536, 65536, 3 * 16 * kMaxPc, kMaxPc, kMaxBlocks, kMaxWarpsPerBlock, kMaxWarpsPerBlock, 32,
                            kNumControlIds, kMaxPromptSectionItems / kPromptCheckpointItems, 16};
  for (size_t i = 0; i + 1 < std::size(starts); ++i) EXPECT_EQ(starts[i] + sizes[i], starts[i + 1]) << i;
  EXPECT_EQ(kActive + sizes[std::size(sizes) - 1], kTextVocab + kNumMachineIds);
  std::set<std::string> names;
  for (uint32_t c = 0; c < kNumControlIds; ++c) names.insert(tokenName(kControl + c));
  EXPECT_EQ(names.size(), kNumControlIds);  // every control token has its own meaning
  EXPECT_EQ(tokenName(kTextVocab - 1), "text 248319");
}

// Which tokens end a step follows from single tokens (docs/machine.md §3.3): the end classes,
// and for a CHUNK-LAST the value count its prefix names.
TEST(MachineTokens, StepEndsFollowFromTheTokens) {
  for (uint32_t id : {kPack4, topToken(7, 3, 1), topToken(7, 3, 5), kGoto + 9, ctl(Ctl::Done), ctl(Ctl::Fall), ctl(Ctl::Halt)})
    EXPECT_TRUE(endsStepByClass(id)) << tokenName(id);
  for (uint32_t id : {kChunkMore, kChunkLast + 5, kBlock, kWarpStart + 1, kWarpResume, kDepth + 2, ctl(Ctl::Wait),
                      ctl(Ctl::Lanes), ctl(Ctl::Affine), ctl(Ctl::LanesHigh), ctl(Ctl::Atomic), uint32_t{42}})
    EXPECT_FALSE(endsStepByClass(id)) << tokenName(id);
  EXPECT_EQ(prefixValueCount(ctl(Ctl::Affine)), 2u);
  EXPECT_EQ(prefixValueCount(ctl(Ctl::Lanes, 2)), 3u);
  EXPECT_EQ(prefixValueCount(ctl(Ctl::LanesHigh, 3)), 4u);
  EXPECT_EQ(prefixValueCount(ctl(Ctl::Atomic)), UINT32_MAX);
  EXPECT_EQ(prefixValueCount(ctl(Ctl::InnerLanes)), 0u);  // not a prefix
  EXPECT_EQ(prefixValueCount(kChunkLast + 1), 0u);
  EXPECT_EQ(prefixValueCount(ctl(Ctl::Done)), 1u);
  EXPECT_EQ(prefixValueCount(kPack4 + 3), 1u);
}

TEST(MachineTokens, ValuesUseTheFewestSignExtendingChunks) {
  EXPECT_EQ(valueTokens(3, 4), std::vector<uint32_t>{kChunkLast + 3});
  EXPECT_EQ(valueTokens(0xffffffffu, 4), std::vector<uint32_t>{kChunkLast + 0xffff});  // -1
  EXPECT_EQ(valueTokens(0x8000, 4), (std::vector<uint32_t>{kChunkMore + 0x8000, kChunkLast + 0}));
  EXPECT_EQ(valueTokens(0x42000000, 4), (std::vector<uint32_t>{kChunkMore + 0, kChunkLast + 0x4200}));
  EXPECT_EQ(valueTokens(~0ull, 8).size(), 1u);
  EXPECT_EQ(valueTokens(0x0123456789abcdefull, 8).size(), 4u);
}

std::array<uint64_t, 4> decodeOne(const std::vector<uint32_t>& t, uint32_t m, uint32_t bytes, bool inner) {
  TokenReader r(t);
  auto v = r.write(m, bytes, inner);
  EXPECT_TRUE(r.atEnd());
  return v;
}

TEST(MachineTokens, FormsAreChosenByCost) {
  WriteForm f;
  EXPECT_EQ(encodeWrite({5, 5, 5, 5}, 0xf, 4, &f).size(), 1u);
  EXPECT_EQ(f, WriteForm::Uniform);
  EXPECT_EQ(encodeWrite({0, 4, 8, 12}, 0xf, 8, &f).size(), 1u);
  EXPECT_EQ(f, WriteForm::Pack4);
  EXPECT_EQ(encodeWrite({0, 4, 9, 2}, 0xf, 8, &f, true).size(), 5u);  // PACK4 ends a step: not inside an atomic
  EXPECT_EQ(f, WriteForm::Lanes);
  EXPECT_EQ(encodeWrite({0, 4, 17, 2}, 0x7, 8, &f)[0], ctl(Ctl::Lanes, 2));  // LANES names its lane count
  EXPECT_EQ(encodeWrite({0x100, 0x104, 0x108, 0x10c}, 0xf, 8, &f).size(), 3u);
  EXPECT_EQ(f, WriteForm::Affine);
  EXPECT_EQ(encodeWrite({0x41000000, 0x40000000, 0x3f800000, 0}, 0xf, 4, &f).size(), 5u);
  EXPECT_EQ(f, WriteForm::LanesHigh);
  EXPECT_EQ(encodeWrite({0x12345, 0x2, 0x98765, 0x4}, 0xf, 4, &f).size(), 7u);
  EXPECT_EQ(f, WriteForm::Lanes);
  // AFFINE's first two active lanes are at most two apart (the stride is their difference or
  // its half): lanes 1 and 3 may be AFFINE, lanes 0 and 3 alone are not (3^-1 mod 2^64).
  EXPECT_EQ(encodeWrite({0, 0x100, 0, 0x300}, 0xa, 8, &f).size(), 3u);
  EXPECT_EQ(f, WriteForm::Affine);
  EXPECT_EQ(encodeWrite({0x100, 0, 0, 0x400}, 0x9, 8, &f).size(), 3u);
  EXPECT_EQ(f, WriteForm::Lanes);
}

TEST(MachineTokens, RandomWritesRoundTrip) {
  std::mt19937_64 rng(11);
  const uint32_t widths[] = {1, 2, 4, 8};
  for (int i = 0; i < 50000; ++i) {
    const bool inner = i % 7 == 0;
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
    std::vector<uint32_t> t = encodeWrite(v, m, bytes, nullptr, inner);
    ASSERT_FALSE(t.empty());
    // The step-end rule: an outer write's last token ends the step and no earlier one does.
    uint32_t n = 1, seen = 0;
    for (size_t k = 0; k < t.size(); ++k) {
      bool ends = endsStepByClass(t[k]);
      if (uint32_t p = prefixValueCount(t[k])) n = p, seen = 0;
      if (t[k] >= kChunkLast && t[k] < kPack4) ends = ++seen >= n;
      if (!inner) ASSERT_EQ(ends, k + 1 == t.size()) << "case " << i << " token " << k;
      else ASSERT_FALSE(endsStepByClass(t[k])) << "case " << i;
    }
    auto back = decodeOne(t, m, bytes, inner);
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
  std::vector<uint32_t> tooLong{kChunkMore, kChunkMore, kChunkLast};
  TokenReader r2(tooLong);
  EXPECT_THROW(r2.write(0xf, 4), Error);  // three chunks for a 32-bit value
  std::vector<uint32_t> inactive{kPack4 + 0x1000};
  TokenReader r3(inactive);
  EXPECT_THROW(r3.write(0x7, 4), Error);  // value for lane 3, which is not active
  std::vector<uint32_t> innerPack{kPack4 + 1};
  TokenReader r5(innerPack);
  EXPECT_THROW(r5.write(0xf, 4, true), Error);  // PACK4 inside an atomic step
  std::vector<uint32_t> wrongCount{ctl(Ctl::Lanes, 3), kChunkLast + 1, kChunkLast + 2, kChunkLast + 3};
  TokenReader r6(wrongCount);
  EXPECT_THROW(r6.write(0x7, 4), Error);  // LANES 4 for three active lanes
  std::vector<uint32_t> outerInAtomic{ctl(Ctl::Lanes, 3), kChunkLast + 1, kChunkLast + 2, kChunkLast + 3, kChunkLast + 4};
  TokenReader r7(outerInAtomic);
  EXPECT_THROW(r7.write(0xf, 4, true), Error);  // an atomic step's writes use the INNER forms
  std::vector<uint32_t> text{42};
  TokenReader r4(text);
  EXPECT_THROW(r4.write(0xf, 4), Error);
}

}  // namespace
}  // namespace qgpu::machine
