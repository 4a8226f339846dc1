// The control state a token stream implies (stream_state.h), by the rules of
// docs/machine.md §3.3 — written from the protocol, not from the executor's sequencer.
#include "qgpu/machine/stream_state.h"

#include "qgpu/machine/tokens.h"

namespace qgpu::machine {

StreamDeriver::StreamDeriver(std::vector<uint32_t> validMasks) : validMasks_(std::move(validMasks)) {
  s_.mask = valid(0);
}

uint32_t StreamDeriver::valid(uint32_t warp) const { return warp < validMasks_.size() ? validMasks_[warp] : 0; }

void StreamDeriver::take(uint32_t id) {
  // Where steps end: the end classes, or a CHUNK-LAST that reaches its prefix's value count.
  if (uint32_t n = prefixValueCount(id)) prefixCount_ = n, valuesSincePrefix_ = 0;
  lastEnded_ = endsStepByClass(id);
  if (id >= kChunkLast && id < kPack4) lastEnded_ = ++valuesSincePrefix_ >= prefixCount_;
  // The fields: the last token that carried each, and for the pc the steps ended since.
  bool carriesPc = true;
  if (id >= kBlock && id < kWarpStart) {
    s_.block = id - kBlock;
    s_.warp = 0, pcBase_ = 0, s_.mask = valid(0), s_.depth = 1;
  } else if (id >= kWarpStart && id < kWarpResume) {
    s_.warp = id - kWarpStart;
    pcBase_ = 0, s_.mask = valid(s_.warp), s_.depth = 1;
  } else if (id >= kTop && id < kGoto) {
    const TopFields f = topFields(id);
    pcBase_ = f.pc;
    s_.mask = f.mask;
    s_.depth = f.k < 2 ? f.k + 1 : lastDepth_;
  } else if (id >= kGoto && id < kBlock) {
    pcBase_ = id - kGoto;
  } else {
    carriesPc = false;
    if (id >= kWarpResume && id < kDepth) s_.warp = id - kWarpResume;
    if (id >= kDepth && id < kControl) lastDepth_ = id - kDepth + 1;
  }
  if (carriesPc) s_.stepsSincePc = 0;
  else if (lastEnded_) ++s_.stepsSincePc;
  s_.pc = pcBase_ + s_.stepsSincePc;
}

}  // namespace qgpu::machine
