// The prompt carries everything the host decoder needs: decoding it gives back the ROM,
// the launch geometry and the initial memory.
#include <algorithm>

#include <gtest/gtest.h>

#include <filesystem>

#include "qgpu/backend.h"
#include "qgpu/interp/error.h"
#include "qgpu/launch_spec.h"
#include "qgpu/machine/lower.h"
#include "qgpu/machine/prompt.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::machine {
namespace {

struct Dot {
  MachineProgram program;
  MachineLaunch launch;
};

Dot dot() {
  LaunchSpec spec = loadLaunchSpec(std::filesystem::path(QGPU_SOURCE_DIR) / "kernels" / "dot");
  Dot d;
  d.program = lowerKernel(loadProgram(spec.ptxPath("nvcc")), spec.entry, lowerFor(spec.grid, spec.block, spec.dynamicSharedBytes));
  d.launch = machineLaunch(d.program, materializeLaunch(spec));
  return d;
}

TEST(MachinePrompt, RoundTrip) {
  Dot d = dot();
  PromptStats stats;
  std::vector<uint32_t> prompt = encodePrompt(d.program, d.launch, &stats);
  EXPECT_EQ(stats.total, prompt.size());
  EXPECT_EQ(stats.code, 2 + 4 * d.program.code.size() + (d.program.code.size() - 1) / kPromptCheckpointItems);  // CODE, count, 4 chunks per word, an AT per 16
  DecodedPrompt back = decodePrompt(prompt);
  EXPECT_EQ(back.program.code, d.program.code);
  EXPECT_EQ(back.program.constants, d.program.constants);
  EXPECT_EQ(back.program.numRegs, d.program.numRegs);
  EXPECT_EQ(back.launch.params, d.launch.params);
  EXPECT_EQ(back.launch.buffers, d.launch.buffers);
  EXPECT_EQ(back.launch.bufferAddr, d.launch.bufferAddr);
  EXPECT_EQ(back.launch.block.x, 4u);
  // Replaying the generated stream on the decoded prompt gives the executor's memory.
  MachineResult ex = execute(d.program, d.launch);
  EXPECT_EQ(replay(back.program, back.launch, ex.trace.tokens), ex.buffers);
}

TEST(MachinePrompt, MalformedPromptsAreErrors) {
  Dot d = dot();
  std::vector<uint32_t> prompt = encodePrompt(d.program, d.launch);
  std::vector<uint32_t> noGo(prompt.begin(), prompt.end() - 1);
  EXPECT_THROW(decodePrompt(noGo), Error);
  std::vector<uint32_t> badWord = prompt;
  badWord[3] = ctl(Ctl::Done);  // inside the first instruction word
  EXPECT_THROW(decodePrompt(badWord), Error);
  std::vector<uint32_t> badOp = prompt;
  badOp[3] = kChunkMore + 0x7f;  // opcode 127 does not exist
  EXPECT_THROW(decodePrompt(badOp), Error);
  std::vector<uint32_t> extra = prompt;
  extra.push_back(ctl(Ctl::Go));
  EXPECT_THROW(decodePrompt(extra), Error);
  // dot's 21 code words: AT 1 stands before word 16; without it, or moved, the prompt is refused.
  auto at = std::find(prompt.begin(), prompt.end(), kAt + 1);
  ASSERT_NE(at, prompt.end());
  EXPECT_EQ(std::count_if(prompt.begin(), at, [](uint32_t t) { return t >= kChunkLast && t < kPack4; }),
            1 + 16);  // the CODE count, then 16 words
  std::vector<uint32_t> noAt = prompt;
  noAt.erase(noAt.begin() + (at - prompt.begin()));
  EXPECT_THROW(decodePrompt(noAt), Error);
  std::vector<uint32_t> movedAt = noAt;
  movedAt.insert(movedAt.begin() + (at - prompt.begin()) + 4, kAt + 1);
  EXPECT_THROW(decodePrompt(movedAt), Error);
}

// LAUNCH opens with the threads per block, the registers per thread and the blocks, one
// CHUNK-LAST each (where the compiled machine looks for them); a prompt whose figures
// disagree with its block, its code or its grid is refused.
TEST(MachinePrompt, LaunchStatesThreadsRegistersAndBlocksFirst) {
  Dot d = dot();
  const std::vector<uint32_t> prompt = encodePrompt(d.program, d.launch);
  const auto launch = std::find(prompt.begin(), prompt.end(), ctl(Ctl::Launch));
  ASSERT_LT(launch + 3, prompt.end());
  const size_t at = static_cast<size_t>(launch - prompt.begin());
  EXPECT_EQ(prompt[at + 1], kChunkLast + d.launch.block.count());
  EXPECT_EQ(prompt[at + 2], kChunkLast + d.program.numRegs);
  EXPECT_EQ(prompt[at + 3], kChunkLast + d.launch.grid.count());
  std::vector<uint32_t> threads = prompt;
  threads[at + 1] = kChunkLast + 5;  // dot's block is 4 threads
  try {
    decodePrompt(threads);
    ADD_FAILURE() << "a wrong thread count was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("LAUNCH says 5 threads"), std::string::npos) << e.what();
  }
  std::vector<uint32_t> registers = prompt;
  registers[at + 2] = kChunkLast + d.program.numRegs - 1;  // the code names one more
  try {
    decodePrompt(registers);
    ADD_FAILURE() << "too few registers were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("registers, the code names r"), std::string::npos) << e.what();
  }
  std::vector<uint32_t> blocks = prompt;
  blocks[at + 3] = kChunkLast + static_cast<uint32_t>(d.launch.grid.count()) + 1;
  try {
    decodePrompt(blocks);
    ADD_FAILURE() << "a wrong block count was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("blocks, its grid"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace qgpu::machine
