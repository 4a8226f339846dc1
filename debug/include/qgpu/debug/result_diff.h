// `qgpu diff A B` on results: per output buffer the number of differing
// elements, the first N with bits, decoded values, ULP distance and float
// class, and (when an interpreter run can be attributed) the block, thread
// and instruction that last wrote each of them; plus a one-line verdict.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qgpu/debug/source_view.h"
#include "qgpu/debug/tracing.h"
#include "qgpu/result.h"

namespace qgpu {

struct ElementWriter {
  WriterInfo info;
  std::string block, thread;  // "(1,0,0)"
  PcInfo where;
};

struct ElementDiff {
  uint64_t index = 0, expected = 0, actual = 0;
  uint64_t ulp = 0;
  std::string expectedClass, actualClass;  // float types only
  std::optional<ElementWriter> writer;
};

struct BufferDiff {
  std::string name;
  ScalarType type = ScalarType::U32;
  uint64_t count = 0, differing = 0;
  std::vector<ElementDiff> first;
};

struct ResultDiff {
  std::string expectedLabel, actualLabel;
  bool equal = true;
  std::vector<std::string> problems;  // structural differences
  std::vector<BufferDiff> buffers;
  std::string attribution;  // which run the writers come from, or why there are none

  /// "IDENTICAL: ..." or "DIVERGENT: 3 of 16 elements differ in 1 of 1 outputs (first: y[5], ...)"
  std::string verdict() const;
};

/// `attributed` (optional) supplies writers; `program` its instructions.
ResultDiff diffResults(const RunResult& expected, const RunResult& actual, const std::string& expectedLabel,
                       const std::string& actualLabel, size_t first, const AttributedRun* attributed,
                       const Program* program, const LaunchSpec* spec);

std::string formatResultDiff(const ResultDiff& d);
nlohmann::json resultDiffToJson(const ResultDiff& d);

}  // namespace qgpu
