// Writing qgpu-trace-1. One line per warp step keeps the writer streaming and
// the reader simple; per-thread streams are rebuilt by the reader, so traces
// of different warp widths stay comparable.
#include "qgpu/interp/trace_writer.h"

#include <bit>

#include <fmt/format.h>

namespace qgpu {

std::string jsonQuote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    switch (c) {
      case '"': q += "\\\""; break;
      case '\\': q += "\\\\"; break;
      case '\n': q += "\\n"; break;
      case '\t': q += "\\t"; break;
      case '\r': q += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) q += fmt::format("\\u{:04x}", static_cast<int>(c));
        else q += c;
    }
  }
  return q + "\"";
}

namespace {

std::string ptxText(const Program& p, uint32_t line) {
  if (line < 1 || line > p.module.sourceLines.size()) return "";
  const std::string& t = p.module.sourceLines[line - 1];
  size_t b = t.find_first_not_of(" \t");
  size_t e = t.find_last_not_of(" \t\r");
  if (b == std::string::npos) return "";
  std::string out;  // tabs and runs of blanks become one space
  for (size_t i = b; i <= e; ++i) {
    bool blank = t[i] == ' ' || t[i] == '\t';
    if (!blank) out += t[i];
    else if (out.back() != ' ') out += ' ';
  }
  return out;
}

const char* spaceName(MemSpace s) {
  switch (s) {
    case MemSpace::Global: return "global";
    case MemSpace::Shared: return "shared";
    case MemSpace::Local: return "local";
    case MemSpace::FrameParam: case MemSpace::KernelParam: return "param";
    case MemSpace::Const: return "const";
    case MemSpace::Generic: return "generic";
  }
  return "?";
}

}  // namespace

TraceWriter::TraceWriter(std::ostream& out, const Program& program, const TraceHeader& h,
                         uint64_t maxSteps, ExecObserver* next)
    : out_(out), program_(program), maxSteps_(maxSteps), next_(next) {
  std::string s = fmt::format(
      "{{\"format\":\"qgpu-trace-1\",\"kernel\":{},\"entry\":{},\"flavour\":{},\"ptx\":{},"
      "\"warp_width\":{},\"grid\":[{},{},{}],\"block\":[{},{},{}],\"inject\":{},\"buffers\":[",
      jsonQuote(h.kernel), jsonQuote(h.entry), jsonQuote(h.flavour), jsonQuote(h.ptx), h.warpWidth,
      h.grid.x, h.grid.y, h.grid.z, h.block.x, h.block.y, h.block.z,
      h.inject.empty() ? "null" : jsonQuote(h.inject));
  for (size_t i = 0; i < h.buffers.size(); ++i) {
    const TraceBuffer& b = h.buffers[i];
    s += fmt::format(
        "{}{{\"index\":{},\"name\":{},\"type\":{},\"count\":{},\"address\":\"{:#x}\",\"output\":{}}}",
        i ? "," : "", b.index, jsonQuote(b.name), jsonQuote(b.type), b.count,
        globalBufferAddress(b.index), b.output ? "true" : "false");
  }
  s += "],\"files\":{";
  bool first = true;
  for (const auto& [index, path] : program.module.files) {
    s += fmt::format("{}\"{}\":{}", first ? "" : ",", index, jsonQuote(path));
    first = false;
  }
  s += "},\"code\":[";
  for (uint32_t pc = 0; pc < program.code.size(); ++pc) {
    const Instr& in = program.code[pc];
    s += fmt::format("{}{{\"pc\":{},\"fn\":{},\"line\":{},\"text\":{}", pc ? "," : "", pc,
                     jsonQuote(program.functions[in.function].name), in.ptxLine,
                     jsonQuote(ptxText(program, in.ptxLine)));
    if (in.srcLine) s += fmt::format(",\"src\":[{},{}]", in.srcFile, in.srcLine);
    s += "}";
  }
  s += "]}\n";
  out_ << s;
}

bool TraceWriter::take() {
  if (steps_ >= maxSteps_) {
    truncated_ = true;
    return false;
  }
  ++steps_;
  return true;
}

void TraceWriter::onInstruction(uint32_t pc, uint32_t blockLinear, uint32_t warp, uint32_t laneMask) {
  // Control instructions get no afterInstruction: they are recorded here.
  if (laneMask && program_.code[pc].flow != Flow::None && take())
    out_ << fmt::format("{{\"b\":{},\"w\":{},\"pc\":{},\"ln\":{},\"m\":\"{:#x}\"}}\n", blockLinear,
                        warp, pc, program_.code[pc].ptxLine, laneMask);
  if (next_) next_->onInstruction(pc, blockLinear, warp, laneMask);
}

void TraceWriter::afterInstruction(const ExecStep& step) {
  if (next_) next_->afterInstruction(step);
  if (!take()) return;
  const Instr& in = step.instr();
  const FunctionInfo& fn = program_.functions[in.function];
  line_ = fmt::format("{{\"b\":{},\"w\":{},\"pc\":{},\"ln\":{},\"m\":\"{:#x}\"", step.blockLinear,
                      step.warp, step.pc, in.ptxLine, step.laneMask);
  bool anyReg = false;
  for (uint32_t slot : in.d) {
    if (slot == kNoSlot) continue;
    line_ += anyReg ? "," : ",\"r\":{";
    anyReg = true;
    uint32_t bytes = fn.slotBytes[slot];
    uint64_t mask = bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
    line_ += jsonQuote(fn.slotNames[slot]) + ":[";
    bool firstLane = true;
    for (uint32_t m = step.laneMask; m; m &= m - 1) {
      uint32_t lane = static_cast<uint32_t>(std::countr_zero(m));
      line_ += fmt::format("{}\"{:#x}\"", firstLane ? "" : ",", step.reg(slot, lane) & mask);
      firstLane = false;
    }
    line_ += "]";
  }
  if (anyReg) line_ += "}";
  if (storeKindOf(program_, step.pc) != StoreKind::None) {
    line_ += ",\"st\":[";
    bool firstWrite = true;
    for (uint32_t m = step.laneMask; m; m &= m - 1) {
      uint32_t lane = static_cast<uint32_t>(std::countr_zero(m));
      std::optional<MemoryWrite> w = memoryWriteOf(step, lane);
      if (!w) continue;
      std::string value = "0x";
      for (uint32_t i = w->size; i-- > 0;) value += fmt::format("{:02x}", w->bytes[i]);
      line_ += fmt::format("{}[{},\"{}\",\"{:#x}\",{},\"{}\"]", firstWrite ? "" : ",", lane,
                           spaceName(w->space), w->address, w->size, value);
      firstWrite = false;
    }
    line_ += "]";
  }
  line_ += "}\n";
  out_ << line_;
}

void TraceWriter::finish(const std::string& error) {
  out_ << fmt::format("{{\"end\":{{\"steps\":{},\"truncated\":{},\"error\":{}}}}}\n", steps_,
                      truncated_ ? "true" : "false", error.empty() ? "null" : jsonQuote(error));
  out_.flush();
}

}  // namespace qgpu
