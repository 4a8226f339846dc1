// PTX and .cu source lines of an instruction, for the diffs and the HTML report.
#include "qgpu/debug/source_view.h"

#include <fstream>

#include <fmt/format.h>

namespace qgpu {

namespace {
// Largest .cu/.ptx source file whose lines are shown next to instructions (docs/limits.md).
constexpr uintmax_t kMaxSourceContextBytes = uintmax_t{64} << 20;
}  // namespace

std::string PcInfo::describe() const {
  std::string s = fmt::format("pc {} `{}` ({}:{}", pc, text,
                              std::filesystem::path(ptxFile).filename().string(), ptxLine);
  if (srcLine) s += fmt::format(", {}:{}", std::filesystem::path(srcFile).filename().string(), srcLine);
  return s + ")";
}

std::string resolveSourcePath(const std::string& ptxFile, const std::string& srcFile) {
  std::filesystem::path p(srcFile);
  if (p.is_absolute() || srcFile.empty()) return srcFile;
  return (std::filesystem::path(ptxFile).parent_path() / p).lexically_normal().string();
}

std::vector<std::pair<uint32_t, std::string>> fileContext(const std::filesystem::path& file,
                                                          uint32_t line, uint32_t radius) {
  std::vector<std::pair<uint32_t, std::string>> out;
  // Source context is optional: a folder, a device such as /dev/zero, or a file over the limit
  // gives none rather than being read without end (docs/limits.md).
  std::error_code ec;
  if (line == 0 || !std::filesystem::is_regular_file(file, ec) ||
      std::filesystem::file_size(file, ec) > kMaxSourceContextBytes || ec)
    return out;
  std::ifstream in(file);
  if (!in) return out;
  std::string text;
  uint32_t lo = line > radius ? line - radius : 1, n = 0;
  while (std::getline(in, text)) {
    ++n;
    if (n > line + radius) break;
    if (n >= lo) out.emplace_back(n, text);
  }
  return out;
}

PcInfo pcInfo(const Program& program, uint32_t pc) {
  PcInfo info;
  info.pc = pc;
  if (pc >= program.code.size()) return info;
  const Instr& in = program.code[pc];
  info.function = program.functions[in.function].name;
  info.ptxFile = program.module.fileName;
  info.ptxLine = in.ptxLine;
  if (in.ptxLine >= 1 && in.ptxLine <= program.module.sourceLines.size()) {
    const std::string& t = program.module.sourceLines[in.ptxLine - 1];
    size_t b = t.find_first_not_of(" \t"), e = t.find_last_not_of(" \t\r");
    for (size_t i = b; b != std::string::npos && i <= e; ++i) {  // tabs, runs of blanks -> one space
      bool blank = t[i] == ' ' || t[i] == '\t';
      if (!blank) info.text += t[i];
      else if (info.text.back() != ' ') info.text += ' ';
    }
  }
  if (in.srcLine) {
    auto it = program.module.files.find(in.srcFile);
    if (it != program.module.files.end()) {
      info.srcFile = resolveSourcePath(info.ptxFile, it->second);
      info.srcLine = in.srcLine;
      auto line = fileContext(info.srcFile, in.srcLine, 0);
      if (!line.empty()) info.srcText = line[0].second;
    }
  }
  return info;
}

}  // namespace qgpu

namespace qgpu {
std::string formatListing(const Program& program) {
  std::string s;
  for (uint32_t pc = 0; pc < program.code.size(); ++pc) {
    PcInfo p = pcInfo(program, pc);
    s += fmt::format("{:5}  {:<12} {:>5}  {}", pc, p.function, p.ptxLine, p.text);
    if (p.srcLine) s += fmt::format("    // {}:{}", std::filesystem::path(p.srcFile).filename().string(), p.srcLine);
    s += "\n";
  }
  return s;
}
}  // namespace qgpu
