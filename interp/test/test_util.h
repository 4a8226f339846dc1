// Helpers for interpreter tests: run PTX text directly, and evaluate one
// instruction snippet on operands loaded from memory (so nothing is folded).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/interp/launch.h"
#include "qgpu/interp/program.h"

namespace qgpu::test {

/// A kernel launch described inline.
struct TestLaunch {
  std::string ptx;
  std::string entry = "k";
  Dim3 grid{1, 1, 1}, block{1, 1, 1};
  uint32_t dynamicShared = 0;
  std::vector<std::vector<uint8_t>> buffers;  // passed first, in order, as u64 params
  std::vector<uint32_t> scalars;              // then u32 scalars
  uint32_t warp = 4;
  uint64_t maxSteps = 10'000'000;
};

/// Runs the launch; returns the final buffers. Throws qgpu::Error.
std::vector<std::vector<uint8_t>> run(const TestLaunch& t);

/// The standard header (.version/.target/.address_size).
std::string header();

/// Evaluates `snippet` with %r1..%r3 / %rd1..%rd3 / %f1..%f3 / %fd1..%fd3 /
/// %rs1..%rs3 holding the operands (low bits of a, b, c), and returns the
/// 64-bit value of %rd4 afterwards. `finish` moves the result into %rd4.
/// Runs at warp widths 4 and 32 and checks they agree.
uint64_t eval(const std::string& snippet, uint64_t a, uint64_t b = 0, uint64_t c = 0);

// Convenience wrappers: the snippet writes %r4 / %f4 / %rd4 / %fd4 / %p1.
uint32_t evalU32(const std::string& snippet, uint64_t a, uint64_t b = 0, uint64_t c = 0);
uint64_t evalU64(const std::string& snippet, uint64_t a, uint64_t b = 0, uint64_t c = 0);
uint32_t evalF32(const std::string& snippet, uint64_t a, uint64_t b = 0, uint64_t c = 0);
uint64_t evalF64(const std::string& snippet, uint64_t a, uint64_t b = 0, uint64_t c = 0);
bool evalPred(const std::string& snippet, uint64_t a, uint64_t b = 0, uint64_t c = 0);

std::vector<uint8_t> bytesOfU32(const std::vector<uint32_t>& v);
std::vector<uint32_t> u32Of(const std::vector<uint8_t>& b);

}  // namespace qgpu::test
