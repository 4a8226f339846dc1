// Property tests: random straight-line and branchy PTX kernels (ptx_snippets.cpp) give the
// same memory on the interpreter and on the machine, and the replay decoder reproduces the
// executor's memory from the token stream alone.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "machine_test_util.h"
#include "ptx_snippets.h"
#include "qgpu/interp/address_space.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::machine::test {
namespace {

uint32_t randomInt(std::mt19937_64& rng) {
  static const uint32_t kEdge[] = {0, 1, 2, 3, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0xffff, 0x10000, 100};
  switch (rng() % 3) {
    case 0: return kEdge[rng() % std::size(kEdge)];
    case 1: return static_cast<uint32_t>(rng() % 64);
    default: return static_cast<uint32_t>(rng());
  }
}

uint32_t randomFloatBits(std::mt19937_64& rng) {
  static const uint32_t kEdge[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
                                   0x7fc00000, 0x7f800001, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff,
                                   0x4b000000, 0x3f000000, 0x4f000000, 0xcf000000};
  switch (rng() % 4) {
    case 0: return kEdge[rng() % std::size(kEdge)];
    case 1: return std::bit_cast<uint32_t>(static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 8.0f);
    default: {
      uint32_t exp = 100 + static_cast<uint32_t>(rng() % 60);
      return static_cast<uint32_t>((rng() & 0x807fffffu) | (exp << 23));
    }
  }
}

Launch randomLaunch(std::mt19937_64& rng, uint32_t threads, uint32_t blocks) {
  Launch l;
  l.grid = {blocks, 1, 1};
  l.block = {threads, 1, 1};
  uint32_t total = threads * blocks;
  LaunchBuffer ints{"in_int", std::vector<uint8_t>(total * 32)};
  LaunchBuffer floats{"in_float", std::vector<uint8_t>(total * 32)};
  for (size_t i = 0; i < total * 8; ++i) {
    uint32_t a = randomInt(rng), b = randomFloatBits(rng);
    std::memcpy(ints.data.data() + 4 * i, &a, 4);
    std::memcpy(floats.data.data() + 4 * i, &b, 4);
  }
  l.buffers = {ints, floats, {"out", std::vector<uint8_t>(total * 64)}};
  for (uint32_t i = 0; i < 3; ++i) {
    LaunchArg a;
    a.kind = LaunchArg::Kind::Buffer;
    a.buffer = i;
    l.args.push_back(a);
  }
  return l;
}

void checkMany(bool branchy, uint64_t seed, int count, int functions = 0) {
  std::mt19937_64 rng(seed);
  uint64_t tokens = 0, steps = 0;
  for (int i = 0; i < count; ++i) {
    SnippetOptions o;
    o.branchy = branchy;
    o.functions = functions;
    o.ops = 10 + static_cast<int>(rng() % (functions ? 20 : 40));  // each call inlines a helper
    std::string ptx = randomKernel(rng, o);
    uint32_t threads = rng() % 2 ? 4 : 8, blocks = 1 + static_cast<uint32_t>(rng() % 2);
    Launch launch = randomLaunch(rng, threads, blocks);
    BothResult r;
    try {
      r = runBoth(ptx, "prop", launch);
    } catch (const std::exception& e) {
      FAIL() << "case " << i << ": " << e.what() << "\n" << ptx;
    }
    ASSERT_EQ(r.machine, r.replayed) << "case " << i << ": the replay decoder disagrees with the executor";
    for (size_t b = 0; b < r.oracle.size(); ++b) {
      if (r.oracle[b] == r.machine[b]) continue;
      size_t k = 0;
      while (k + 4 <= r.oracle[b].size() && std::memcmp(&r.oracle[b][k], &r.machine[b][k], 4) == 0) k += 4;
      uint32_t x = 0, y = 0;
      std::memcpy(&x, &r.oracle[b][k], 4);
      std::memcpy(&y, &r.machine[b][k], 4);
      FAIL() << "case " << i << ": buffer " << b << " word " << k / 4 << " (thread " << k / 64 << ", slot "
             << (k % 64) / 4 << "): interp " << std::hex << x << ", machine " << y << std::dec << "\n" << ptx;
    }
    tokens += r.trace.tokens.size();
    steps += r.trace.steps;
  }
  std::cout << "[ property ] " << count << (branchy ? " branchy" : " straight-line")
            << (functions ? " kernels with calls: " : " kernels: ") << steps
            << " machine steps, " << tokens << " generated tokens\n";
}

TEST(MachineProperty, StraightLineSnippetsMatchTheInterpreter) { checkMany(false, 1234, 300); }
TEST(MachineProperty, BranchySnippetsMatchTheInterpreter) { checkMany(true, 5678, 300); }
TEST(MachineProperty, SnippetsWithCallsMatchTheInterpreter) { checkMany(true, 91011, 200, 3); }

}  // namespace
}  // namespace qgpu::machine::test
