// Shared helpers of the machine tests: run PTX text on the oracle and on the machine.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "qgpu/interp/launch.h"
#include "qgpu/interp/program.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/isa.h"

namespace qgpu::machine::test {

Program decodeText(const std::string& ptx, const std::string& name = "snippet.ptx");

struct BothResult {
  std::vector<std::vector<uint8_t>> oracle, machine, replayed;
  Trace trace;
  MachineProgram program;
};

/// Runs `entry` of `ptx` on the interpreter (W=4) and on the machine (executor, then the
/// replay decoder on the executor's tokens). Lowering errors propagate.
/// Lowered for the launch's shape (as --backend machine runs it), or without it, when
/// `forLaunch` is false (the launch's special registers read by the executor); with
/// `shareMicroCode`, the f64 micro-codes as shared routines (LowerOptions::shareMicroCode).
BothResult runBoth(const std::string& ptx, const std::string& entry, const Launch& launch, bool forLaunch = true,
                   bool shareMicroCode = false);

/// A launch argument naming launch buffer i.
LaunchArg bufferArg(uint32_t i);
/// One block of `threads` threads and one zeroed output buffer of `words` 32-bit words, the
/// kernel's only argument.
Launch oneBufferLaunch(uint32_t threads, uint32_t words);
/// 32-bit word i of a buffer.
uint32_t word(const std::vector<uint8_t>& buffer, size_t i);

/// Corpus kernel `kernel` (nvcc flavour) lowered, its launch, and the executor's run of it.
struct CorpusExecution {
  MachineProgram program;
  MachineLaunch launch;
  MachineResult result;
};
CorpusExecution executeCorpusKernel(const std::string& kernel);
/// The index of the first token whose meaning contains every one of `parts` (the token count
/// if none).
size_t firstTokenMeaning(const Trace& trace, const std::vector<std::string>& parts);

/// Runs corpus kernel `kernel` (nvcc flavour) on the executor, finds its first token whose
/// meaning contains `marker`, and checks that the replay decoder refuses the stream without it.
void expectReplayNeeds(const std::string& kernel, const std::string& marker);

/// One corpus kernel folder in one PTX flavour: the machine suites' parameter.
struct CorpusCase {
  std::filesystem::path dir;
  std::string kernel, flavour;
};
/// Every kernel folder under kernels/, once per PTX flavour it has.
std::vector<CorpusCase> corpusCases();
void PrintTo(const CorpusCase& c, std::ostream* os);
/// The test name of a case: kernel_flavour.
std::string corpusCaseName(const CorpusCase& c);

}  // namespace qgpu::machine::test
