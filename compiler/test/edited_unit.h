// Test helper of the compiler tests: a compiled unit with one tensor edited, the way the
// mutant and refusal tests corrupt weights.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "qgpu/compiler/emit.h"

namespace qgpu::compiler {

/// `cu` with tensor `name`'s f32 values passed through `edit` (every other tensor copied).
CompiledUnit withTensorEdit(const CompiledUnit& cu, const std::string& name,
                            const std::function<void(std::vector<float>&)>& edit);

}  // namespace qgpu::compiler
