// Numeric-oracle harness: decodes a one-instruction PTX kernel with the real
// front end and calls the decoded handlers directly on an ExecContext of 32
// lanes, so the tests exercise exactly the code the executor runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exec_context.h"
#include "qgpu/interp/program.h"

namespace qgpu::oracle {

constexpr uint32_t kLanes = 32;

/// Registers: %h0..%h9 (.b16), %r0..%r9 (.b32), %rd0..%rd9 (.b64),
/// %p1..%p2 (.pred). `body` is one or more instructions.
class OneInstr {
 public:
  explicit OneInstr(const std::string& body);
  /// Slot of a named register (e.g. "%r1").
  uint32_t slot(const std::string& reg) const;
  uint64_t* lanes(const std::string& reg) { return ctx_.reg(slot(reg)); }
  /// Runs every decoded instruction up to the final ret on all 32 lanes.
  void run();
  const Instr& first() const { return program_.code[0]; }

 private:
  Program program_;
  std::vector<uint64_t> regs_;
  ExecContext ctx_;
  size_t count_ = 0;
};

/// Sample generator with special values, random bit patterns and the
/// structured classes that find rounding bugs.
class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_{seed} {}
  uint64_t bits(int width);          // any pattern of the format
  uint64_t floatBits(int width);     // f16/f32/f64 bit patterns, mixed classes
  uint64_t related(int width, uint64_t a);  // a value at or near a's rounding boundary
  uint64_t nearInteger(int width);   // float near an integer (cvt to int)
  uint64_t intBits(int width);       // integer patterns incl. edges
  uint64_t u64() { return rng_(); }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  const std::vector<uint64_t>& specials(int width);

 private:
  struct SplitMix64 {  // fast, and plenty for sampling
    uint64_t state;
    uint64_t operator()() {
      uint64_t z = (state += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      return z ^ (z >> 31);
    }
  };
  SplitMix64 rng_;
};

/// Inputs per case: 10^6 by default (QGPU_ORACLE_N overrides, for development).
uint64_t casesPerOp();

}  // namespace qgpu::oracle
