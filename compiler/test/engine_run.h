// Test helper of the compiler tests: a sequence of positions (inputs, expected outputs)
// run through a compiled unit in the engine, prefilled at once or token by token — how the
// memory and counter tests put units with state (DeltaNet slots) against their references.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/compiler/emit.h"
#include "qgpu/model/model.h"

namespace qgpu::compiler {

struct Position {
  std::vector<int64_t> inputs;
  std::vector<int64_t> expected;
  std::string describe;
};

/// Appends v's low `bits` bits to `in`, least significant first.
void putBits(std::vector<int64_t>& in, uint64_t v, uint32_t bits);

/// The unit in the engine, with sparse projections at `sparseDensity` (0: dense).
model::Model load(const CompiledUnit& cu, double sparseDensity);

/// One sequence through the engine from an empty state: prefill at once or token by token
/// (`decode`); the decoded outputs of every position.
std::vector<std::vector<int64_t>> run(const CompiledUnit& cu, const model::Model& m, const std::vector<Position>& seq,
                                      bool decode);

}  // namespace qgpu::compiler
