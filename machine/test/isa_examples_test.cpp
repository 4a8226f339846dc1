// Every instruction of interp's ptx_isa.def that the machine lowers, in the operand shapes of
// its example row, gives the oracle's bits on edge-heavy random registers: adding an
// instruction to both gets this machine-vs-oracle check from its example row alone.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>

#include <fmt/format.h>

#include "machine_test_util.h"
#include "qgpu/interp/error.h"
#include "qgpu/interp/isa.h"

namespace qgpu::machine::test {
namespace {

// Per thread, 256 bytes in and out: %r1..7 (u32) at 0, %rd1..7 at 32, %f1..7 at 96,
// %fd1..7 at 128, %h1..7 at 192, %p1..7 (as u32) at 208.
struct Bank {
  const char* reg;
  const char* type;
  uint32_t offset, bytes;
};
constexpr Bank kBanks[] = {{"%r", "u32", 0, 4},  {"%rd", "u64", 32, 8}, {"%f", "f32", 96, 4},
                           {"%fd", "f64", 128, 8}, {"%h", "b16", 192, 2}};
constexpr uint32_t kPredOffset = 208, kThreadBytes = 256, kThreads = 16;

std::string exampleKernel(const std::string& example) {
  std::string s = ".version 7.6\n.target sm_75\n.address_size 64\n"
                  ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
                  ".reg .pred %p<8>;\n.reg .b16 %h<8>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n"
                  ".reg .f32 %f<8>;\n.reg .f64 %fd<8>;\n.reg .b32 %tid_, %w_;\n.reg .b64 %in_, %out_, %off_;\n"
                  "ld.param.u64 %in_, [in];\nld.param.u64 %out_, [out];\nmov.u32 %tid_, %tid.x;\n"
                  "mul.wide.u32 %off_, %tid_, 256;\nadd.u64 %in_, %in_, %off_;\nadd.u64 %out_, %out_, %off_;\n";
  for (const Bank& b : kBanks)
    for (int i = 1; i < 8; ++i) s += fmt::format("ld.global.{} {}{}, [%in_+{}];\n", b.type, b.reg, i, b.offset + b.bytes * (i - 1));
  for (int i = 1; i < 8; ++i)
    s += fmt::format("ld.global.u32 %w_, [%in_+{}];\nsetp.ne.u32 %p{}, %w_, 0;\n", kPredOffset + 4 * (i - 1), i);
  s += example + ";\n";
  for (const Bank& b : kBanks)
    for (int i = 1; i < 8; ++i) s += fmt::format("st.global.{} [%out_+{}], {}{};\n", b.type, b.offset + b.bytes * (i - 1), b.reg, i);
  for (int i = 1; i < 8; ++i)
    s += fmt::format("selp.u32 %w_, 1, 0, %p{};\nst.global.u32 [%out_+{}], %w_;\n", i, kPredOffset + 4 * (i - 1));
  return s + "ret;\n}\n";
}

uint64_t edgeHeavy(std::mt19937_64& rng) {
  static const uint64_t kEdge[] = {0, 1, 2, 3, 7, 8, 31, 32, 33, 40, 63, 64, 255, 256, 0xffff, 0x10000,
                                   0x7fffffff, 0x80000000, 0xffffffff, 0x3f800000, 0x7f800000, 0x7fc00000,
                                   0x00000001, 0x807fffff, 0x3ff0000000000000, 0x8000000000000000, ~0ull};
  switch (rng() % 4) {
    case 0: return kEdge[rng() % std::size(kEdge)];
    case 1: return rng() % 70;
    case 2: return rng() & 0xffffffffu;
    default: return rng();
  }
}

Launch randomLaunch(std::mt19937_64& rng) {
  Launch l;
  l.grid = {1, 1, 1};
  l.block = {kThreads, 1, 1};
  std::vector<uint8_t> in(kThreads * kThreadBytes);
  for (uint32_t t = 0; t < kThreads; ++t) {
    for (uint32_t off = 0; off < kPredOffset; off += 8) {
      uint64_t v = edgeHeavy(rng);
      std::memcpy(in.data() + t * kThreadBytes + off, &v, 8);
    }
    for (uint32_t i = 0; i < 7; ++i) in[t * kThreadBytes + kPredOffset + 4 * i] = static_cast<uint8_t>(rng() & 1);
  }
  l.buffers = {{"in", in}, {"out", std::vector<uint8_t>(kThreads * kThreadBytes)}};
  l.args = {bufferArg(0), bufferArg(1)};
  return l;
}

TEST(MachineIsaExamples, LoweredExamplesMatchTheOracle) {
  // Rows whose examples touch memory, addresses, the warp or control flow are checked by
  // the corpus and the property tests instead; ldmatrix and mma need a 32-lane warp (the
  // machine has 4 and refuses them), cp.async's example needs shared memory.
  const std::set<Opcode> kSkip = {Opcode::Ld, Opcode::Ldu, Opcode::St, Opcode::Atom, Opcode::Red,
                                  Opcode::Prefetch, Opcode::Cvta, Opcode::Isspacep, Opcode::Shfl,
                                  Opcode::Vote, Opcode::Match, Opcode::Redux, Opcode::Activemask, Opcode::Bar, Opcode::Barrier,
                                  Opcode::Membar, Opcode::Fence, Opcode::Bra, Opcode::Call, Opcode::Ret,
                                  Opcode::Exit, Opcode::Trap, Opcode::Nanosleep, Opcode::Ldmatrix, Opcode::Mma,
                                  Opcode::Cp};
  std::mt19937_64 rng(12);
  size_t compared = 0;
  std::vector<std::string> notLowered;
  for (const IsaRow& row : isaRows()) {
    if (row.opcode == Opcode::None || kSkip.count(row.opcode)) continue;
    SCOPED_TRACE(row.example);
    const std::string ptx = exampleKernel(row.example);
    bool lowered = true;
    for (int round = 0; round < 8 && lowered; ++round) {
      const Launch launch = randomLaunch(rng);
      try {
        BothResult r = runBoth(ptx, "k", launch);
        ASSERT_EQ(r.oracle[1], r.machine[1]) << row.mnemonic << ": machine and oracle differ";
        ASSERT_EQ(r.machine[1], r.replayed[1]) << row.mnemonic << ": the replay differs";
      } catch (const Error& e) {
        if (std::string(e.what()).find("not lowerable to the machine") == std::string::npos) throw;
        lowered = false;
        notLowered.push_back(row.mnemonic);
      }
    }
    compared += lowered;
  }
  EXPECT_GE(compared, 39u) << "examples the machine lowers: " << compared << "; not lowered: "
                           << fmt::format("{}", fmt::join(notLowered, " "));
}

}  // namespace
}  // namespace qgpu::machine::test
