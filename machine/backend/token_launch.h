// What every backend that runs a launch as machine tokens shares (--backend machine, and the
// compiled machine's --backend circuit): the launch spec lowered and encoded as the prompt,
// the host decoder's replay of a generated stream back into the launch buffers, and the
// token file (`--tokens`: one line per token, id TAB meaning).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/backend.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/lower.h"
#include "qgpu/machine/prompt.h"

namespace qgpu::machine {

struct TokenLaunch {
  MachineProgram program;
  Launch launch;               // the spec's buffers: replayIntoBuffers fills them
  MachineLaunch machineLaunch;
  std::vector<uint32_t> prompt;
};
/// Refuses a warp width other than the machine's (ErrorKind::Input, naming `backend`), lowers
/// the spec's PTX of the flavour, materialises the launch and encodes the prompt.
TokenLaunch prepareTokenLaunch(const LaunchSpec& spec, const RunOptions& options, const std::string& backend);
/// The host decoder: the prompt's program and memory, `generated` replayed on them; each
/// launch buffer takes its replayed segment (ErrorKind::Backend if one is missing).
void replayIntoBuffers(TokenLaunch& tl, const std::vector<uint32_t>& generated, uint64_t maxSteps,
                       const std::string& backend);
/// Writes `path`: one line per token, its id, a tab and its meaning.
void writeTokenFile(const std::string& path, const std::vector<uint32_t>& tokens, const std::vector<std::string>& meanings);
/// Reads a token file as writeTokenFile writes it: the ids (the meanings are not read back).
/// ErrorKind::Input naming the file and line of a line that is not an id TAB meaning, or of
/// an id outside the machine's ids.
std::vector<uint32_t> readTokenFile(const std::string& path);
/// What every token backend returns for `generated`, a stream equal to `reference`'s (the
/// executor's, whose meanings the token file takes): `--tokens` written, the stream replayed
/// into the launch buffers, and the result with its outputs, the executor's warp
/// instructions, and the prompt and generated token counts as provenance (the backend adds
/// its own).
RunResult tokenRunResult(TokenLaunch& tl, const LaunchSpec& spec, const RunOptions& options, const std::string& backend,
                         const std::vector<uint32_t>& generated, const Trace& reference);

}  // namespace qgpu::machine
