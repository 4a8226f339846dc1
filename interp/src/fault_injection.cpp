// Parsing of --inject and the observer that flips the bit. The flip happens
// in afterInstruction, before the next instruction reads the register, and
// before the caller's observer sees the step, so a trace records the
// corrupted value at exactly the injected pc and lane.
#include "qgpu/interp/fault_injection.h"

#include <charconv>

#include <fmt/format.h>

#include "fault_injector.h"
#include "qgpu/interp/error.h"

namespace qgpu {

FaultInjection parseFaultInjection(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorKind::Input,
                 fmt::format("--inject '{}': {} (want pc=<n>,lane=<l>,bit=<b>[,block=<n>][,warp=<n>])",
                             text, why));
  };
  FaultInjection f;
  bool havePc = false, haveLane = false, haveBit = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t eq = part.find('=');
    if (eq == std::string::npos) throw bad(fmt::format("'{}' is not key=value", part));
    std::string key = part.substr(0, eq), value = part.substr(eq + 1);
    uint32_t v = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || value.empty())
      throw bad(fmt::format("'{}' is not a non-negative 32-bit integer", value));
    if (key == "pc") f.pc = v, havePc = true;
    else if (key == "lane") f.lane = v, haveLane = true;
    else if (key == "bit") f.bit = v, haveBit = true;
    else if (key == "block") f.block = v;
    else if (key == "warp") f.warp = v;
    else throw bad(fmt::format("unknown key '{}'", key));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (!havePc || !haveLane || !haveBit) throw bad("pc, lane and bit are required");
  return f;
}

std::string formatFaultInjection(const FaultInjection& f) {
  std::string s = fmt::format("pc={},lane={},bit={}", f.pc, f.lane, f.bit);
  if (f.block) s += fmt::format(",block={}", *f.block);
  if (f.warp) s += fmt::format(",warp={}", *f.warp);
  return s;
}

namespace {

class FaultInjector : public ExecObserver {
 public:
  FaultInjector(const FaultInjection& f, ExecObserver* next) : f_(f), next_(next) {}

  void onInstruction(uint32_t pc, uint32_t blockLinear, uint32_t warp, uint32_t laneMask) override {
    if (next_) next_->onInstruction(pc, blockLinear, warp, laneMask);
  }

  void afterInstruction(const ExecStep& step) override {
    if (!fired_ && step.pc == f_.pc && ((step.laneMask >> f_.lane) & 1) &&
        (!f_.block || *f_.block == step.blockLinear) && (!f_.warp || *f_.warp == step.warp)) {
      step.reg(step.instr().d[0], f_.lane) ^= uint64_t{1} << f_.bit;
      fired_ = true;
    }
    if (next_) next_->afterInstruction(step);
  }

  bool fired() const { return fired_; }

 private:
  FaultInjection f_;
  ExecObserver* next_;
  bool fired_ = false;
};

}  // namespace

std::unique_ptr<ExecObserver> makeFaultInjector(const Program& program, const FaultInjection& f, const LaunchOptions& options) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorKind::Input, fmt::format("--inject {}: {}", formatFaultInjection(f), why));
  };
  if (f.pc >= program.code.size())
    throw bad(fmt::format("pc {} is past the program's {} instructions", f.pc, program.code.size()));
  const Instr& in = program.code[f.pc];
  if (in.flow != Flow::None || in.d[0] == kNoSlot)
    throw bad(fmt::format("{} has no destination register", program.describePc(f.pc)));
  if (f.lane >= options.warpWidth)
    throw bad(fmt::format("lane {} is outside a warp of {}", f.lane, options.warpWidth));
  const FunctionInfo& fn = program.functions[in.function];
  uint32_t bits = 8u * fn.slotBytes[in.d[0]];
  if (f.bit >= bits)
    throw bad(fmt::format("bit {} is outside the {}-bit destination {}", f.bit, bits, fn.slotNames[in.d[0]]));
  return std::make_unique<FaultInjector>(f, options.observer);
}

void requireInjected(const ExecObserver& injector, const FaultInjection& f) {
  if (!static_cast<const FaultInjector&>(injector).fired())
    throw Error(ErrorKind::Input,
                fmt::format("--inject {}: the launch never executed pc {} on lane {}{}{}; no fault "
                            "was injected",
                            formatFaultInjection(f), f.pc, f.lane,
                            f.block ? fmt::format(" of block {}", *f.block) : "",
                            f.warp ? fmt::format(" of warp {}", *f.warp) : ""));
}

}  // namespace qgpu
