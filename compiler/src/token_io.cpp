// Token I/O: the vocabulary, and the token input and output ports of a circuit.
#include "qgpu/compiler/token_io.h"

#include <fmt/format.h>

#include <algorithm>

#include "qgpu/compiler/error.h"

namespace qgpu::compiler {

int64_t TokenVocabulary::size() const {
  if (classes.empty()) throw CompileError("token vocabulary: no classes");
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const TokenClass& k : classes) {
    if (k.firstId < 0 || k.valueBits > 16)
      throw CompileError(fmt::format("token vocabulary: class '{}' starts at {} with {} value bits", k.name, k.firstId, k.valueBits));
    spans.emplace_back(k.firstId, k.firstId + k.ids());
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second) throw CompileError("token vocabulary: classes overlap");
  return spans.back().second;
}

uint32_t TokenVocabulary::valueBits() const {
  uint32_t b = 0;
  for (const TokenClass& k : classes) b = std::max(b, k.valueBits);
  return b;
}

std::pair<int, int64_t> TokenVocabulary::decode(int64_t id) const {
  for (size_t i = 0; i < classes.size(); ++i)
    if (id >= classes[i].firstId && id < classes[i].firstId + classes[i].ids())
      return {static_cast<int>(i), id - classes[i].firstId};
  return {-1, 0};
}

int64_t TokenVocabulary::id(size_t cls, int64_t value) const {
  const TokenClass& k = classes.at(cls);
  if (value < 0 || value >= k.ids()) throw CompileError(fmt::format("token class '{}' has no value {}", k.name, value));
  return k.firstId + value;
}

TokenPort tokenInput(Circuit& c, const TokenVocabulary& vocab) {
  vocab.size();  // validates
  TokenPort p;
  for (const TokenClass& k : vocab.classes) p.classBits.push_back(c.inputBit("token.class." + k.name));
  for (uint32_t i = 0; i < vocab.valueBits(); ++i) p.valueBits.push_back(c.inputBit(fmt::format("token.value[{}]", i)));
  return p;
}

void tokenOutput(Circuit& c, const TokenVocabulary& vocab, const TokenPort& next) {
  if (next.classBits.size() != vocab.classes.size() || next.valueBits.size() != vocab.valueBits())
    throw CompileError(fmt::format("{}: token output has {} class and {} value bits, the vocabulary {} and {}", c.name(),
                                   next.classBits.size(), next.valueBits.size(), vocab.classes.size(), vocab.valueBits()));
  auto bit = [&](WireId id, const std::string& what) {
    const Node& n = c.node(id);
    // A constant 0 (range [0, 0]) is a class or value bit the circuit never sets.
    if (!n.structuralBit || n.range.lo != 0 || n.range.hi > 1)
      throw CompileError(fmt::format("{}: token output {} ('{}') is not a structural bit", c.name(), what, n.name));
  };
  for (size_t i = 0; i < next.classBits.size(); ++i) bit(next.classBits[i], "class " + vocab.classes[i].name);
  for (size_t i = 0; i < next.valueBits.size(); ++i) bit(next.valueBits[i], fmt::format("value bit {}", i));
  if (!c.mutuallyExclusive(next.classBits) && !c.declaredExclusive(next.classBits))
    throw CompileError(fmt::format("{}: the token output's class bits are neither provably nor declared exclusive",
                                   c.name()));
  for (size_t i = 0; i < next.classBits.size(); ++i) c.output("next.class." + vocab.classes[i].name, next.classBits[i]);
  for (size_t i = 0; i < next.valueBits.size(); ++i) c.output(fmt::format("next.value[{}]", i), next.valueBits[i]);
}

}  // namespace qgpu::compiler
