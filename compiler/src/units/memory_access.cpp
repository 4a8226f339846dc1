// The memory banks, the loads and the stores (memory_access.h, docs/machine.md §5.3).
//
// Writes, in the prompt: a SEGMENT's address (its first chunk, right after SEGMENT) gives
// the segment's first slot (bits 6..12: segments start 64-byte aligned); its data chunks
// (CHUNK-MOREs after its two values) are items counted from the last AT j, so chunk 16 j +
// k - 1 holds the bytes x, x + 1 with x mod 64 = 2 ((k - 1) + 16 (j mod 2)) and slot
// (first slot + j / 2) mod 128: banks 2q, 2q + 1 of every copy take the chunk's low and high
// byte, q from the count and j's bit 0, the slot decoded from a 7-bit sum.
//
// Writes, at a store (lane-serial, machine::store): the lane of the position is the
// (W + 1)-th active lane, W the WAITs since the step began — sel_l = [active_l, P_l = W], P_l
// the active lanes below l, as a pair of thresholds per W. Its address's low 13 bits and its
// value (the w bytes repeated over the 8 of an aligned group) are muxed by sel and made
// proven bits; the slot bits share their steps with the prompt's (one write key), a bank's
// enable is the prompt's pair enable or the store covering it (one threshold), its data the
// prompt's gated chunk byte or the store's byte. A `.local` store writes its lane's copy only.
//
// Reads, at an LD: per lane, the flat address's low 13 bits x (a + b) as proven bits,
// two levels after the guard's read (the operands are read until then anyway: not earlier,
// where the register reads leave no channels); the slot key decoded from x's bits 6..12; banks read in
// eight ports p = bank mod 8 (the byte of an aligned 8-byte group), bank 8 g + p selected
// where x's group (bits 3..5) is g and the access covers byte p — for a w-byte access
// aligned to w, byte p is covered where p's bits above log2 w match x's; the bits below are
// x's zeros, so bit k of p matches as (p_k ? x_k + [w > 2^k] : 1 - x_k), a linear term.
// A port not covered reads 0, so byte i of the result is the sum of the ports i + o over
// the offsets o aligned to w, gated by the width; a signed load's fill is the top byte's
// bit 7, gated by the width, the signedness and the register width.
#include "qgpu/compiler/memory_access.h"

#include <fmt/format.h>

#include <optional>

#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

using machine::MOp;
using machine::MSpace;

namespace {

/// Bits 0..n-1 of (sum_i 2^i a_i) + (sum_i 2^i b_i) as steps, two levels from a and b: the
/// carry into bit k + 1, [T_k >= 2^(k+1)] of T_k = the pairs' sum up to bit k (one threshold a
/// bit: n for n bits, where a threshold per value of bit k's own sum took 3n), then bit k =
/// a_k + b_k + carry_k - 2 carry_(k+1) re-thresholded into a proven bit (a decoder's key
/// needs steps), 0 where `gate` (a form whose values are bits) is 0.
Bus sumBits(Circuit& c, const std::string& name, const std::vector<Expr>& a, const std::vector<Expr>& b, uint32_t n,
            const Expr& gate = Expr(1), std::optional<WireId> at = std::nullopt) {
  Bus out;
  Expr t, carry(0);
  for (uint32_t k = 0; k < n; ++k) {
    t += (int64_t{1} << k) * (a[k] + b[k]);
    const WireId next = c.step(fmt::format("{} carry[{}]", name, k + 1), t - (int64_t{1} << (k + 1)));
    if (at) c.notBefore(next, *at);
    const Expr bit = a[k] + b[k] + carry - 2 * w(next);
    out.push_back(c.step(fmt::format("{}[{}]", name, k), bit + gate - 2));
    carry = w(next);
  }
  return out;
}

Bus slice(const Bus& bus, uint32_t from, uint32_t n) { return Bus(bus.begin() + from, bus.begin() + from + n); }

std::vector<Expr> forms(const Bus& bus, uint32_t from, uint32_t n) { return compiler::forms(slice(bus, from, n)); }

}  // namespace

