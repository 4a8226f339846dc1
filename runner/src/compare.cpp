// Bit-exact comparison of two results and its readable account.
#include "qgpu/compare.h"

#include <bit>
#include <cmath>

#include <fmt/format.h>

namespace qgpu {

Comparison compareResults(const RunResult& expected, const RunResult& actual, size_t keep) {
  Comparison c;
  for (const OutputBuffer& e : expected.outputs) {
    const OutputBuffer* a = actual.output(e.name);
    if (!a) {
      c.equal = false;
      c.problems.push_back(fmt::format("output '{}' is missing from the actual result", e.name));
      continue;
    }
    if (a->type != e.type || a->count != e.count) {
      c.equal = false;
      c.problems.push_back(fmt::format("output '{}': expected {} x .{}, got {} x .{}", e.name, e.count,
                                       scalarTypeName(e.type), a->count, scalarTypeName(a->type)));
      continue;
    }
    BufferComparison b;
    b.name = e.name;
    b.type = e.type;
    b.count = e.count;
    for (uint64_t i = 0; i < e.count; ++i) {
      uint64_t x = e.element(i), y = a->element(i);
      if (x == y) continue;
      ++b.differing;
      if (b.first.size() < keep) b.first.push_back({i, x, y});
    }
    if (b.differing) c.equal = false;
    c.buffers.push_back(std::move(b));
  }
  for (const OutputBuffer& a : actual.outputs)
    if (!expected.output(a.name)) {
      c.equal = false;
      c.problems.push_back(fmt::format("output '{}' is not in the expected result", a.name));
    }
  return c;
}

namespace {
// Maps float bits to a monotonic integer line (so ULP distance is a difference).
int64_t orderedBits(ScalarType t, uint64_t bits) {
  if (t == ScalarType::F64) {
    int64_t v = static_cast<int64_t>(bits);
    return v < 0 ? INT64_MIN - v : v;
  }
  if (t == ScalarType::F32) {
    int32_t v = static_cast<int32_t>(static_cast<uint32_t>(bits));
    return v < 0 ? int64_t{INT32_MIN} - v : v;
  }
  int16_t v = static_cast<int16_t>(static_cast<uint16_t>(bits));
  return v < 0 ? int64_t{INT16_MIN} - v : v;
}
}  // namespace

namespace {
template <class F>
std::string classOf(F f) {
  switch (std::fpclassify(f)) {
    case FP_NAN: return "nan";
    case FP_INFINITE: return "inf";
    case FP_SUBNORMAL: return "subnormal";
    case FP_ZERO: return "zero";
    default: return "normal";
  }
}
}  // namespace

std::string floatClass(ScalarType t, uint64_t bits) {
  if (t == ScalarType::F32) return classOf(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  if (t == ScalarType::F64) return classOf(std::bit_cast<double>(bits));
  if (t == ScalarType::F16) {
    uint32_t e = (bits >> 10) & 0x1f, m = bits & 0x3ff;
    if (e == 31) return m ? "nan" : "inf";
    if (e == 0) return m ? "subnormal" : "zero";
    return "normal";
  }
  return "";
}

uint64_t ulpDistance(ScalarType t, uint64_t a, uint64_t b) {
  if (!isFloat(t)) return a > b ? a - b : b - a;
  int64_t x = orderedBits(t, a), y = orderedBits(t, b);
  return x > y ? static_cast<uint64_t>(x - y) : static_cast<uint64_t>(y - x);
}

std::string describeComparison(const Comparison& c, const std::string& expectedLabel,
                               const std::string& actualLabel) {
  if (c.equal) return fmt::format("identical: {} == {}", expectedLabel, actualLabel);
  std::string s = fmt::format("DIVERGENT: {} vs {}", expectedLabel, actualLabel);
  for (const std::string& p : c.problems) s += "\n  " + p;
  for (const BufferComparison& b : c.buffers) {
    if (!b.differing) continue;
    s += fmt::format("\n  {}: {} of {} elements differ", b.name, b.differing, b.count);
    for (const ElementMismatch& m : b.first) {
      s += fmt::format("\n    [{}] expected {} got {}", m.index, formatElement(b.type, m.expected),
                       formatElement(b.type, m.actual));
      if (isFloat(b.type))
        s += fmt::format(" ({} ulp, {} vs {})", ulpDistance(b.type, m.expected, m.actual),
                         floatClass(b.type, m.expected), floatClass(b.type, m.actual));
    }
    if (b.differing > b.first.size()) s += fmt::format("\n    ... {} more", b.differing - b.first.size());
  }
  return s;
}

}  // namespace qgpu
