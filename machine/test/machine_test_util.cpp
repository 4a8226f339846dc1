#include "machine_test_util.h"

#include "qgpu/interp/ptx_parser.h"
#include "qgpu/machine/lower.h"

namespace qgpu::machine::test {

Program decodeText(const std::string& ptx, const std::string& name) {
  return decodeModule(ptx::parseModule(ptx, name));
}

BothResult runBoth(const std::string& ptx, const std::string& entry, const Launch& launch) {
  Program program = decodeText(ptx);
  BothResult r;
  Launch oracle = launch;
  LaunchOptions lo;
  lo.warpWidth = 4;
  lo.maxSteps = 1'000'000;
  runLaunch(program, entry, oracle, lo);
  for (const LaunchBuffer& b : oracle.buffers) r.oracle.push_back(b.data);
  r.program = lowerKernel(program, entry);
  MachineLaunch ml = machineLaunch(r.program, launch);
  MachineResult ex = execute(r.program, ml, 1'000'000);
  r.machine = ex.buffers;
  r.replayed = replay(r.program, ml, ex.trace.tokens, 1'000'000);
  r.trace = std::move(ex.trace);
  return r;
}

}  // namespace qgpu::machine::test
