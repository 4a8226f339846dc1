// Shared helpers of the debug tests: the test kernels, temporary files, and
// finding an instruction by its PTX text (so fault positions survive a
// regeneration of the PTX).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "qgpu/backend.h"
#include "qgpu/launch_spec.h"

namespace qgpu::test {

const std::filesystem::path kSource = QGPU_SOURCE_DIR;

/// kernels/dot, or debug/test/kernels/<name> for the others.
LaunchSpec testKernel(const std::string& name);

/// A fresh folder for one test's files.
std::filesystem::path scratchDir(const std::string& test);

/// The pc of the first instruction of the spec's PTX whose text starts with
/// `prefix` (whitespace-normalised); fails the test if there is none.
uint32_t pcOf(const LaunchSpec& spec, const std::string& prefix);

}  // namespace qgpu::test
