// Reads qgpu-trace-1 files back, regrouped per thread.
#include "qgpu/debug/trace_reader.h"

#include <bit>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qgpu/interp/error.h"
#include "qgpu/interp/input_file.h"
#include "qgpu/json_input.h"
#include "qgpu/launch_spec.h"
#include "qgpu/result.h"

namespace qgpu {

using nlohmann::json;

namespace {

// Largest trace file read (docs/limits.md): 5 million steps (the default --trace-limit) of
// wide events fit.
constexpr uint64_t kMaxTraceFileBytes = uint64_t{4} << 30;

uint64_t hexValue(const json& j) {
  if (!j.is_string()) throw std::invalid_argument(j.dump() + " is not a \"0x...\" hex string");
  std::optional<uint64_t> v = parseHexBits(j.get<std::string>());
  if (!v) throw std::invalid_argument("\"" + j.get<std::string>() + "\" is not 0x hex");
  return *v;
}

// An unsigned 32-bit integer (get<uint32_t> would truncate 1.5 or 2^32 + 1 silently).
uint32_t u32(const json& j, const char* what) {
  if (!j.is_number_unsigned() || j.get<uint64_t>() > 0xffffffffu)
    throw std::invalid_argument(fmt::format("{} must be an unsigned 32-bit integer, got {}", what, j.dump()));
  return j.get<uint32_t>();
}

// An unsigned 64-bit integer (get<uint64_t> on 1e20 is undefined behaviour: UBSan in fuzz_trace).
uint64_t u64(const json& j, const char* what) {
  if (!j.is_number_unsigned())
    throw std::invalid_argument(fmt::format("{} must be an unsigned 64-bit integer, got {}", what, j.dump()));
  return j.get<uint64_t>();
}

Dim3 dim3(const json& j, const char* what) {
  if (!j.is_array() || j.size() != 3) throw std::invalid_argument(fmt::format("{} must be [x,y,z]", what));
  return {u32(j[0], what), u32(j[1], what), u32(j[2], what)};
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
  // 64-bit products: grid.x * grid.y may pass 2^32 (readTrace checks the dimensions are non-zero).
  return fmt::format("block ({},{},{}) thread ({},{},{})", b % grid.x, (b / grid.x) % grid.y,
                     b / (uint64_t{grid.x} * grid.y), t % block.x, (t / block.x) % block.y,
                     t / (uint64_t{block.x} * block.y));
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
      if (line.empty()) {
        if (lineNo == 1) throw bad("not a qgpu trace (the first line must be the header, not blank)");
        continue;
      }
      json j = parseJsonInput(line, fmt::format("{}:{}", path.string(), lineNo), "trace");
      if (lineNo == 1) {
        if (!j.is_object() || j.value("format", "") != "qgpu-trace-1")
          throw bad("not a qgpu trace (the first line must be a header with \"format\": \"qgpu-trace-1\")");
        t.kernel = j.at("kernel").get<std::string>();
        t.entry = j.at("entry").get<std::string>();
        t.flavour = j.at("flavour").get<std::string>();
        t.ptx = j.at("ptx").get<std::string>();
        if (!j.at("inject").is_null()) t.inject = j["inject"].get<std::string>();
        t.warpWidth = u32(j.at("warp_width"), "warp_width");
        if (t.warpWidth < 1 || t.warpWidth > 32) throw bad("warp_width must be 1..32");
        t.grid = dim3(j.at("grid"), "grid");
        t.block = dim3(j.at("block"), "block");
        if (!t.grid.x || !t.grid.y || !t.grid.z || !t.block.x || !t.block.y || !t.block.z)
          throw bad("empty grid or block");
        // Thread ids are 32-bit (block * threads per block + thread): the launch must fit.
        uint64_t blocks = 0, threads = 0;
        if (__builtin_mul_overflow(uint64_t{t.grid.x} * t.grid.y, uint64_t{t.grid.z}, &blocks) ||
            __builtin_mul_overflow(blocks, t.block.count(), &threads) || threads > 0xffffffffull)
          throw bad(fmt::format("grid ({},{},{}) x block ({},{},{}) is more than 2^32 threads", t.grid.x, t.grid.y,
                                t.grid.z, t.block.x, t.block.y, t.block.z));
        for (const json& b : j.at("buffers")) {
          TraceBufferInfo info{u32(b.at("index"), "buffer index"), b.at("name").get<std::string>(),
                               b.at("type").get<std::string>(), u64(b.at("count"), "buffer count"),
                               hexValue(b.at("address")), b.value("output", false)};
          auto type = parseScalarType(info.type);
          if (!type) throw bad(fmt::format("buffer '{}': unknown type '{}'", info.name, info.type));
          if (!b["count"].is_number_unsigned() || info.count > kMaxBufferBytes / scalarTypeBytes(*type) ||
              info.address + info.count * scalarTypeBytes(*type) < info.address)
            throw bad(fmt::format("buffer '{}': count {} is not a buffer size (at most {} bytes, docs/limits.md)",
                                  info.name, b["count"].dump(), kMaxBufferBytes));
          t.buffers.push_back(std::move(info));
        }
        std::map<uint32_t, std::string> files;
        for (const auto& [k, v] : j.at("files").items()) files[static_cast<uint32_t>(std::stoul(k))] = v.get<std::string>();
        for (const json& c : j.at("code")) {
          TraceCode tc;
          tc.function = c.at("fn").get<std::string>();
          tc.text = c.at("text").get<std::string>();
          tc.line = u32(c.at("line"), "code line");
          if (c.contains("src")) {
            auto f = files.find(u32(c["src"].at(0), "code source file"));
            if (f != files.end()) tc.srcFile = resolveSourcePath(t.ptx, f->second);
            tc.srcLine = u32(c["src"].at(1), "code source line");
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
      uint32_t block = u32(j.at("b"), "block index \"b\""), warp = u32(j.at("w"), "warp index \"w\"");
      uint32_t pc = u32(j.at("pc"), "\"pc\""), ln = j.contains("ln") ? u32(j["ln"], "\"ln\"") : 0;
      if (block >= t.grid.count()) throw bad(fmt::format("block {} is outside the grid", block));
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
        const uint64_t inBlock = uint64_t{warp} * t.warpWidth + e.lane;
        if (inBlock >= t.threadsPerBlock()) throw bad(fmt::format("warp {} lane {} is outside the block", warp, e.lane));
        e.thread = static_cast<uint32_t>(uint64_t{block} * t.threadsPerBlock() + inBlock);  // < 2^32: checked
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
          uint32_t lane = u32(w.at(0), "memory write lane");
          TraceEvent* target = nullptr;
          for (size_t i = first; i < t.events.size(); ++i)
            if (t.events[i].lane == lane) target = &t.events[i];
          if (!target) throw bad(fmt::format("memory write of inactive lane {}", lane));
          TraceWrite tw{w.at(1).get<std::string>(), hexValue(w.at(2)), u32(w.at(3), "memory write size"), {}};
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
