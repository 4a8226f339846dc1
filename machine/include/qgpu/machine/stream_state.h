// The control state a token stream implies at each position (docs/machine.md §3.3), derived
// from the tokens alone by the bounded-depth rules the compiled machine evaluates: each field
// is the last token of some class, or a small count since one. The reference for the
// compiled sequencer (part 2b), and the test of the protocol against the executor.
#pragma once

#include <cstdint>
#include <vector>

namespace qgpu::machine {

/// What the tokens before a position say the next step is.
struct StreamState {
  uint32_t block = 0, warp = 0, pc = 0, mask = 0, depth = 1;
  uint32_t stepsSincePc = 0;  // step ends since the last pc-carrying token (< kPcCheckpointSteps)
};

/// Reads a generated stream token by token (the prompt is not part of it).
class StreamDeriver {
 public:
  /// `validMask(w)`: warp w's existing lanes (from the launch's block size).
  explicit StreamDeriver(std::vector<uint32_t> validMasks);
  /// Takes the next token.
  void take(uint32_t id);
  /// The state after every token taken so far.
  const StreamState& state() const { return s_; }
  /// Whether the last token taken ended a step.
  bool lastEndedStep() const { return lastEnded_; }

 private:
  uint32_t valid(uint32_t warp) const;
  std::vector<uint32_t> validMasks_;
  StreamState s_;
  uint32_t pcBase_ = 0, prefixCount_ = 1, valuesSincePrefix_ = 0, lastDepth_ = 0;
  bool lastEnded_ = false;
};

}  // namespace qgpu::machine
