// The prompt (docs/machine.md §3.2): the tokens that put the ROM (code words, constants),
// the launch geometry and the initial memory in front of generation.
#pragma once

#include <cstdint>
#include <vector>

#include "qgpu/machine/core.h"
#include "qgpu/machine/isa.h"

namespace qgpu::machine {

struct PromptStats {
  size_t code = 0, constants = 0, launch = 0, memory = 0, total = 0;
};

std::vector<uint32_t> encodePrompt(const MachineProgram& program, const MachineLaunch& launch,
                                   PromptStats* stats = nullptr);

/// What the host decoder knows after reading a prompt: the ROM and the launch. All global
/// segments (module variables and launch buffers) come back as launch buffers at their
/// addresses; register names and PTX provenance are not part of the prompt.
struct DecodedPrompt {
  MachineProgram program;
  MachineLaunch launch;
};

/// Reads a prompt produced by encodePrompt; throws qgpu::Error(Input) on malformed tokens.
DecodedPrompt decodePrompt(const std::vector<uint32_t>& tokens);

}  // namespace qgpu::machine
