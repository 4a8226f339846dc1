// The observer that applies a FaultInjection (executor.cpp installs it).
#pragma once

#include <memory>

#include "qgpu/interp/launch.h"

namespace qgpu {

/// Checks the injection against the program (pc in the entry's code, an
/// instruction with a destination register, bit within it, lane within the
/// warp) and returns an observer that flips the bit and then forwards every
/// call to options.observer. ErrorKind::Input on a bad injection.
std::unique_ptr<ExecObserver> makeFaultInjector(const Program& program, const FaultInjection& f, const LaunchOptions& options);
/// ErrorKind::Input if the launch never executed the injection point.
void requireInjected(const ExecObserver& injector, const FaultInjection& f);

}  // namespace qgpu
