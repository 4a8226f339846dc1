// Where an instruction comes from: its PTX line and text, and the .cu line
// when the PTX carries .loc information. Shared by the result diff, the
// trace diff and the HTML report.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "qgpu/interp/program.h"

namespace qgpu {

struct PcInfo {
  uint32_t pc = 0;
  std::string function;
  std::string ptxFile;  // as the program was loaded
  uint32_t ptxLine = 0;
  std::string text;     // the PTX instruction
  std::string srcFile;  // .cu path, resolved against the PTX folder; "" without .loc
  uint32_t srcLine = 0;
  std::string srcText;  // that line of the .cu file, "" if unreadable

  /// "pc 12 `add.f32 %f8, %f10, %f7;` (kernel.sm_75.ptx:47, kernel.cu:6)"
  std::string describe() const;
};

PcInfo pcInfo(const Program& program, uint32_t pc);

/// Lines [line - radius, line + radius] of a text file, numbered from 1;
/// empty if the file cannot be read.
std::vector<std::pair<uint32_t, std::string>> fileContext(const std::filesystem::path& file,
                                                          uint32_t line, uint32_t radius);

/// A .loc file path resolved against the PTX file's folder when relative.
std::string resolveSourcePath(const std::string& ptxFile, const std::string& srcFile);

}  // namespace qgpu

namespace qgpu {
/// `qgpu run --listing`: every pc with its function, PTX line, text and .cu line.
std::string formatListing(const Program& program);
}  // namespace qgpu
