// Reads qgpu-trace-1 files back, regrouped per thread.
#include "qgpu/debug/trace_reader.h"

#include <bit>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qgpu/interp/error.h"
#include "qgpu/interp/input_file.h"
#include "qgpu/json_input.h"

namespace qgpu {

using nlohmann::json;

namespace {

// Largest trace file read (docs/limits.md): 5 million steps (the default --trace-limit) of
// wide events fit.
constexpr uint64_t kMaxTraceFileBytes = uint64_t{4} << 30;

uint64_t hexValue(const json& j) {
  std::string s = j.get<std::string>();
  if (s.size() < 3 || s.compare(0, 2, "0x") != 0) throw std::invalid_argument("\"" + s + "\" is not 0x hex");
  size_t used = 0;
  uint64_t v = std::stoull(s.substr(2), &used, 16);
  if (used != s.size() - 2) throw std::invalid_argument("\"" + s + "\" is not 0x hex");
  return v;
}

Dim3 dim3(const json& j) {
  if (!j.is_array() || j.size() != 3) throw std::invalid_argument("grid/block must be [x,y,z]");
  return {j[0].get<uint32_t>(), j[1].get<uint32_t>(), j[2].get<uint32_t>()};
}

}  // namespace

PcInfo Trace::pcInfo(uint32_t pc) const {
  PcInfo p;
  p.pc = pc;
  p.ptxFile = ptx;
  if (pc < code.size()) {
    p.function = code[pc].function;
    p.ptxLine = code[pc].line;
    p.text = code[pc].text;
    p.srcFile = code[pc].srcFile;
    p.srcLine = code[pc].srcLine;
    if (p.srcLine) {
      auto l = fileContext(p.srcFile, p.srcLine, 0);
      if (!l.empty()) p.srcText = l[0].second;
    }
  }
  return p;
}

std::string Trace::threadName(uint32_t thread) const {
  uint32_t tpb = threadsPerBlock();
  uint32_t b = thread / tpb, t = thread % tpb;
  return fmt::format("block ({},{},{}) thread ({},{},{})", b % grid.x, (b / grid.x) % grid.y,
                     b / (grid.x * grid.y), t % block.x, (t / block.x) % block.y,
                     t / (block.x * block.y));
}

Trace readTrace(const std::filesystem::path& path) {
  checkInputFile(path, "the trace", kMaxTraceFileBytes);
  std::ifstream in(path);
  if (!in) throw Error(ErrorKind::Input, fmt::format("{}: cannot read the trace", path.string()));
  Trace t;
  t.path = path.string();
  std::string line;
  uint64_t lineNo = 0;
  std::map<uint32_t, uint32_t> seq;
  auto bad = [&](const std::string& why) {
    return Error(ErrorKind::Input, fmt::format("{}:{}: {}", path.string(), lineNo, why));
  };
  try {
    while (std::getline(in, line)) {
      ++lineNo;
      if (line.empty()) continue;
      json j = parseJsonInput(line, fmt::format("{}:{}", path.string(), lineNo), "trace");
      if (lineNo == 1) {
        if (!j.is_object() || j.value("format", "") != "qgpu-trace-1")
          throw bad("not a qgpu trace (the first line must be a header with \"format\": \"qgpu-trace-1\")");
        t.kernel = j.at("kernel").get<std::string>();
        t.entry = j.at("entry").get<std::string>();
        t.flavour = j.at("flavour").get<std::string>();
        t.ptx = j.at("ptx").get<std::string>();
        if (!j.at("inject").is_null()) t.inject = j["inject"].get<std::string>();
        t.warpWidth = j.at("warp_width").get<uint32_t>();
        if (t.warpWidth < 1 || t.warpWidth > 32) throw bad("warp_width must be 1..32");
        t.grid = dim3(j.at("grid"));
        t.block = dim3(j.at("block"));
        if (!t.grid.count() || !t.block.count()) throw bad("empty grid or block");
        for (const json& b : j.at("buffers"))
          t.buffers.push_back({b.at("index").get<uint32_t>(), b.at("name").get<std::string>(),
                               b.at("type").get<std::string>(), b.at("count").get<uint64_t>(),
                               hexValue(b.at("address")), b.value("output", false)});
        std::map<uint32_t, std::string> files;
        for (const auto& [k, v] : j.at("files").items()) files[static_cast<uint32_t>(std::stoul(k))] = v.get<std::string>();
        for (const json& c : j.at("code")) {
          TraceCode tc;
          tc.function = c.at("fn").get<std::string>();
          tc.text = c.at("text").get<std::string>();
          tc.line = c.at("line").get<uint32_t>();
          if (c.contains("src")) {
            auto f = files.find(c["src"].at(0).get<uint32_t>());
            if (f != files.end()) tc.srcFile = resolveSourcePath(t.ptx, f->second);
            tc.srcLine = c["src"].at(1).get<uint32_t>();
          }
          t.code.push_back(std::move(tc));
        }
        continue;
      }
      if (t.ended) throw bad("data after the end line");
      if (j.contains("end")) {
        t.ended = true;
        t.steps = j["end"].value("steps", uint64_t{0});
        t.truncated = j["end"].value("truncated", false);
        if (j["end"].contains("error") && !j["end"]["error"].is_null()) t.error = j["end"]["error"].get<std::string>();
        continue;
      }
      uint32_t block = j.at("b").get<uint32_t>(), warp = j.at("w").get<uint32_t>();
      uint32_t pc = j.at("pc").get<uint32_t>(), ln = j.value("ln", 0u);
      uint64_t mask = hexValue(j.at("m"));
      if (pc >= t.code.size()) throw bad(fmt::format("pc {} is not in the code table", pc));
      if (mask == 0 || mask >> t.warpWidth) throw bad(fmt::format("lane mask {:#x} does not fit warp width {}", mask, t.warpWidth));
      size_t first = t.events.size();
      uint32_t k = 0;
      for (uint64_t m = mask; m; m &= m - 1, ++k) {
        TraceEvent e;
        e.lane = static_cast<uint32_t>(std::countr_zero(m));
        e.block = block;
        e.warp = warp;
        e.pc = pc;
        e.ptxLine = ln;
        e.step = lineNo - 1;
        uint32_t inBlock = warp * t.warpWidth + e.lane;
        if (inBlock >= t.threadsPerBlock()) throw bad(fmt::format("warp {} lane {} is outside the block", warp, e.lane));
        e.thread = block * t.threadsPerBlock() + inBlock;
        e.seq = seq[e.thread]++;
        if (j.contains("r"))
          for (const auto& [name, values] : j["r"].items()) {
            if (!values.is_array() || values.size() != static_cast<size_t>(std::popcount(mask)))
              throw bad(fmt::format("register {}: one value per active lane expected", name));
            e.regs.emplace_back(name, hexValue(values[k]));
          }
        t.events.push_back(std::move(e));
      }
      if (j.contains("st"))
        for (const json& w : j["st"]) {
          uint32_t lane = w.at(0).get<uint32_t>();
          TraceEvent* target = nullptr;
          for (size_t i = first; i < t.events.size(); ++i)
            if (t.events[i].lane == lane) target = &t.events[i];
          if (!target) throw bad(fmt::format("memory write of inactive lane {}", lane));
          TraceWrite tw{w.at(1).get<std::string>(), hexValue(w.at(2)), w.at(3).get<uint32_t>(), {}};
          std::string v = w.at(4).get<std::string>();
          if (tw.size > 16 || v.size() != 2 + 2 * size_t{tw.size} || v.compare(0, 2, "0x") != 0)
            throw bad(fmt::format("memory write value \"{}\" does not have {} bytes", v, tw.size));
          for (uint32_t i = tw.size; i-- > 0;)
            tw.bytes.push_back(static_cast<uint8_t>(std::stoul(v.substr(2 + 2 * size_t{i}, 2), nullptr, 16)));
          target->write = std::move(tw);
        }
      for (size_t i = first; i < t.events.size(); ++i)
        t.threads[t.events[i].thread].push_back(static_cast<uint32_t>(i));
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw bad(fmt::format("malformed trace: {}", e.what()));
  }
  if (lineNo == 0) throw Error(ErrorKind::Input, fmt::format("{}: empty file, not a qgpu trace", path.string()));
  if (!t.ended) throw Error(ErrorKind::Input, fmt::format("{}: no end line (the trace is cut off)", path.string()));
  return t;
}

}  // namespace qgpu
