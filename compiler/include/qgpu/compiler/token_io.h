// Token I/O of a compiled circuit: the token embedding sets the circuit's token inputs (the
// current token's class as a one-hot and its value's bits), and the token head turns its
// token outputs (the next token's class one-hot and value bits) into logits whose greedy
// argmax is exactly that token. What lets a compiled circuit be driven by generation, token
// by token, instead of by operands placed in the residual (docs/compiler.md, "Token I/O").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/compiler/circuit.h"

namespace qgpu::compiler {

/// A run of token ids: `firstId + v` for every value v < 2^valueBits (one id if 0 bits).
struct TokenClass {
  std::string name;
  int64_t firstId = 0;
  uint32_t valueBits = 0;
  int64_t ids() const { return int64_t{1} << valueBits; }
};

/// The vocabulary a circuit reads and writes: disjoint classes. Ids no class covers embed
/// as anchors only and are never the head's argmax.
struct TokenVocabulary {
  std::vector<TokenClass> classes;
  /// One past the largest id; throws CompileError if classes overlap or are empty.
  int64_t size() const;
  uint32_t valueBits() const;  // the widest class's
  /// The class index and value of `id`, or class -1.
  std::pair<int, int64_t> decode(int64_t id) const;
  int64_t id(size_t cls, int64_t value) const;
};

/// The token wires: class one-hot (vocabulary order) and value bits, least significant first.
struct TokenPort {
  Bus classBits;
  Bus valueBits;
};

/// Declares the current token's inputs (named token.class.<name>, token.value[i]): the
/// embedding sets them, and a token-driven circuit has no other inputs.
TokenPort tokenInput(Circuit& c, const TokenVocabulary& vocab);
/// Marks `next` as the token head's outputs (next.class.<name>, next.value[i]). Every wire
/// must be a structural bit and the class bits provably exclusive or declared so
/// (Circuit::exclusiveGroup; else CompileError); that one class bit is 1 at every position
/// is the circuit's duty (the head's rows of a class whose bit is 0 all score at most 0).
void tokenOutput(Circuit& c, const TokenVocabulary& vocab, const TokenPort& next);

/// Head row of `id` over the token outputs: logit = W·class bit + sum over the class's value
/// bits b of (2·bit_b(v) − 1)·x_b − popcount(v). The next token's row reads W; a row of its
/// class with another value at most W − 1; other rows at most 0. W = 2.
constexpr int64_t kHeadClassWeight = 2;

}  // namespace qgpu::compiler
