// Bit-exact comparison of two results, with a readable account of the
// differences (first differing elements, decoded values, ULP distance).
#pragma once

#include <string>
#include <vector>

#include "qgpu/result.h"

namespace qgpu {

struct ElementMismatch {
  uint64_t index = 0;
  uint64_t expected = 0, actual = 0;
};

struct BufferComparison {
  std::string name;
  ScalarType type = ScalarType::U32;
  uint64_t count = 0;
  uint64_t differing = 0;
  std::vector<ElementMismatch> first;  // up to `keep` mismatches
};

struct Comparison {
  bool equal = true;
  std::vector<std::string> problems;  // structural: missing buffers, type/count mismatch
  std::vector<BufferComparison> buffers;
};

Comparison compareResults(const RunResult& expected, const RunResult& actual, size_t keep = 8);

/// Distance in units in the last place between two floats of type t (0 for
/// equal bits; both NaN counts as 0 only if the bits are equal).
uint64_t ulpDistance(ScalarType t, uint64_t a, uint64_t b);
/// "nan", "inf", "subnormal", "zero" or "normal" for float types, "" else.
std::string floatClass(ScalarType t, uint64_t bits);

/// Human-readable summary, several lines.
std::string describeComparison(const Comparison& c, const std::string& expectedLabel,
                               const std::string& actualLabel);

}  // namespace qgpu
