// Helpers of the debug tests: test kernels, temporary files, instructions found by PTX text.
#include "test_support.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "qgpu/debug/source_view.h"
#include "qgpu/interp/error.h"

namespace qgpu::test {

LaunchSpec testKernel(const std::string& name) {
  if (name == "dot") return loadLaunchSpec(kSource / "kernels" / "dot");
  return loadLaunchSpec(kSource / "debug" / "test" / "kernels" / name);
}

std::filesystem::path scratchDir(const std::string& test) {
  auto dir = std::filesystem::temp_directory_path() / ("qgpu-debug-" + std::to_string(getpid())) / test;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

uint32_t pcOf(const LaunchSpec& spec, const std::string& prefix) {
  const Program& p = loadProgram(spec.ptxPath("nvcc"));
  for (uint32_t pc = 0; pc < p.code.size(); ++pc)
    if (pcInfo(p, pc).text.rfind(prefix, 0) == 0) return pc;
  ADD_FAILURE() << spec.name << ": no instruction starts with '" << prefix << "'";
  throw Error(ErrorKind::Input, "no such instruction");
}

}  // namespace qgpu::test
