// The first divergence between two traces of one launch, matched per thread.
#include "qgpu/debug/trace_diff.h"

#include <cstring>
#include <map>

#include <fmt/format.h>

#include "qgpu/result.h"

namespace qgpu {

const char* divergenceKindName(TraceDivergence::Kind k) {
  switch (k) {
    case TraceDivergence::Kind::Register: return "register";
    case TraceDivergence::Kind::Memory: return "memory";
    case TraceDivergence::Kind::ControlFlow: return "control-flow";
    case TraceDivergence::Kind::Missing: return "missing";
    case TraceDivergence::Kind::Extra: return "extra";
  }
  return "?";
}

namespace {

bool sameCode(const Trace& a, const Trace& b) {
  if (a.code.size() != b.code.size()) return false;
  for (size_t i = 0; i < a.code.size(); ++i)
    if (a.code[i].text != b.code[i].text) return false;
  return true;
}

// Compares two events of one thread; fills d and returns true on a mismatch.
bool differ(const TraceEvent& x, const TraceEvent& y, bool writesOnly, TraceDivergence& d) {
  if (!writesOnly) {
    if (x.pc != y.pc) {
      d.kind = TraceDivergence::Kind::ControlFlow;
      return true;
    }
    for (size_t i = 0; i < x.regs.size(); ++i) {
      bool same = i < y.regs.size() && y.regs[i] == x.regs[i];
      if (!same) {
        d.kind = TraceDivergence::Kind::Register;
        d.reg = x.regs[i].first;
        d.aValue = x.regs[i].second;
        d.bValue = i < y.regs.size() ? y.regs[i].second : 0;
        return true;
      }
    }
  }
  if (x.write != y.write) {
    d.kind = TraceDivergence::Kind::Memory;
    return true;
  }
  return false;
}

// Final bits of every written element of every output buffer, with the
// event that wrote its last byte.
struct FinalElement {
  std::vector<int> byteSet;
  std::vector<uint8_t> bytes;
  const TraceEvent* writer = nullptr;
};
using Finals = std::map<std::pair<std::string, uint64_t>, FinalElement>;

Finals finalOutputs(const Trace& t) {
  Finals out;
  for (const TraceEvent& e : t.events) {
    if (!e.write || e.write->space != "global") continue;
    for (const TraceBufferInfo& b : t.buffers) {
      auto type = parseScalarType(b.type);
      if (!b.output || !type) continue;
      uint32_t eb = scalarTypeBytes(*type);
      uint64_t end = b.address + b.count * eb;
      if (e.write->address + e.write->size <= b.address || e.write->address >= end) continue;
      for (uint32_t i = 0; i < e.write->size; ++i) {
        uint64_t addr = e.write->address + i;
        if (addr < b.address || addr >= end) continue;
        uint64_t element = (addr - b.address) / eb;
        FinalElement& f = out[{b.name, element}];
        if (f.bytes.empty()) f.bytes.assign(eb, 0), f.byteSet.assign(eb, 0);
        f.bytes[(addr - b.address) % eb] = e.write->bytes[i];
        f.byteSet[(addr - b.address) % eb] = 1;
        f.writer = &e;
      }
    }
  }
  return out;
}

uint64_t bitsOf(const FinalElement& f) {
  uint64_t v = 0;
  std::memcpy(&v, f.bytes.data(), std::min<size_t>(8, f.bytes.size()));
  return v;
}

// Register values decoded by the PTX naming convention nvcc and clang use.
std::string regText(const std::string& name, uint64_t v) {
  auto is = [&](const char* prefix) {
    size_t n = std::strlen(prefix);
    return name.compare(0, n, prefix) == 0 && name.size() > n && std::isdigit(static_cast<unsigned char>(name[n]));
  };
  if (is("%fd")) return formatElement(ScalarType::F64, v);
  if (is("%f")) return formatElement(ScalarType::F32, v);
  if (is("%rd")) return formatElement(ScalarType::S64, v);
  if (is("%r")) return formatElement(ScalarType::S32, v);
  if (is("%rs")) return formatElement(ScalarType::S16, v);
  return fmt::format("{:#x}", v);
}

std::string writeText(const std::optional<TraceWrite>& w) {
  if (!w) return "no memory write";
  std::string value = "0x";
  for (size_t i = w->bytes.size(); i-- > 0;) value += fmt::format("{:02x}", w->bytes[i]);
  return fmt::format("{} {} bytes at {:#x} = {}", w->space, w->size, w->address, value);
}

std::string eventPlace(const Trace& t, const TraceEvent& e) {
  return fmt::format("warp {} lane {} (W={}), dynamic instruction #{} of the thread", e.warp, e.lane,
                     t.warpWidth, e.seq);
}

}  // namespace

TraceDiff diffTraces(const Trace& a, const Trace& b, bool writesOnly) {
  TraceDiff d;
  if (a.kernel != b.kernel || a.entry != b.entry)
    d.problems.push_back(fmt::format("different kernels: {} ({}) vs {} ({})", a.kernel, a.entry, b.kernel, b.entry));
  if (a.grid.x != b.grid.x || a.grid.y != b.grid.y || a.grid.z != b.grid.z || a.block.x != b.block.x ||
      a.block.y != b.block.y || a.block.z != b.block.z)
    d.problems.push_back("different launch geometry (grid/block): threads cannot be matched");
  if (!d.problems.empty()) return d;
  d.writesOnly = writesOnly || a.flavour != b.flavour || !sameCode(a, b);

  static const std::vector<uint32_t> none;
  auto streamOf = [](const Trace& t, uint32_t thread) -> const std::vector<uint32_t>& {
    auto it = t.threads.find(thread);
    return it == t.threads.end() ? none : it->second;
  };
  // With writesOnly, each thread's stream is its global-memory writes only:
  // local, param and shared layouts are the compiler's choice.
  auto filtered = [&](const Trace& t, uint32_t thread) {
    std::vector<uint32_t> s;
    for (uint32_t i : streamOf(t, thread))
      if (!d.writesOnly || (t.events[i].write && t.events[i].write->space == "global")) s.push_back(i);
    return s;
  };
  std::map<uint32_t, std::vector<uint32_t>> sa, sb;
  for (const auto& [thread, _] : a.threads) sa[thread] = filtered(a, thread);
  for (const auto& [thread, _] : b.threads) sb[thread] = filtered(b, thread);

  // Per thread: the first mismatching position (or none).
  std::map<uint32_t, TraceDivergence> perThread;
  auto check = [&](uint32_t thread) {
    if (perThread.count(thread)) return;
    const auto& x = sa[thread];
    const auto& y = sb[thread];
    for (size_t k = 0; k < std::max(x.size(), y.size()); ++k) {
      TraceDivergence dv;
      dv.thread = thread;
      dv.seq = static_cast<uint32_t>(k);
      if (k < x.size()) dv.a = a.events[x[k]];
      if (k < y.size()) dv.b = b.events[y[k]];
      if (!dv.a) dv.kind = TraceDivergence::Kind::Extra;
      else if (!dv.b) dv.kind = TraceDivergence::Kind::Missing;
      else if (!differ(*dv.a, *dv.b, d.writesOnly, dv)) continue;
      dv.where = dv.a ? a.pcInfo(dv.a->pc) : b.pcInfo(dv.b->pc);
      perThread[thread] = dv;
      return;
    }
  };
  for (const auto& [thread, _] : sa) check(thread);
  for (const auto& [thread, _] : sb) check(thread);
  d.divergentThreads = static_cast<uint32_t>(perThread.size());

  // The first divergence in A's execution order; a thread whose stream A
  // ends before its divergence (Extra) counts at the end of A.
  uint64_t bestStep = UINT64_MAX;
  for (const auto& [thread, dv] : perThread) {
    uint64_t step = dv.a ? dv.a->step : UINT64_MAX - 1;
    if (!d.first || step < bestStep || (step == bestStep && dv.thread < d.first->thread)) {
      d.first = dv;
      bestStep = step;
    }
  }

  Finals fa = finalOutputs(a), fb = finalOutputs(b);
  std::map<std::pair<std::string, uint64_t>, int> keys;
  for (const auto& [k, _] : fa) keys[k] = 1;
  for (const auto& [k, _] : fb) keys[k] = 1;
  for (const auto& [k, _] : keys) {
    auto ia = fa.find(k), ib = fb.find(k);
    bool same = ia != fa.end() && ib != fb.end() && ia->second.bytes == ib->second.bytes &&
                ia->second.byteSet == ib->second.byteSet;
    if (same) continue;
    AffectedElement ae;
    ae.buffer = k.first;
    ae.index = k.second;
    for (const TraceBufferInfo& buf : b.buffers)
      if (buf.name == k.first) ae.type = buf.type;
    if (ia != fa.end()) ae.a = bitsOf(ia->second);
    if (ib != fb.end()) {
      ae.b = bitsOf(ib->second);
      ae.bWriter = *ib->second.writer;
    }
    d.affected.push_back(std::move(ae));
  }
  return d;
}

std::string formatTraceDiff(const TraceDiff& d, const Trace& a, const Trace& b, size_t maxAffected) {
  std::string s;
  std::string la = fmt::format("A = {} [{}, W={}{}]", a.path, a.flavour, a.warpWidth,
                               a.inject.empty() ? "" : ", inject " + a.inject);
  std::string lb = fmt::format("B = {} [{}, W={}{}]", b.path, b.flavour, b.warpWidth,
                               b.inject.empty() ? "" : ", inject " + b.inject);
  s += la + "\n" + lb + "\n";
  if (!d.problems.empty()) {
    for (const std::string& p : d.problems) s += "not comparable: " + p + "\n";
    return s;
  }
  if (!a.error.empty()) s += "note: run A failed: " + a.error + "\n";
  if (!b.error.empty()) s += "note: run B failed: " + b.error + "\n";
  if (a.truncated || b.truncated) s += "note: a trace is truncated; events past its end are not compared\n";
  if (d.writesOnly) s += "note: comparing the global-memory writes of each thread only (different PTX or --writes-only)\n";
  if (d.identical()) {
    s += fmt::format("verdict: IDENTICAL ({} events, {} threads)\n", a.events.size(), a.threads.size());
    return s;
  }
  if (d.first) {
    const TraceDivergence& f = *d.first;
    const Trace& t = f.a ? a : b;
    s += fmt::format("first divergence ({}): {}\n", divergenceKindName(f.kind), t.threadName(f.thread));
    if (f.a) s += fmt::format("  in A: {}\n", eventPlace(a, *f.a));
    if (f.b) s += fmt::format("  in B: {}\n", eventPlace(b, *f.b));
    s += fmt::format("  instruction: {}\n", f.where.describe());
    if (f.where.srcLine)
      s += fmt::format("  source: {}:{}: {}\n", f.where.srcFile, f.where.srcLine, f.where.srcText);
    switch (f.kind) {
      case TraceDivergence::Kind::Register:
        s += fmt::format("  register {}: A = {}, B = {} (xor {:#x})\n", f.reg, regText(f.reg, f.aValue),
                         regText(f.reg, f.bValue), f.aValue ^ f.bValue);
        break;
      case TraceDivergence::Kind::Memory:
        s += fmt::format("  memory: A {}; B {}\n", writeText(f.a->write), writeText(f.b->write));
        break;
      case TraceDivergence::Kind::ControlFlow:
        s += fmt::format("  A executes pc {}, B executes {}\n", f.a->pc, b.pcInfo(f.b->pc).describe());
        break;
      case TraceDivergence::Kind::Missing:
        s += "  B's thread stops here (A continues)\n";
        break;
      case TraceDivergence::Kind::Extra:
        s += "  B's thread executes more instructions than A's\n";
        break;
    }
  }
  s += fmt::format("{} thread(s) diverge in total\n", d.divergentThreads);
  if (d.affected.empty()) {
    s += "downstream outputs: none differ (the divergence does not reach an output)\n";
  } else {
    s += fmt::format("downstream outputs: {} element(s) differ\n", d.affected.size());
    for (size_t i = 0; i < d.affected.size() && i < maxAffected; ++i) {
      const AffectedElement& e = d.affected[i];
      auto type = parseScalarType(e.type).value_or(ScalarType::U32);
      s += fmt::format("  {}[{}]: A {} B {}", e.buffer, e.index,
                       e.a ? formatElement(type, *e.a) : "(not written)",
                       e.b ? formatElement(type, *e.b) : "(not written)");
      if (e.bWriter)
        s += fmt::format(", written in B by {} at pc {}", b.threadName(e.bWriter->thread), e.bWriter->pc);
      s += "\n";
    }
    if (d.affected.size() > maxAffected) s += fmt::format("  ... {} more\n", d.affected.size() - maxAffected);
  }
  s += "verdict: DIVERGENT\n";
  return s;
}

nlohmann::json traceDiffToJson(const TraceDiff& d, const Trace& a, const Trace& b) {
  using nlohmann::json;
  auto event = [](const Trace& t, const std::optional<TraceEvent>& e) -> json {
    if (!e) return nullptr;
    json regs = json::object();
    for (const auto& [n, v] : e->regs) regs[n] = fmt::format("{:#x}", v);
    json j = {{"block", e->block}, {"warp", e->warp}, {"lane", e->lane}, {"warp_width", t.warpWidth},
              {"pc", e->pc}, {"ptx_line", e->ptxLine}, {"seq", e->seq}, {"regs", regs}};
    if (e->write) j["write"] = writeText(e->write);
    return j;
  };
  json j = {{"format", "qgpu-trace-diff-1"},
            {"a", a.path},
            {"b", b.path},
            {"identical", d.identical()},
            {"problems", d.problems},
            {"writes_only", d.writesOnly},
            {"divergent_threads", d.divergentThreads}};
  if (d.first) {
    const TraceDivergence& f = *d.first;
    j["first"] = {{"kind", divergenceKindName(f.kind)},
                  {"thread", f.thread},
                  {"thread_name", (f.a ? a : b).threadName(f.thread)},
                  {"seq", f.seq},
                  {"pc", f.where.pc},
                  {"instruction", f.where.text},
                  {"ptx_line", f.where.ptxLine},
                  {"source", f.where.srcLine ? json(fmt::format("{}:{}", f.where.srcFile, f.where.srcLine)) : json(nullptr)},
                  {"a", event(a, f.a)},
                  {"b", event(b, f.b)}};
    if (f.kind == TraceDivergence::Kind::Register)
      j["first"]["register"] = {{"name", f.reg}, {"a", fmt::format("{:#x}", f.aValue)}, {"b", fmt::format("{:#x}", f.bValue)}};
  }
  json aff = json::array();
  for (const AffectedElement& e : d.affected) {
    json x = {{"buffer", e.buffer}, {"index", e.index},
              {"a", e.a ? json(fmt::format("{:#x}", *e.a)) : json(nullptr)},
              {"b", e.b ? json(fmt::format("{:#x}", *e.b)) : json(nullptr)}};
    if (e.bWriter) x["b_writer"] = {{"thread", e.bWriter->thread}, {"pc", e.bWriter->pc}};
    aff.push_back(x);
  }
  j["affected"] = aff;
  return j;
}

}  // namespace qgpu
