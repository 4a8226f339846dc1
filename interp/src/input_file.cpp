// Bounded reading of input files: regular files of limited size only (docs/limits.md).
#include "qgpu/interp/input_file.h"

#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "qgpu/interp/error.h"

namespace qgpu {

void checkInputFile(const std::filesystem::path& path, const std::string& what, uint64_t maxBytes) {
  auto fail = [&](const std::string& why) {
    throw Error(ErrorKind::Input, fmt::format("{}: cannot read {}: {}", path.string(), what, why));
  };
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) fail("no such file");
  if (std::filesystem::is_directory(st)) fail("it is a folder, not a file");
  if (!std::filesystem::is_regular_file(st)) fail("not a regular file (a device, FIFO or socket)");
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) fail(ec.message());
  if (size > maxBytes)
    fail(fmt::format("{} bytes, more than the limit of {} bytes (docs/limits.md)", size, maxBytes));
}

std::string readInputFile(const std::filesystem::path& path, const std::string& what, uint64_t maxBytes) {
  checkInputFile(path, what, maxBytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Input, fmt::format("{}: cannot read {}: cannot open it", path.string(), what));
  std::string text;
  char buf[65536];
  // Read at most maxBytes even if the file grew since it was checked.
  while (in && text.size() <= maxBytes) {
    in.read(buf, sizeof buf);
    text.append(buf, static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) throw Error(ErrorKind::Input, fmt::format("{}: cannot read {}: read error", path.string(), what));
  if (text.size() > maxBytes)
    throw Error(ErrorKind::Input, fmt::format("{}: cannot read {}: it grew past the limit of {} bytes", path.string(),
                                              what, maxBytes));
  return text;
}

}  // namespace qgpu
