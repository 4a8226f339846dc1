// The token protocol (docs/machine.md §3): token ids, their names, and write encoding.
#include "qgpu/machine/tokens.h"

#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "qgpu/interp/error.h"

namespace qgpu::machine {
namespace {

uint64_t widthMask(uint32_t bytes) { return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1; }

uint64_t signExtend(uint64_t v, uint32_t bits, uint32_t bytes) {
  if (bits < 64 && ((v >> (bits - 1)) & 1)) v |= ~0ull << bits;
  return v & widthMask(bytes);
}

[[noreturn]] void bad(size_t pos, const std::string& what) {
  throw Error(ErrorKind::Input, fmt::format("token {}: {}", pos, what));
}

}  // namespace

double bitsPerToken() { return std::log2(static_cast<double>(kNumMachineIds)); }

bool endsStepByClass(uint32_t id) {
  if (id >= kPack4 && id < kBlock) return true;  // PACK4, TOP, GOTO
  return id == ctl(Ctl::Done) || id == ctl(Ctl::Fall) || id == ctl(Ctl::Halt);
}

uint32_t prefixValueCount(uint32_t id) {
  if (id < kPack4) return 0;  // text and chunk tokens are not prefixes
  if (id == ctl(Ctl::InnerLanes) || id == ctl(Ctl::InnerAffine) || id == ctl(Ctl::InnerLanesHigh)) return 0;
  if (id == ctl(Ctl::Atomic)) return UINT32_MAX;
  if (id == ctl(Ctl::Affine)) return 2;
  if (id >= ctl(Ctl::Lanes) && id < ctl(Ctl::Lanes, 4)) return id - ctl(Ctl::Lanes) + 1;
  if (id >= ctl(Ctl::LanesHigh) && id < ctl(Ctl::LanesHigh, 4)) return id - ctl(Ctl::LanesHigh) + 1;
  return 1;
}

std::string tokenName(uint32_t id) {
  if (id < kTextVocab) return fmt::format("text {}", id);
  if (id < kChunkLast) return fmt::format("chunk {:#06x} (more)", id - kChunkMore);
  if (id < kPack4) return fmt::format("chunk {:#06x} (last)", id - kChunkLast);
  if (id < kTop) {
    uint32_t v = id - kPack4;
    return fmt::format("pack4 [{}, {}, {}, {}]", v & 15, (v >> 4) & 15, (v >> 8) & 15, v >> 12);
  }
  if (id < kGoto) {
    const TopFields f = topFields(id);
    return f.k < 2 ? fmt::format("TOP pc {} lanes {:#x} depth {}", f.pc, f.mask, f.k + 1)
                   : fmt::format("TOP pc {} lanes {:#x} depth (DEPTH's)", f.pc, f.mask);
  }
  if (id < kBlock) return fmt::format("GOTO pc {}", id - kGoto);
  if (id < kWarpStart) return fmt::format("BLOCK {}", id - kBlock);
  if (id < kWarpResume) return fmt::format("WARP-START {}", id - kWarpStart);
  if (id < kDepth) return fmt::format("WARP {} (resumes)", id - kWarpResume);
  if (id < kControl) return fmt::format("DEPTH {}", id - kDepth + 1);
  if (isActiveToken(id)) return fmt::format("ACTIVE lanes {:#x}", id - kActive);
  if (id >= kAt) {
    if (id < kActive) return fmt::format("AT item {}", (id - kAt) * kPromptCheckpointItems);
    return fmt::format("unknown machine id {}", id);
  }
  const uint32_t c = id - kControl;
  if (c >= static_cast<uint32_t>(Ctl::Lanes) && c < static_cast<uint32_t>(Ctl::Lanes) + 4)
    return fmt::format("LANES {}", c - static_cast<uint32_t>(Ctl::Lanes) + 1);
  if (c >= static_cast<uint32_t>(Ctl::LanesHigh) && c < static_cast<uint32_t>(Ctl::LanesHigh) + 4)
    return fmt::format("LANES-HIGH {}", c - static_cast<uint32_t>(Ctl::LanesHigh) + 1);
  static const char* kNames[] = {"HALT", "DONE",  "AFFINE", "PROMPT", "CODE",   "CONSTS",      "LAUNCH",      "SEGMENT",
                                 "ZERO-SEGMENT", "GO", "WAIT", "FALL", "ATOMIC", "INNER-LANES", "INNER-AFFINE",
                                 "INNER-LANES-HIGH"};
  if (c < std::size(kNames)) return kNames[c];
  return fmt::format("unknown machine id {}", id);
}

const char* writeFormName(WriteForm f) {
  switch (f) {
    case WriteForm::Uniform: return "uniform";
    case WriteForm::Pack4: return "pack4";
    case WriteForm::Affine: return "affine";
    case WriteForm::LanesHigh: return "per-lane-high";
    case WriteForm::Lanes: return "per-lane";
  }
  return "?";
}

std::vector<uint32_t> valueTokens(uint64_t v, uint32_t bytes) {
  v &= widthMask(bytes);
  const uint32_t bits = bytes * 8;
  std::vector<uint32_t> out;
  for (uint32_t k = 1;; ++k) {
    uint32_t used = std::min(16 * k, bits);
    uint64_t low = used >= 64 ? v : v & ((1ull << used) - 1);
    if (signExtend(low, used, bytes) == v || used == bits) {
      for (uint32_t i = 0; i < k; ++i) {
        uint32_t chunk = static_cast<uint32_t>((v >> (16 * i)) & 0xffff);
        out.push_back((i + 1 < k ? kChunkMore : kChunkLast) + chunk);
      }
      return out;
    }
  }
}

std::vector<uint32_t> encodeWrite(const std::array<uint64_t, 4>& values, uint32_t mask,
                                  uint32_t bytes, WriteForm* form, bool inner) {
  const uint64_t wm = widthMask(bytes);
  std::vector<uint32_t> lanes;
  for (uint32_t l = 0; l < 4; ++l)
    if ((mask >> l) & 1) lanes.push_back(l);
  std::vector<std::pair<WriteForm, std::vector<uint32_t>>> options;
  if (lanes.empty()) return {};
  bool uniform = true, small = true;
  for (uint32_t l : lanes) {
    uniform = uniform && (values[l] & wm) == (values[lanes[0]] & wm);
    small = small && (values[l] & wm) < 16;
  }
  if (uniform) options.push_back({WriteForm::Uniform, valueTokens(values[lanes[0]], bytes)});
  if (small && !inner) {
    uint32_t v = 0;
    for (uint32_t l : lanes) v |= static_cast<uint32_t>(values[l] & wm) << (4 * l);
    options.push_back({WriteForm::Pack4, {kPack4 + v}});
  }
  // AFFINE needs its first two active lanes at most two apart: stride * (l1 - l0) == v1 - v0
  // (mod 2^64) is then the difference or its half. Lanes 0 and 3 alone would need the
  // difference times 3^-1 mod 2^64, a multiplier's six levels in the compiled write-form
  // encoder; they are spelled as LANES, which the corpus's 460 such writes tied with
  // (docs/machine.md §3.3: no token more).
  if (lanes.size() >= 2 && lanes[1] - lanes[0] <= 2) {
    uint32_t l0 = lanes[0], l1 = lanes[1];
    uint64_t diff = values[l1] - values[l0];
    uint64_t stride = diff;
    bool ok = true;
    if (l1 - l0 == 2) {
      ok = (diff & 1) == 0;
      stride = diff >> 1;
    }
    stride &= wm;
    uint64_t base = (values[l0] - stride * l0) & wm;
    for (uint32_t l : lanes) ok = ok && ((base + stride * l) & wm) == (values[l] & wm);
    if (ok) {
      std::vector<uint32_t> t{ctl(inner ? Ctl::InnerAffine : Ctl::Affine)};
      for (uint32_t x : valueTokens(base, bytes)) t.push_back(x);
      for (uint32_t x : valueTokens(stride, bytes)) t.push_back(x);
      options.push_back({WriteForm::Affine, t});
    }
  }
  bool lowZero = bytes >= 4;
  for (uint32_t l : lanes) lowZero = lowZero && (values[l] & 0xffff) == 0;
  if (lowZero) {
    const uint32_t n = static_cast<uint32_t>(lanes.size());
    std::vector<uint32_t> t{inner ? ctl(Ctl::InnerLanesHigh) : ctl(Ctl::LanesHigh, n - 1)};
    for (uint32_t l : lanes)
      for (uint32_t x : valueTokens((values[l] & wm) >> 16, bytes - 2)) t.push_back(x);
    options.push_back({WriteForm::LanesHigh, t});
  }
  std::vector<uint32_t> t{inner ? ctl(Ctl::InnerLanes) : ctl(Ctl::Lanes, static_cast<uint32_t>(lanes.size()) - 1)};
  for (uint32_t l : lanes)
    for (uint32_t x : valueTokens(values[l], bytes)) t.push_back(x);
  options.push_back({WriteForm::Lanes, t});
  size_t best = 0;
  for (size_t i = 1; i < options.size(); ++i)
    if (options[i].second.size() < options[best].second.size()) best = i;
  if (form) *form = options[best].first;
  return options[best].second;
}

uint32_t TokenReader::peek() const {
  if (atEnd()) bad(pos_, "the stream ends in the middle of a step");
  return t_[pos_];
}
uint32_t TokenReader::next() {
  uint32_t id = peek();
  ++pos_;
  return id;
}

uint64_t TokenReader::value(uint32_t bytes) {
  uint64_t v = 0;
  for (uint32_t i = 0;; ++i) {
    size_t at = pos_;
    uint32_t id = next();
    if (id < kChunkMore || id >= kPack4)
      bad(at, fmt::format("expected a value chunk, got {}", tokenName(id)));
    if (16 * i >= bytes * 8) bad(at, fmt::format("more chunks than a {}-byte value has", bytes));
    const bool last = id >= kChunkLast;
    uint64_t chunk = last ? id - kChunkLast : id - kChunkMore;
    v |= chunk << (16 * i);
    if (last) return signExtend(v, std::min(16 * (i + 1), bytes * 8), bytes);
  }
}

std::array<uint64_t, 4> TokenReader::write(uint32_t mask, uint32_t bytes, bool inner) {
  std::array<uint64_t, 4> out{};
  const uint64_t wm = widthMask(bytes);
  std::vector<uint32_t> active;
  for (uint32_t l = 0; l < 4; ++l)
    if ((mask >> l) & 1) active.push_back(l);
  const uint32_t n = static_cast<uint32_t>(active.size());
  uint32_t id = peek();
  if (id >= kPack4 && id < kTop) {
    if (inner) bad(pos_, "PACK4 ends a step: it cannot spell a write inside an atomic step");
    next();
    uint32_t v = id - kPack4;
    for (uint32_t l = 0; l < 4; ++l)
      if ((mask >> l) & 1) out[l] = (v >> (4 * l)) & 15;
      else if ((v >> (4 * l)) & 15) bad(pos_ - 1, "pack4 token has a value for an inactive lane");
    return out;
  }
  const auto form = [&](Ctl outer, Ctl in, uint32_t counted) {
    return inner ? id == ctl(in) : counted ? id == ctl(outer, n - 1) : id == ctl(outer);
  };
  const bool anyForm = id >= kControl && (id == ctl(Ctl::Affine) || id == ctl(Ctl::InnerAffine) ||
                                          id == ctl(Ctl::InnerLanes) || id == ctl(Ctl::InnerLanesHigh) ||
                                          (id >= ctl(Ctl::Lanes) && id < ctl(Ctl::LanesHigh, 4)));
  if (anyForm && !form(Ctl::Affine, Ctl::InnerAffine, 0) && !form(Ctl::Lanes, Ctl::InnerLanes, 1) &&
      !form(Ctl::LanesHigh, Ctl::InnerLanesHigh, 1))
    bad(pos_, fmt::format("{} does not fit a write of {} lanes{}", tokenName(id), n, inner ? " inside an atomic step" : ""));
  if (form(Ctl::Affine, Ctl::InnerAffine, 0)) {
    next();
    uint64_t base = value(bytes), stride = value(bytes);
    for (uint32_t l = 0; l < 4; ++l) out[l] = (base + stride * l) & wm;
    return out;
  }
  if (form(Ctl::LanesHigh, Ctl::InnerLanesHigh, 1)) {
    next();
    if (bytes < 4) bad(pos_ - 1, "LANES-HIGH needs a value of at least 4 bytes");
    for (uint32_t l : active) out[l] = (value(bytes - 2) << 16) & wm;
    return out;
  }
  if (form(Ctl::Lanes, Ctl::InnerLanes, 1)) {
    next();
    for (uint32_t l : active) out[l] = value(bytes);
    return out;
  }
  uint64_t v = value(bytes);
  out.fill(v);
  return out;
}

}  // namespace qgpu::machine
