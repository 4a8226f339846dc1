// Generator of random PTX kernels for the property tests: straight-line integer, float,
// predicate, lane-exchange and memory code, optionally wrapped in divergent if/else
// regions and loops with lane-dependent trip counts.
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace qgpu::machine::test {

struct SnippetOptions {
  bool branchy = false;
  int ops = 30;
  int functions = 0;  // .func helpers h0..h{n-1} (h_k may call h_j, j < k), called from the body
};

/// A kernel `prop(.u64 in_int, .u64 in_float, .u64 out)`: each thread reads 8 ints and
/// 8 floats at gid*8 and writes 16 words at gid*16 (ints, float bits, predicates).
/// With functions: helpers `.func (.b32) h_k(.b32, .b32)` whose bodies are random statements
/// (no warp-wide operations) with guarded early returns, some of which leave the return value
/// unstored; calls (some guarded) take registers or immediates and write a register.
std::string randomKernel(std::mt19937_64& rng, const SnippetOptions& options);

}  // namespace qgpu::machine::test