std::vector<Bus> buildMemoryAccess(Circuit& c, const FrontWires& front, const OperandWires& operands, const Bus& active,
                                   const Bus& waits) {
  const SequencerWires& s = front.sequencer;
  const PromptFeatures& f = front.prompt;
  const WireId one = s.machineToken;
  const Bus& word = front.fetch.word;
  auto isOp = [&](MOp op) { return w(operands.op.at(static_cast<size_t>(op))); };

  // ---- the prompt's writes ----
  const WireId inSegment = lastWritten(c, "in a segment", one, f.sectionHeader, {f.segmentHeader})[0];
  const WireId afterSegment = previousBits(c, "after SEGMENT", {f.segmentHeader}, 1, one)[0];
  const Bus firstSlot = lastWritten(c, "segment slot", one, afterSegment, slice(f.chunk, 6, 7));
  // Its two values (address, bytes) end with CHUNK-LASTs; its data are the CHUNK-MOREs after.
  const Bus values = c.countSince("segment values", f.sectionHeader, s.chunkLast, 2, 1);
  const WireId data = c.step("segment data", w(inSegment) + w(values[1]) + w(f.chunkMore) - 3);
  const WireId itemMark = c.step("segment item mark", w(f.isAt) + w(s.chunkLast) - 1);
  const Bus items = c.countSince("segment items", itemMark, f.chunkMore, 16, 1);  // [k >= 1..16]
  const Bus& at = front.fetch.at;  // the last AT's j (0 from the section header on)
  const Bus chunkSlot = sumBits(c, "segment chunk slot", forms(firstSlot, 0, 7), forms(at, 1, 7), 7, w(data));
  std::vector<WireId> pairWritten;  // per bank pair q: the chunk is bytes 2q, 2q + 1 of its 64
  for (uint32_t q = 0; q < machine::kMemoryBanks / 2; ++q) {
    const uint32_t k = q % 16 + 1;  // the count at the chunk
    Expr isK = w(items[k - 1]);
    if (k < 16) isK -= w(items[k]);
    const Expr half = q >= 16 ? w(at[0]) : 1 - w(at[0]);
    pairWritten.push_back(c.step(fmt::format("segment bytes {}, {}", 2 * q, 2 * q + 1), w(data) + isK + half - 3));
  }
  std::vector<WireId> chunkBits;  // the chunk's bits where it is a segment's data, else 0
  for (uint32_t i = 0; i < 16; ++i) chunkBits.push_back(c.step(fmt::format("segment chunk[{}]", i), w(f.chunk[i]) + w(data) - 2));

  // ---- the access's fields: width, signedness, register width ----
  const Expr ty0 = w(word[machine::kWordTyAt]), ty1 = w(word[machine::kWordTyAt + 1]);
  const Expr loadSigned = w(word[machine::kWordTyAt + 2]);
  // The width one-hot (1, 2, 4, 8 bytes) and [w > 2^k], k = 0..2.
  std::vector<WireId> width;
  for (uint32_t v = 0; v < 4; ++v)
    width.push_back(c.step(fmt::format("access width {}", 1u << v), bitsMatching(slice(word, machine::kWordTyAt, 2), v) - 2));
  const std::array<Expr, 3> wider = {ty0 + ty1 - w(width[3]), ty1, w(width[3])};
  // The register width code (c) one-hot: [register bytes > q / 8] for the fill of bit q.
  std::vector<WireId> reg;
  for (uint32_t v = 0; v < 4; ++v)
    reg.push_back(c.step(fmt::format("LD register width {}", 1u << v), bitsMatching(slice(word, machine::kWordCAt, 2), v) - 2));
  auto registerHolds = [&](uint32_t q) {
    Expr e;
    for (uint32_t v = 0; v < 4; ++v)
      if ((8u << v) > q) e += w(reg[v]);
    return e;
  };
  // [an aligned access of this width at x covers byte p of its 8-byte group g]: 0 where it
  // does, below 0 where not (each missed bit of the group costs `A`, of the byte 1).
  constexpr int64_t A = 16;  // above twice the byte terms' interval (8): a port's selects are exclusive
  auto covers = [&](const std::vector<Expr>& x, uint32_t g, uint32_t p) {
    Expr cond(-3);
    for (uint32_t k = 3; k < 6; ++k) cond += A * (((g >> (k - 3)) & 1 ? x[k] : 1 - x[k]) - 1);
    for (uint32_t k = 0; k < 3; ++k) cond += (p >> k) & 1 ? x[k] + wider[k] : 1 - x[k];
    return cond;
  };

  // ---- each lane's address: the low 13 bits of a + b ----
  std::vector<Bus> address;
  for (uint32_t l = 0; l < 4; ++l)
    address.push_back(sumBits(c, fmt::format("l{} address", l), forms(operands.selected[l], 0, 13),
                              forms(operands.selected[4 + l], 0, 13), 13, Expr(1), front.reads[4 * 3][0]));

  // ---- a store's lane at this position (lane-serial) ----
  const Expr store = isOp(MOp::St);
  const Bus sel = serialLane(c, "store", waits, active, store);
  // Or an atomic's lane where its new value ends (atomic_step.h): its value is in c (atom.new).
  const AtomicStepWires& atomic = front.atomic;
  Expr anySel;
  for (uint32_t l = 0; l < 4; ++l) anySel += w(sel[l]) + w(atomic.newCommit[l]);
  // The selected lane's address and value bits, as proven bits: a gate per lane, then their
  // sum re-thresholded. Slot bits share the step with the prompt chunk's slot.
  Bus storedBits;  // the store's address's low 13 bits (the slot bits: or the chunk's slot)
  for (uint32_t k = 0; k < 13; ++k) {
    Expr terms = k >= 6 ? w(chunkSlot[k - 6]) : Expr(0);
    for (uint32_t l = 0; l < 4; ++l)
      terms += w(c.step(fmt::format("l{} store address[{}]", l, k),
                        8 * (w(sel[l]) + w(atomic.newCommit[l]) - 1) + w(address[l][k]) - 1));
    storedBits.push_back(c.step(fmt::format("{}[{}]", k >= 6 ? "write slot" : "store address", k), terms - 1));
  }
  const std::vector<Expr> stored = forms(storedBits, 0, 13);
  const std::vector<WireId> key = decodeAddress(c, "write slot", slice(storedBits, 6, 7));
  // The stored value: its w bytes repeated over the group's 8 (bank p of a group takes byte p
  // of it), one exclusiveOr channel per bit that its terms' neurons write, at most one 1.
  // Each term a gate (one neuron) on a lane-and-width bit: the serial lane again with the width
  // folded into its op, at sel's level.
  // An atomic's new value (4 or 8 bytes: stepRuns) is written like a store of its lane and
  // width, from c: its lane and width picked beside the store's, in the same selects.
  std::vector<WireId> laneWidth(16);  // [4 l + v]: the store's (or atomic's) lane is l and its width 2^v bytes
  for (uint32_t v = 0; v < 4; ++v) {
    std::vector<Expr> atomicLane(4, Expr(0));
    if (v >= 2)
      for (uint32_t l = 0; l < 4; ++l)
        atomicLane[l] = w(andStep(c, fmt::format("l{} atomic value of {} bytes ends", l, 1u << v),
                                  {w(atomic.newCommit[l]), w(width[v])}));
    const Bus byWidth =
        serialLane(c, fmt::format("store of {} bytes", 1u << v), waits, active, store + w(width[v]) - 1, atomicLane);
    for (uint32_t l = 0; l < 4; ++l) laneWidth[4 * l + v] = byWidth[l];
  }
  std::vector<WireId> value;
  for (uint32_t q = 0; q < 64; ++q) {
    Expr terms;
    for (uint32_t l = 0; l < 4; ++l)
      for (uint32_t v = 0; v < 4; ++v)
        terms += w(c.gate(fmt::format("l{} store value{}[{}]", l, 1u << v, q), laneWidth[4 * l + v],
                          w(operands.selected[8 + l][q % (8u << v)])));
    value.push_back(c.exclusiveOr(fmt::format("store value[{}]", q), terms));
  }
  // Bank data, proven bits: the chunk's byte (b mod 2) or the store's byte (b mod 8) — one of
  // them is 0.
  std::vector<Bus> bankData(8);
  for (uint32_t p = 0; p < 8; ++p)
    for (uint32_t t = 0; t < 8; ++t)
      bankData[p].push_back(
          c.step(fmt::format("bank byte {} data[{}]", p, t), w(chunkBits[8 * (p % 2) + t]) + w(value[8 * p + t]) - 1));
  // Bank b's enable: the prompt's chunk pair, or the store covers it (one threshold: the pair
  // outweighs the store's condition, which is 0 where it covers and at least -70 where not).
  std::vector<WireId> enable;
  for (uint32_t b = 0; b < machine::kMemoryBanks; ++b)
    enable.push_back(c.step(fmt::format("bank {} written", b),
                            128 * w(pairWritten[b / 2]) + A * (anySel - 1) + covers(stored, b / 8, b % 8)));
  // A .local store (space 3) writes its lane's copy alone.
  const WireId localStore =
      c.step("local store", store + bitsMatching(slice(word, machine::kWordFlAt, 3), static_cast<uint64_t>(MSpace::Local)) - 4);
  std::vector<WireId> copyWritten;
  for (uint32_t m = 0; m < 4; ++m)
    copyWritten.push_back(c.step(fmt::format("copy {} written", m), w(sel[m]) - w(localStore)));

  // ---- the loads: lane l reads its copy ----
  // The copies' heads fill the bank layers lane by lane (4 layers each, 16 heads a layer), so
  // a lane's slot key and bank selects (192 channels) are decoded in the last layer of the
  // lane before it (notBefore its port 6; lane 0's beside the write key), not all four lanes'
  // at once: live for 5 layers, not up to 17.
  // An atomic reads where its next lane's old value is spelled (the lane's word: its value).
  const Expr isLoad = isOp(MOp::Ld);
  const Expr reads = w(c.exclusiveOr("LD or an atomic's old value", isLoad + w(atomic.oldNext)));
  std::vector<Bus> out;
  std::optional<WireId> previousLane = key[0];
  auto justInTime = [&](WireId x) {
    if (previousLane) c.notBefore(x, *previousLane);
    return x;
  };
  for (uint32_t l = 0; l < 4; ++l) {
    const std::string lane = fmt::format("l{}", l);
    const std::vector<Expr> x = forms(address[l], 0, 13);
    std::vector<WireId> readKey = decodeAddress(c, lane + " slot", slice(address[l], 6, 7));
    for (WireId k : readKey) justInTime(k);
    std::vector<Bus> port(8);
    for (uint32_t p = 0; p < 8; ++p) {
      std::vector<MemoryBank> banks;
      for (uint32_t g = 0; g < 8; ++g) {
        const uint32_t bank = 8 * g + p;
        MemoryBank b;
        b.writeKey = key;
        b.writeEnable = w(enable[bank]) + w(copyWritten[l]) - 1;
        b.data = bankData[p];
        b.readKey = readKey;
        b.readSelect = justInTime(c.step(fmt::format("{} reads bank {}", lane, bank), A * (reads - 1) + covers(x, g, p)));
        banks.push_back(std::move(b));
      }
      port[p] = c.memoryRead(fmt::format("{} memory byte {}", lane, p), std::move(banks));
    }
    previousLane = port[6][0];
    Bus result;
    for (uint32_t q = 0; q < 64; ++q) {
      const uint32_t i = q / 8, t = q % 8;
      Expr terms;
      for (uint32_t v = 0; v < 4; ++v) {
        const uint32_t bytes = 1u << v;
        // The ports that hold byte i of a `bytes`-wide access, over its aligned offsets.
        auto held = [&](uint32_t byte, uint32_t bit) {
          Expr e;
          for (uint32_t o = 0; o + byte < 8; o += bytes) e += w(port[o + byte][bit]);
          return e;
        };
        // The held sum is a bit for an aligned access; an inactive lane's address may be
        // anything, so the selectors outweigh it (8 > the ports summed) and each term stays a bit.
        if (i < bytes)
          terms += w(c.step(fmt::format("{} LD{}[{}]", lane, bytes, q), 8 * (w(width[v]) - 1) + held(i, t) - 1));
        else if (v < 3)  // the fill of a signed load below 8 bytes, up to the register width
          terms += w(c.step(fmt::format("{} LD{} fill[{}]", lane, bytes, q),
                            8 * (w(width[v]) + loadSigned + registerHolds(q) + isLoad - 4) + held(bytes - 1, 7) - 1));
      }
      result.push_back(c.exclusiveOr(fmt::format("{} loaded[{}]", lane, q), terms));
    }
    out.push_back(std::move(result));
  }
  return out;
}

Unit memoryAccessUnit() {
  Unit u{Circuit("memory"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const FrontWires front = buildFront(c);
  const OperandWires operands = buildOperandSelect(c, front);
  const std::vector<Bus> loaded = buildMemoryAccess(c, front, operands, guardedLanes(c, front), countWaits(c, front));
  LaneBuses lb;
  for (uint32_t l = 0; l < 4; ++l) {
    c.outputBus(fmt::format("lane {} loaded", l), loaded[l]);
    lb.results.push_back(loaded[l]);
  }
  u.lanes.push_back(std::move(lb));
  return u;
}

}  // namespace qgpu::compiler
