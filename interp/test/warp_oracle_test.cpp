// Warp-collective oracle: every form of qgpu::oracle::warpCases() (redux.sync, match.sync)
// runs through the real decoded handler on a 32-lane warp whose lanes are cut into random
// membermask groups (one group, two halves, 4-lane groups, random partitions, singletons),
// with values drawn so that groups often hold equal values (match) and extreme ones
// (redux). The reference works per group, from the definitions: the sum modulo 2^32 of the
// group's values, the minimum/maximum as integers of the type's signedness, the bitwise
// and/or/xor; match.any the lanes of the group with an equal value, match.all the group's
// mask (and p = 1) when every value is equal, else 0. >= 10^6 lane results per form.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "oracle/harness.h"
#include "qgpu/interp/oracle_matrix.h"

namespace qgpu::oracle {
namespace {

// Lane -> group id, and each group's lane mask.
struct Partition {
  uint32_t group[kLanes];
  uint32_t mask[kLanes];  // per group id
};

Partition randomPartition(Gen& g) {
  Partition p{};
  const uint32_t kind = g.below(6);
  for (uint32_t l = 0; l < kLanes; ++l) {
    switch (kind) {
      case 0: p.group[l] = 0; break;                 // the whole warp
      case 1: p.group[l] = l / 16; break;            // halves
      case 2: p.group[l] = l / 4; break;             // 4-lane groups (qwenGPU's warp)
      case 3: p.group[l] = l; break;                 // every lane alone
      case 4: p.group[l] = g.below(3); break;        // three random groups
      default: p.group[l] = g.below(9); break;       // many random groups
    }
  }
  for (uint32_t l = 0; l < kLanes; ++l) p.mask[p.group[l]] |= 1u << l;
  return p;
}

uint64_t value(Gen& g, int bits, const uint64_t* pool) {
  switch (g.below(4)) {
    case 0: return pool[g.below(3)];  // a few shared values: equal members are common
    case 1: return g.below(4);
    default: return g.intBits(bits);
  }
}

std::string testName(const testing::TestParamInfo<std::string>& info) {
  std::string s;
  for (char ch : info.param) s += ch == '.' ? '_' : ch;
  return s;
}

class WarpOracle : public testing::TestWithParam<std::string> {};

TEST_P(WarpOracle, MatchesGroupReference) {
  const std::string form = GetParam();
  const bool isMatch = form.rfind("match", 0) == 0;
  const bool all = form.find(".all.") != std::string::npos;
  const bool wide = form.size() > 3 && form.substr(form.size() - 3) == "b64";
  const bool sgn = form.find(".s32") != std::string::npos;
  std::string op;
  for (const char* o : {"add", "min", "max", "and", "or", "xor"})
    if (form.find(std::string(".") + o + ".") != std::string::npos) op = o;
  const int bits = wide ? 64 : 32;
  const std::string src = wide ? "%rd1" : "%r1";
  const std::string dst = isMatch && all ? "%r4|%p1" : "%r4";
  OneInstr k(form + " " + dst + ", " + src + ", %r2;");
  uint64_t* a = k.lanes(src);
  uint64_t* members = k.lanes("%r2");
  uint64_t* d = k.lanes("%r4");
  uint64_t* p = k.lanes("%p1");
  Gen gen(std::hash<std::string>{}(form));
  const uint64_t n = casesPerOp();
  uint64_t comparisons = 0, mismatches = 0;
  std::string examples;
  while (comparisons < n) {
    const Partition part = randomPartition(gen);
    const uint64_t pool[3] = {gen.intBits(bits), gen.intBits(bits), gen.intBits(bits)};
    for (uint32_t l = 0; l < kLanes; ++l) {
      a[l] = value(gen, bits, pool) & (wide ? ~uint64_t{0} : 0xffffffffu);
      members[l] = part.mask[part.group[l]];
      d[l] = 0xdeadbeef;
      p[l] = 7;
    }
    k.run();
    for (uint32_t l = 0; l < kLanes; ++l) {
      const uint32_t gm = part.mask[part.group[l]];
      std::vector<uint64_t> vals;  // the group's values, in lane order
      for (uint32_t j = 0; j < kLanes; ++j)
        if ((gm >> j) & 1) vals.push_back(a[j]);
      uint64_t want = 0, wantP = 0;
      bool checkP = false;
      if (isMatch) {
        uint32_t eq = 0;
        for (uint32_t j = 0; j < kLanes; ++j)
          if (((gm >> j) & 1) && a[j] == a[l]) eq |= 1u << j;
        const bool same = std::all_of(vals.begin(), vals.end(), [&](uint64_t v) { return v == vals[0]; });
        want = all ? (same ? gm : 0) : eq;
        wantP = same;
        checkP = all;
      } else {
        auto asInt = [&](uint64_t v) { return sgn ? int64_t{static_cast<int32_t>(v)} : static_cast<int64_t>(v); };
        int64_t r = asInt(vals[0]);
        uint64_t sum = 0, andv = ~uint64_t{0}, orv = 0, xorv = 0;
        for (uint64_t v : vals) {
          sum += v;
          andv &= v;
          orv |= v;
          xorv ^= v;
          if (op == "min") r = std::min(r, asInt(v));
          if (op == "max") r = std::max(r, asInt(v));
        }
        want = op == "add" ? sum : op == "and" ? andv : op == "or" ? orv : op == "xor" ? xorv
             : static_cast<uint64_t>(r);
        want &= 0xffffffffu;
      }
      ++comparisons;
      bool ok = d[l] == want;
      if (checkP) ++comparisons, ok = ok && p[l] == wantP;
      if (ok) continue;
      if (++mismatches <= 8) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "  lane %u group mask %#x value %#llx -> want %#llx/%llu got %#llx/%llu\n", l,
                      gm, static_cast<unsigned long long>(a[l]), static_cast<unsigned long long>(want),
                      static_cast<unsigned long long>(wantP), static_cast<unsigned long long>(d[l]),
                      static_cast<unsigned long long>(p[l]));
        examples += buf;
      }
    }
  }
  std::printf("[oracle] %s: %llu comparisons, %llu mismatches\n", form.c_str(),
              static_cast<unsigned long long>(comparisons), static_cast<unsigned long long>(mismatches));
  EXPECT_GE(comparisons, n);
  EXPECT_EQ(mismatches, 0u) << form << ":\n" << examples;
}

INSTANTIATE_TEST_SUITE_P(Numerics, WarpOracle, testing::ValuesIn(warpCases()), testName);

}  // namespace
}  // namespace qgpu::oracle
