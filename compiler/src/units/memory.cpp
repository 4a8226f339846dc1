// The load/store unit (machine LD/ST, docs/machine.md §5.3) on slot memory: each lane's
// memory copy is 64 banks (DeltaNet heads) of 128 one-byte slots, byte x in bank x mod 64,
// slot (x / 64) mod 128. A 32-bit aligned word at word address a (byte address 4a) lies in
// slot a >> 4 of the four banks 4 (a & 15) + k, k = 0..3 (byte k of the word).
//
//   1      decoders: the store's slot (128 one-hot steps) and group (16), each lane's load
//          slot and group (equality steps [a == j], pairwise exclusive by construction)
//   2..    per lane and byte k a read port of the 16 banks 4g + k (one layer of 16 heads):
//          the store writes bank 4g + k where st = 1 and the store group is g
//          (E = st + sel_g - 1), the load reads the bank of the load group (z select);
//          the port's read bits are re-quantised in the MLP of its layer.
// Every copy takes the same store: one store per position, as the machine's lane-serial
// stores (docs/machine.md §5.3).
//
// Conv-window reads (previousBits, the window unit): a bank of one slot, written at every
// position with the data its value channels' conv tap takes from 1..3 tokens back, and read
// at once: the token intake's view of the previous tokens (docs/machine.md §5.2, layer 1).
#include <fmt/format.h>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

std::vector<WireId> decodeAddress(Circuit& c, const std::string& name, const Bus& address) {
  std::vector<WireId> out;
  for (uint32_t j = 0; j < (1u << address.size()); ++j) {
    out.push_back(c.step(fmt::format("{}=={}", name, j), bitsMatching(address, j) - static_cast<int64_t>(address.size())));
  }
  return out;
}

Unit loadStoreUnit(uint32_t lanes) {
  constexpr uint32_t kSlotBits = 7, kGroupBits = 4, kWordBits = kSlotBits + kGroupBits;
  Unit u{Circuit(fmt::format("lsu32x{}", lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const WireId st = c.inputBit("st");
  const Bus saddr = c.inputBus("st.word", kWordBits), sdata = c.inputBus("st.data", 32);
  u.selectors.push_back(st);
  u.selectorNames.push_back("st");
  u.shared = {saddr, sdata};
  const Bus sgroupBits(saddr.begin(), saddr.begin() + kGroupBits), sslotBits(saddr.begin() + kGroupBits, saddr.end());
  std::vector<Bus> laddr;
  for (uint32_t l = 0; l < lanes; ++l) laddr.push_back(c.inputBus(fmt::format("l{}.ld.word", l), kWordBits));
  // ---- level 1: decoders ----
  const std::vector<WireId> wslot = decodeAddress(c, "st.slot", sslotBits), wgroup = decodeAddress(c, "st.group", sgroupBits);
  for (uint32_t l = 0; l < lanes; ++l) {
    const Bus& a = laddr[l];
    const std::vector<WireId> rslot = decodeAddress(c, fmt::format("l{}.slot", l), Bus(a.begin() + kGroupBits, a.end()));
    const std::vector<WireId> rgroup = decodeAddress(c, fmt::format("l{}.group", l), Bus(a.begin(), a.begin() + kGroupBits));
    // ---- the banks: one read port per byte ----
    Bus word;
    for (uint32_t k = 0; k < 4; ++k) {
      std::vector<MemoryBank> banks;
      for (uint32_t g = 0; g < (1u << kGroupBits); ++g) {
        MemoryBank b;
        b.writeKey = wslot;
        b.writeEnable = w(st) + w(wgroup[g]) - 1;
        b.data = Bus(sdata.begin() + 8 * k, sdata.begin() + 8 * k + 8);
        b.readKey = rslot;
        b.readSelect = rgroup[g];
        banks.push_back(std::move(b));
      }
      const Bus byte = c.memoryRead(fmt::format("l{}.byte{}", l, k), std::move(banks));
      word.insert(word.end(), byte.begin(), byte.end());
    }
    c.outputBus(fmt::format("l{}.ld.data", l), word);
    u.lanes.push_back({{a}, {word}});
  }
  return u;
}

Bus previousBits(Circuit& c, const std::string& name, const Bus& data, uint32_t delay, WireId one) {
  MemoryBank b;
  b.writeKey = {one};
  b.readKey = {one};
  b.writeEnable = w(one);
  b.data = data;
  b.delay = delay;
  return c.memoryRead(name, {std::move(b)});
}

Bus lastWritten(Circuit& c, const std::string& name, WireId key, const Expr& write, const Bus& data) {
  MemoryBank b;
  b.writeKey = {key};
  b.readKey = {key};
  b.writeEnable = write;
  b.data = data;
  return c.memoryRead(name, {std::move(b)});
}

Bus lastWritten(Circuit& c, const std::string& name, WireId key, WireId write, const Bus& data) {
  return lastWritten(c, name, key, w(write), data);
}

Unit windowUnit(uint32_t bits) {
  Unit u{Circuit(fmt::format("window{}", bits)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const Bus x = c.inputBus("x", bits);
  const WireId one = c.step("one", Expr(0));  // always 1: the banks' one slot
  LaneBuses lb;
  lb.operands = {x};
  for (uint32_t d = 1; d <= kMaxDelay; ++d) {
    const Bus back = previousBits(c, fmt::format("x(t-{})", d), x, d, one);
    c.outputBus(fmt::format("x(t-{})", d), back);
    lb.results.push_back(back);
  }
  u.lanes.push_back(std::move(lb));
  return u;
}

}  // namespace qgpu::compiler
