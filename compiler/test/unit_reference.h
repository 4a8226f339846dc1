// Test cases for the compiled units: how to build each unit's circuit, and operand
// samples (random and edge values) with the machine's functional units as the expected
// results (machine/src/units.cpp; SHFL's lane selection follows docs/machine.md §1.5).
#pragma once

#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

struct UnitSample {
  std::vector<int64_t> inputs;    // in circuit.inputs() order
  std::vector<int64_t> expected;  // in circuit.outputs() order
  std::string describe;
};

struct UnitCase {
  std::string name;
  std::function<Unit()> build;
  std::function<UnitSample(const Unit&, std::mt19937_64&, int index)> sample;
  // Positions through the engine: sparse prefill (4 lanes each: >= 10^5 lane operations),
  // and the dense prefill / dense and sparse decode set. Big units may take a smaller
  // dense set (a dense decode of a 2048 x 6144 layer stack costs a full weight pass).
  int bigBatch = 25000;
  int smallBatch = 300;
};

std::vector<UnitCase> unitCases();
/// gtest prints a case by its name.
void PrintTo(const UnitCase& c, std::ostream* os);

/// The multiplier's single-op units (MULLO, MULHI, MULWIDE alone; MUL24 lo), beside
/// unitCases' mul32 and mul24hi (the ones the engine runs).
std::vector<UnitCase> multiplierPartCases();

/// Operand values that stress carries, signs and chunk boundaries, or random ones.
uint64_t operand(std::mt19937_64& rng, uint32_t bits, int index);

}  // namespace qgpu::compiler
