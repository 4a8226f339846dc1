// Test helper of the compiler tests: a compiled unit with one tensor edited, the way the
// mutant and refusal tests corrupt weights, and the check that the proof refuses it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/proof.h"

namespace qgpu::compiler {

/// `cu` with tensor `name`'s f32 values passed through `edit` (every other tensor copied).
CompiledUnit withTensorEdit(const CompiledUnit& cu, const std::string& name,
                            const std::function<void(std::vector<float>&)>& edit);

/// A test failure unless the proof refuses `cu` with a message naming `layer` and containing `needle`.
void expectRefused(const CompiledUnit& cu, const std::string& needle, const std::string& layer,
                   const ProofOptions& o = {});

}  // namespace qgpu::compiler
