// The machine step's register file (register_file.h, docs/machine.md §5.2): per read port a
// copy of every warp's registers, lane l in four banks (DeltaNet heads) of 128 slots of 64
// bits, slot = warp << k | register. The write — at a register write's commit, to the lanes
// it names — goes into every copy; each copy then answers its port's read at the same
// position, so a step computed at the position of the previous step's commit reads the
// value just written.
//
//   1  the slot bits: bit i is register bit i below k, warp bit i - k from k on (one gate
//      per k, k one-hot), re-thresholded into structural bits
//   2  the decoders: [slot low 7 bits == j] (128) and [high 2 bits == h] (4) per address
//   3+ the copies: per port and lane one read port of 4 banks; the guard port keeps 1 bit
#include "qgpu/compiler/register_file.h"

#include <fmt/format.h>

namespace qgpu::compiler {

Bus registerSlotBits(Circuit& c, const std::string& name, const Bus& reg, const Bus& warp, const Bus& k,
                     const std::optional<std::pair<Bus, WireId>>& instead) {
  // With another field: k's bits split by where it is read, [k = s and not there], [k = s and there].
  std::vector<WireId> kOwn, kOther;
  if (instead)
    for (uint32_t s = 0; s < kRegisterShifts; ++s) {
      kOwn.push_back(c.step(fmt::format("{} k={} (own field)", name, s), w(k[s]) - w(instead->second) - 1));
      kOther.push_back(c.step(fmt::format("{} k={} (other field)", name, s), w(k[s]) + w(instead->second) - 2));
    }
  Bus out;
  for (uint32_t i = 0; i < kRegisterSlotBits; ++i) {
    Expr x(0);
    for (uint32_t s = 0; s < kRegisterShifts; ++s) {
      const int64_t src = i < s ? static_cast<int64_t>(i) : static_cast<int64_t>(i - s);
      const Bus& from = i < s ? reg : warp;
      if (src >= static_cast<int64_t>(from.size())) continue;
      const WireId bit = from[static_cast<size_t>(src)];
      if (instead && i < s) {
        x += w(c.gate(fmt::format("{} slot[{}] if k={} (own field)", name, i, s), kOwn[s], w(bit)));
        x += w(c.gate(fmt::format("{} slot[{}] if k={} (other field)", name, i, s), kOther[s],
                      w(instead->first[static_cast<size_t>(src)])));
      } else {
        x += w(c.gate(fmt::format("{} slot[{}] if k={}", name, i, s), k[s], w(bit)));
      }
    }
    // The gates are one level's: one merged channel per bit, not one per gate.
    // The gates are one level's: written into one channel per bit, not one channel each.
    out.push_back(c.step(fmt::format("{} slot[{}]", name, i), w(c.channel(fmt::format("{} slot[{}] gates", name, i), x)) - 1));
  }
  return out;
}

namespace {

struct Decoded {
  std::vector<WireId> slot, bank;  // one-hot: slot within a bank (128), bank (4)
};
// With `off`, a bank is selected only where off is 0: the bank decode takes off as a third
// address bit and keeps the four codes where it is 0 (still provably exclusive).
Decoded decodeSlot(Circuit& c, const std::string& name, const Bus& slot, std::optional<WireId> off = std::nullopt) {
  Bus bank(slot.begin() + 7, slot.end());
  if (off) bank.push_back(*off);
  std::vector<WireId> banks = decodeAddress(c, name + " bank", bank);
  banks.resize(4);
  return {decodeAddress(c, name + " slot", Bus(slot.begin(), slot.begin() + 7)), std::move(banks)};
}

}  // namespace

uint32_t registerShift(uint32_t registers) {
  for (uint32_t k = 0; k < kRegisterShifts; ++k)
    if (registers <= (1u << k)) return k;
  return kRegisterShifts;
}

std::vector<Bus> buildRegisterFile(Circuit& c, const RegisterFileWires& in) {
  static const char* kPorts[kRegisterFilePorts] = {"a", "b", "c", "guard"};
  const Decoded wr = decodeSlot(c, "write", in.writeSlot);
  std::vector<Bus> reads;
  for (uint32_t p = 0; p < kRegisterFilePorts; ++p) {
    const std::optional<WireId> off = p < in.noRegister.size() ? in.noRegister[p] : std::nullopt;
    const std::optional<std::pair<Bus, WireId>> instead = p < in.instead.size() ? in.instead[p] : std::nullopt;
    const Decoded rd = decodeSlot(c, fmt::format("read {}", kPorts[p]),
                                  registerSlotBits(c, fmt::format("read {}", kPorts[p]), in.read[p], in.warp, in.k, instead), off);
    // The copies take a layer each (16 heads): a port's decoders wait beside the previous
    // port's read instead of all being live from the first copy on.
    if (p > 0)
      for (const std::vector<WireId>* d : {&rd.slot, &rd.bank})
        for (WireId x : *d) c.notBefore(x, reads[4 * (p - 1)][0]);
    const uint32_t bits = p == 3 ? 1 : 64;  // the guard reads a predicate: bit 0
    for (uint32_t l = 0; l < 4; ++l) {
      std::vector<MemoryBank> banks;
      for (uint32_t h = 0; h < 4; ++h) {
        MemoryBank b;
        b.writeKey = wr.slot;
        b.writeEnable = w(in.commit) + w(in.lanes[l]) + w(wr.bank[h]) - 2;
        b.data = Bus(in.values[l].begin(), in.values[l].begin() + bits);
        b.readKey = rd.slot;
        b.readSelect = rd.bank[h];
        banks.push_back(std::move(b));
      }
      reads.push_back(c.memoryRead(fmt::format("{} l{}", kPorts[p], l), std::move(banks)));
    }
  }
  return reads;
}

void outputRegisterReads(Circuit& c, const std::vector<Bus>& reads) {
  static const char* kPorts[kRegisterFilePorts] = {"a", "b", "c", "guard"};
  for (size_t i = 0; i < reads.size(); ++i) c.outputBus(fmt::format("{} l{}", kPorts[i / 4], i % 4), reads[i]);
}

Unit registerFileUnit() {
  Unit u{Circuit("registers"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  RegisterFileWires in;
  in.commit = c.inputBit("commit");
  in.lanes = c.inputBus("lanes written", 4);
  for (uint32_t l = 0; l < 4; ++l) in.values.push_back(c.inputBus(fmt::format("l{} value", l), 64));
  const Bus dest = c.inputBus("written register", kRegisterSlotBits);
  in.warp = c.inputBus("warp", kRegisterWarpBits);
  in.k = c.inputBus("k", kRegisterShifts);  // one-hot: 2^k slots per warp
  for (const char* p : {"a", "b", "c", "guard"}) in.read.push_back(c.inputBus(fmt::format("read {}", p), kRegisterSlotBits));
  in.writeSlot = registerSlotBits(c, "write", dest, in.warp, in.k);
  const std::vector<Bus> reads = buildRegisterFile(c, in);
  outputRegisterReads(c, reads);
  LaneBuses lb;
  lb.results = reads;
  u.lanes.push_back(std::move(lb));
  return u;
}

std::vector<int64_t> registerFileInputs(const RegisterFileAccess& a) {
  std::vector<int64_t> in;
  auto bits = [&](uint64_t v, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) in.push_back(static_cast<int64_t>((v >> i) & 1));
  };
  in.push_back(a.commit ? 1 : 0);
  bits(a.lanes, 4);
  for (uint64_t v : a.values) bits(v, 64);
  bits(a.reg, kRegisterSlotBits);
  bits(a.warp, kRegisterWarpBits);
  bits(uint64_t{1} << a.shift, kRegisterShifts);
  for (uint32_t r : a.read) bits(r, kRegisterSlotBits);
  return in;
}

}  // namespace qgpu::compiler
