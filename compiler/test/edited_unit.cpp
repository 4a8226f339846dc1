// Test helper of the compiler tests: a compiled unit with one tensor edited, and a refusal.
#include "edited_unit.h"

#include <gtest/gtest.h>

#include "qgpu/compiler/error.h"

#include <cstring>
#include <memory>

namespace qgpu::compiler {

CompiledUnit withTensorEdit(const CompiledUnit& cu, const std::string& name,
                            const std::function<void(std::vector<float>&)>& edit) {
  CompiledUnit m = cu;
  auto store = std::make_shared<model::TensorStore>();
  for (const auto& [n, v] : cu.store->tensors()) {
    std::vector<float> data(v.numel());
    for (size_t i = 0; i < v.numel(); ++i) data[i] = v.at(i);
    if (n == name) edit(data);
    std::vector<std::byte> bytes(data.size() * 4);
    std::memcpy(bytes.data(), data.data(), bytes.size());
    store->addOwned(n, model::DType::F32, v.shape, std::move(bytes));
  }
  m.store = store;
  return m;
}

void expectRefused(const CompiledUnit& cu, const std::string& needle, const std::string& layer, const ProofOptions& o) {
  try {
    proveExact(cu, o);
    ADD_FAILURE() << "proved, expected a refusal containing '" << needle << "'";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(layer), std::string::npos) << e.what();
  }
}

}  // namespace qgpu::compiler
