// First divergence between two traces of the same launch. Events are
// matched per thread (linear block, thread in block) and per-thread sequence
// number, so traces at different warp widths line up; "first" is the first
// mismatching event in trace A's execution order. Then: how many threads
// diverge at all, and which output elements end with different values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qgpu/debug/trace_reader.h"

namespace qgpu {

struct TraceDivergence {
  enum class Kind { Register, Memory, ControlFlow, Missing, Extra };
  Kind kind = Kind::Register;
  uint32_t thread = 0, seq = 0;
  std::optional<TraceEvent> a, b;  // the two events (one absent for Missing/Extra)
  std::string reg;                 // Register: the destination that differs
  uint64_t aValue = 0, bValue = 0;
  PcInfo where;                    // of the event in A (B if A has none)
};

struct AffectedElement {
  std::string buffer, type;
  uint64_t index = 0;
  std::optional<uint64_t> a, b;   // final bits; nullopt: never written in that trace
  std::optional<TraceEvent> bWriter;  // the event of B that wrote the final value
};

struct TraceDiff {
  std::vector<std::string> problems;  // traces not comparable (different launches)
  bool writesOnly = false;            // compared memory writes only
  std::optional<TraceDivergence> first;
  uint32_t divergentThreads = 0;
  std::vector<AffectedElement> affected;  // output elements only
  bool identical() const { return problems.empty() && !first && affected.empty(); }
};

const char* divergenceKindName(TraceDivergence::Kind k);

/// `writesOnly` compares only the global-memory writes of each thread (for
/// traces of different PTX, e.g. nvcc vs clang); it is implied when the
/// traces' flavours or code tables differ.
TraceDiff diffTraces(const Trace& a, const Trace& b, bool writesOnly = false);

std::string formatTraceDiff(const TraceDiff& d, const Trace& a, const Trace& b, size_t maxAffected = 16);
nlohmann::json traceDiffToJson(const TraceDiff& d, const Trace& a, const Trace& b);

}  // namespace qgpu
