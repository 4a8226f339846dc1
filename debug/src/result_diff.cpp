// Result diffs (`qgpu diff A B`): differing elements per buffer, with their last writers.
#include "qgpu/debug/result_diff.h"

#include <fmt/format.h>

#include "qgpu/compare.h"

namespace qgpu {

namespace {
std::string coords(uint32_t linear, const Dim3& d) {
  return fmt::format("({},{},{})", linear % d.x, (linear / d.x) % d.y, linear / (d.x * d.y));
}
}  // namespace

ResultDiff diffResults(const RunResult& expected, const RunResult& actual, const std::string& expectedLabel,
                       const std::string& actualLabel, size_t first, const AttributedRun* attributed,
                       const Program* program, const LaunchSpec* spec) {
  ResultDiff d;
  d.expectedLabel = expectedLabel;
  d.actualLabel = actualLabel;
  Comparison c = compareResults(expected, actual, first);
  d.equal = c.equal;
  d.problems = c.problems;
  for (const BufferComparison& bc : c.buffers) {
    BufferDiff b;
    b.name = bc.name;
    b.type = bc.type;
    b.count = bc.count;
    b.differing = bc.differing;
    for (const ElementMismatch& m : bc.first) {
      ElementDiff e;
      e.index = m.index;
      e.expected = m.expected;
      e.actual = m.actual;
      e.ulp = ulpDistance(b.type, m.expected, m.actual);
      e.expectedClass = floatClass(b.type, m.expected);
      e.actualClass = floatClass(b.type, m.actual);
      if (attributed && program && spec)
        if (const WriterInfo* w = attributed->writerOf(b.name, m.index))
          e.writer = ElementWriter{*w, coords(w->blockLinear, spec->grid),
                                   coords(w->threadInBlock, spec->block), pcInfo(*program, w->pc)};
      b.first.push_back(std::move(e));
    }
    d.buffers.push_back(std::move(b));
  }
  return d;
}

std::string ResultDiff::verdict() const {
  if (equal) return fmt::format("IDENTICAL: {} == {}", expectedLabel, actualLabel);
  uint64_t elements = 0, total = 0;
  size_t outs = 0;
  std::string firstAt;
  for (const BufferDiff& b : buffers) {
    total += b.count;
    if (!b.differing) continue;
    elements += b.differing;
    ++outs;
    if (firstAt.empty() && !b.first.empty()) {
      const ElementDiff& e = b.first[0];
      firstAt = fmt::format("; first: {}[{}]", b.name, e.index);
      if (e.writer) firstAt += fmt::format(" written at {}", e.writer->where.describe());
    }
  }
  std::string s = fmt::format("DIVERGENT: {} of {} elements differ in {} of {} outputs{}", elements, total, outs,
                              buffers.size(), firstAt);
  if (!problems.empty()) s += fmt::format("; {} structural problem(s): {}", problems.size(), problems[0]);
  return s;
}

std::string formatResultDiff(const ResultDiff& d) {
  std::string s = fmt::format("expected: {}\nactual:   {}\n", d.expectedLabel, d.actualLabel);
  for (const std::string& p : d.problems) s += "problem: " + p + "\n";
  for (const BufferDiff& b : d.buffers) {
    if (!b.differing) {
      s += fmt::format("{} (.{} x {}): identical\n", b.name, scalarTypeName(b.type), b.count);
      continue;
    }
    s += fmt::format("{} (.{} x {}): {} element(s) differ\n", b.name, scalarTypeName(b.type), b.count, b.differing);
    for (const ElementDiff& e : b.first) {
      s += fmt::format("  [{}] expected {}  actual {}", e.index, formatElement(b.type, e.expected),
                       formatElement(b.type, e.actual));
      if (isFloat(b.type)) s += fmt::format("  {} ulp, {} vs {}", e.ulp, e.expectedClass, e.actualClass);
      else s += fmt::format("  |diff| {}", e.ulp);
      s += "\n";
      if (e.writer) {
        s += fmt::format("      written by block {} thread {} [warp {} lane {}] at {}\n", e.writer->block,
                         e.writer->thread, e.writer->info.warp, e.writer->info.lane, e.writer->where.describe());
        if (e.writer->where.srcLine && !e.writer->where.srcText.empty())
          s += fmt::format("      source {}:{}: {}\n", e.writer->where.srcFile, e.writer->where.srcLine,
                           e.writer->where.srcText);
      }
    }
    if (b.differing > b.first.size()) s += fmt::format("  ... {} more (--first)\n", b.differing - b.first.size());
  }
  if (!d.equal && !d.attribution.empty()) s += "writers: " + d.attribution + "\n";
  s += "verdict: " + d.verdict() + "\n";
  return s;
}

nlohmann::json resultDiffToJson(const ResultDiff& d) {
  using nlohmann::json;
  json bufs = json::array();
  for (const BufferDiff& b : d.buffers) {
    json first = json::array();
    for (const ElementDiff& e : b.first) {
      json x = {{"index", e.index},
                {"expected", formatHex(b.type, e.expected)},
                {"actual", formatHex(b.type, e.actual)},
                {"expected_value", formatElement(b.type, e.expected)},
                {"actual_value", formatElement(b.type, e.actual)},
                {"ulp", e.ulp}};
      if (isFloat(b.type)) x["class"] = {e.expectedClass, e.actualClass};
      if (e.writer)
        x["writer"] = {{"pc", e.writer->info.pc},       {"block", e.writer->block},
                       {"thread", e.writer->thread},    {"warp", e.writer->info.warp},
                       {"lane", e.writer->info.lane},   {"instruction", e.writer->where.text},
                       {"ptx_line", e.writer->where.ptxLine},
                       {"source", e.writer->where.srcLine
                                      ? json(fmt::format("{}:{}", e.writer->where.srcFile, e.writer->where.srcLine))
                                      : json(nullptr)}};
      first.push_back(x);
    }
    bufs.push_back({{"name", b.name}, {"type", scalarTypeName(b.type)}, {"count", b.count},
                    {"differing", b.differing}, {"first", first}});
  }
  return {{"format", "qgpu-diff-1"}, {"expected", d.expectedLabel}, {"actual", d.actualLabel},
          {"equal", d.equal},        {"problems", d.problems},      {"buffers", bufs},
          {"attribution", d.attribution}, {"verdict", d.verdict()}};
}

}  // namespace qgpu
