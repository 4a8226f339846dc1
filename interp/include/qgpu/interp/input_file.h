// Reading input files (PTX, launch specs, results, traces) within the limits of docs/limits.md:
// regular files only (not /dev/zero, a FIFO or a folder) and at most a given size.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace qgpu {

/// Largest PTX file the front end reads (docs/limits.md).
inline constexpr uint64_t kMaxPtxFileBytes = uint64_t{64} << 20;
/// Largest JSON file (launch spec, result, golden) read whole (docs/limits.md).
inline constexpr uint64_t kMaxJsonFileBytes = uint64_t{256} << 20;

/// Throws Error(ErrorKind::Input) "<path>: cannot read <what>: <why>" unless `path` is a
/// regular file of at most `maxBytes` bytes that can be opened.
void checkInputFile(const std::filesystem::path& path, const std::string& what, uint64_t maxBytes);

/// The whole file, after checkInputFile.
std::string readInputFile(const std::filesystem::path& path, const std::string& what, uint64_t maxBytes);

}  // namespace qgpu
