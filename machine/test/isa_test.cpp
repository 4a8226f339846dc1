// Fixed-width encoding: every field survives encode/decode, bad words are rejected.
#include <gtest/gtest.h>

#include <random>

#include "qgpu/interp/error.h"
#include "qgpu/machine/isa.h"

namespace qgpu::machine {
namespace {

TEST(MachineIsa, EncodeDecodeRoundTripsEveryField) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    MInstr in;
    in.op = static_cast<MOp>(rng() % static_cast<uint32_t>(MOp::Count));
    in.ty = static_cast<uint8_t>(rng() % 8);
    in.fl = static_cast<uint8_t>(rng() % 16);
    in.d = static_cast<uint16_t>(rng() % 1024);
    in.a = static_cast<uint16_t>(rng() % 1024);
    in.b = static_cast<uint16_t>(rng() % 1024);
    in.c = static_cast<uint16_t>(rng() % 1024);
    in.g = static_cast<uint16_t>(rng() % 1024);
    EXPECT_EQ(decode(encode(in)), in) << disassemble(in);
  }
}

TEST(MachineIsa, FieldsLandInTheirBits) {
  MInstr in;
  in.op = MOp::Add;
  in.ty = 6;
  in.fl = 0;
  in.d = 3;
  in.a = kConstBase + 1;
  in.b = kSpecialBase;
  in.c = kNoOperand;
  in.g = kNoGuard;
  uint64_t w = encode(in);
  EXPECT_EQ(w & 0x7f, static_cast<uint64_t>(MOp::Add));
  EXPECT_EQ((w >> 7) & 7, 6u);
  EXPECT_EQ((w >> 14) & 0x3ff, 3u);
  EXPECT_EQ((w >> 24) & 0x3ff, kConstBase + 1);
  EXPECT_EQ((w >> 34) & 0x3ff, kSpecialBase);
  EXPECT_EQ(w >> 54, kNoGuard);
  EXPECT_EQ(disassemble(in), "ADD.s32 r3, k1, %tid.x");
}

TEST(MachineIsa, UnknownOpcodeIsRejected) {
  uint64_t w = static_cast<uint64_t>(MOp::Count);
  EXPECT_THROW(decode(w), Error);
  EXPECT_THROW(decode(0x7f), Error);
}

TEST(MachineIsa, OperandNames) {
  EXPECT_EQ(operandName(0), "r0");
  EXPECT_EQ(operandName(kConstBase + 5), "k5");
  EXPECT_EQ(operandName(kSpecialBase + static_cast<uint32_t>(MSpecial::CtaidY)), "%ctaid.y");
  EXPECT_EQ(operandName(kNoOperand), "_");
}

}  // namespace
}  // namespace qgpu::machine
