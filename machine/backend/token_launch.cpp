// The launch-as-tokens plumbing of the machine-protocol backends (token_launch.h).
#include "token_launch.h"

#include <fstream>
#include <string>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::machine {

TokenLaunch prepareTokenLaunch(const LaunchSpec& spec, const RunOptions& options, const std::string& backend) {
  if (options.warpWidth != kLanes)
    throw Error(ErrorKind::Input, fmt::format("{}: the machine is a {}-lane core; run it with --warp {} (got {})", backend,
                                              kLanes, kLanes, options.warpWidth));
  TokenLaunch tl;
  tl.program = lowerKernel(loadProgram(spec.ptxPath(options.flavour)), spec.entry,
                           lowerFor(spec.grid, spec.block, spec.dynamicSharedBytes));
  tl.launch = materializeLaunch(spec);
  tl.machineLaunch = machineLaunch(tl.program, tl.launch);
  tl.prompt = encodePrompt(tl.program, tl.machineLaunch);
  return tl;
}

void replayIntoBuffers(TokenLaunch& tl, const std::vector<uint32_t>& generated, uint64_t maxSteps,
                       const std::string& backend) {
  // The host decoder sees only tokens: the prompt (ROM, launch, initial memory) and the
  // generated stream. Launch buffer i is the replayed global segment at its address.
  const DecodedPrompt dp = decodePrompt(tl.prompt);
  const std::vector<std::vector<uint8_t>> replayed = replay(dp.program, dp.launch, generated, maxSteps);
  for (size_t i = 0; i < tl.launch.buffers.size(); ++i) {
    size_t k = 0;
    while (k < dp.launch.bufferAddr.size() && dp.launch.bufferAddr[k] != tl.machineLaunch.bufferAddr[i]) ++k;
    if (k == dp.launch.bufferAddr.size())
      throw Error(ErrorKind::Backend, fmt::format("{}: buffer {} is missing from the prompt", backend, i));
    tl.launch.buffers[i].data = replayed[k];
  }
}

void writeTokenFile(const std::string& path, const std::vector<uint32_t>& tokens, const std::vector<std::string>& meanings) {
  std::ofstream out(path);
  if (!out) throw Error(ErrorKind::Input, fmt::format("{}: cannot write the token stream", path));
  for (size_t i = 0; i < tokens.size(); ++i) out << tokens[i] << '\t' << meanings.at(i) << '\n';
  if (!out) throw Error(ErrorKind::Input, fmt::format("{}: write failed", path));
}

std::vector<uint32_t> readTokenFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorKind::Input, fmt::format("{}: cannot read the token stream", path));
  std::vector<uint32_t> ids;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    const size_t tab = line.find('\t');
    const std::string id = line.substr(0, tab);
    uint64_t v = 0;
    bool digits = !id.empty() && id.size() <= 10;
    for (char c : id) digits = digits && c >= '0' && c <= '9';
    if (digits) v = std::stoull(id);
    if (tab == std::string::npos || !digits)
      throw Error(ErrorKind::Input, fmt::format("{}:{}: not a token line (an id, a tab, its meaning): '{}'", path, n, line));
    if (v < kTextVocab || v >= uint64_t{kTextVocab} + kNumMachineIds)
      throw Error(ErrorKind::Input, fmt::format("{}:{}: {} is not a machine token id ({} to {})", path, n, v, kTextVocab,
                                                kTextVocab + kNumMachineIds - 1));
    ids.push_back(static_cast<uint32_t>(v));
  }
  return ids;
}

RunResult tokenRunResult(TokenLaunch& tl, const LaunchSpec& spec, const RunOptions& options, const std::string& backend,
                         const std::vector<uint32_t>& generated, const Trace& reference) {
  if (!options.tokensFile.empty()) writeTokenFile(options.tokensFile, generated, reference.meanings);
  if (!options.promptFile.empty()) {
    std::vector<std::string> names;
    for (uint32_t id : tl.prompt) names.push_back(tokenName(id));
    writeTokenFile(options.promptFile, tl.prompt, names);
  }
  // The host decoder sees the prompt and the generated tokens only.
  replayIntoBuffers(tl, generated, options.maxSteps, backend);
  RunResult r;
  r.kernel = spec.name;
  r.backend = backend;
  r.flavour = options.flavour;
  r.warpWidth = options.warpWidth;
  r.outputs = collectOutputs(spec, tl.launch);
  r.warpInstructions = reference.steps;
  r.provenance = {{"prompt_tokens", tl.prompt.size()}, {"generated_tokens", generated.size()}};
  return r;
}

}  // namespace qgpu::machine
