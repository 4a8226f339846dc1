// The memory banks and the loads (load.h, docs/machine.md §5.3).
//
// Writes, in the prompt: a SEGMENT's address (its first chunk, right after SEGMENT) gives
// the segment's first slot (bits 6..12: segments start 64-byte aligned); its data chunks
// (CHUNK-MOREs after its two values) are items counted from the last AT j, so chunk 16 j +
// k - 1 holds the bytes x, x + 1 with x mod 64 = 2 ((k - 1) + 16 (j mod 2)) and slot
// (first slot + j / 2) mod 128: banks 2q, 2q + 1 of every copy take the chunk's low and high
// byte, q from the count and j's bit 0, the slot decoded from a 7-bit sum.
//
// Reads, at an LD step: per lane, the flat address's low 13 bits x (a + b) as proven bits,
// two levels after the operands; the slot key decoded from x's bits 6..12; banks read in
// eight ports p = bank mod 8 (the byte of an aligned 8-byte group), bank 8 g + p selected
// where x's group (bits 3..5) is g and the access covers byte p — for a w-byte access
// aligned to w, byte p is covered where p's bits above log2 w match x's; the bits below are
// x's zeros, so bit k of p matches as (p_k ? x_k + [w > 2^k] : 1 - x_k), a linear term.
// A port not covered reads 0, so byte i of the result is the sum of the ports i + o over
// the offsets o aligned to w, gated by the width; a signed load's fill is the top byte's
// bit 7, gated by the width, the signedness and the register width.
#include "qgpu/compiler/load.h"

#include <fmt/format.h>

#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

using machine::MOp;

namespace {

/// Bits 0..n-1 of (sum_i 2^i a_i) + (sum_i 2^i b_i) as steps, two levels from a and b: bit k
/// is [T >= 2^k] - [T >= 2^(k+1)] + [T >= 3 2^k] of T = the sum's low k + 1 bits' pairs,
/// then re-thresholded into a proven bit (a decoder's key needs steps).
Bus sumBits(Circuit& c, const std::string& name, const std::vector<Expr>& a, const std::vector<Expr>& b, uint32_t n) {
  Bus out;
  Expr t;
  for (uint32_t k = 0; k < n; ++k) {
    const int64_t p = int64_t{1} << k;
    t += p * (a[k] + b[k]);
    const Expr bit = w(c.step(fmt::format("{} >= 1x[{}]", name, k), t - p)) - w(c.step(fmt::format("{} >= 2x[{}]", name, k), t - 2 * p)) +
                     w(c.step(fmt::format("{} >= 3x[{}]", name, k), t - 3 * p));
    out.push_back(c.step(fmt::format("{}[{}]", name, k), bit - 1));
  }
  return out;
}

std::vector<Expr> forms(const Bus& bus, uint32_t from, uint32_t n) {
  std::vector<Expr> e;
  for (uint32_t i = from; i < from + n; ++i) e.push_back(w(bus.at(i)));
  return e;
}

}  // namespace

std::vector<Bus> buildLoad(Circuit& c, const FrontWires& front, const OperandWires& operands) {
  const SequencerWires& s = front.sequencer;
  const PromptFeatures& f = front.prompt;
  const WireId one = s.machineToken;

  // ---- the prompt's writes ----
  const WireId inSegment = lastWritten(c, "in a segment", one, f.sectionHeader, {f.segmentHeader})[0];
  const WireId afterSegment = previousBits(c, "after SEGMENT", {f.segmentHeader}, 1, one)[0];
  const Bus firstSlot = lastWritten(c, "segment slot", one, afterSegment, Bus(f.chunk.begin() + 6, f.chunk.begin() + 13));
  // Its two values (address, bytes) end with CHUNK-LASTs; its data are the CHUNK-MOREs after.
  const Bus values = c.countSince("segment values", f.sectionHeader, s.chunkLast, 2, 1);
  const WireId data = c.step("segment data", w(inSegment) + w(values[1]) + w(f.chunkMore) - 3);
  const WireId itemMark = c.step("segment item mark", w(f.isAt) + w(s.chunkLast) - 1);
  const Bus items = c.countSince("segment items", itemMark, f.chunkMore, 16, 1);  // [k >= 1..16]
  const Bus& at = front.fetch.at;  // the last AT's j (0 from the section header on)
  const Bus slotBits = sumBits(c, "segment chunk slot", forms(firstSlot, 0, 7), forms(at, 1, 7), 7);
  const std::vector<WireId> writeKey = decodeAddress(c, "segment chunk slot", slotBits);
  std::vector<WireId> pairWritten;  // per bank pair q: the chunk is bytes 2q, 2q + 1 of its 64
  for (uint32_t q = 0; q < machine::kMemoryBanks / 2; ++q) {
    const uint32_t k = q % 16 + 1;  // the count at the chunk
    Expr isK = w(items[k - 1]);
    if (k < 16) isK -= w(items[k]);
    const Expr half = q >= 16 ? w(at[0]) : 1 - w(at[0]);
    pairWritten.push_back(c.step(fmt::format("segment bytes {}, {}", 2 * q, 2 * q + 1), w(data) + isK + half - 3));
  }

  // ---- the fields of an LD ----
  const Bus& word = front.fetch.word;
  const WireId isLoad = operands.op.at(static_cast<size_t>(MOp::Ld));
  const Expr ty0 = w(word[machine::kWordTyAt]), ty1 = w(word[machine::kWordTyAt + 1]);
  const Expr loadSigned = w(word[machine::kWordTyAt + 2]);
  // The width one-hot (1, 2, 4, 8 bytes) and [w > 2^k], k = 0..2.
  std::vector<WireId> width;
  for (uint32_t v = 0; v < 4; ++v)
    width.push_back(c.step(fmt::format("LD width {}", 1u << v), bitsMatching(Bus(word.begin() + machine::kWordTyAt, word.begin() + machine::kWordTyAt + 2), v) - 2));
  const std::array<Expr, 3> wider = {ty0 + ty1 - w(width[3]), ty1, w(width[3])};
  // The register width code (c) one-hot: [register bytes > q / 8] for the fill of bit q.
  std::vector<WireId> reg;
  for (uint32_t v = 0; v < 4; ++v)
    reg.push_back(c.step(fmt::format("LD register width {}", 1u << v), bitsMatching(Bus(word.begin() + machine::kWordCAt, word.begin() + machine::kWordCAt + 2), v) - 2));
  auto registerHolds = [&](uint32_t q) {
    Expr e;
    for (uint32_t v = 0; v < 4; ++v)
      if ((8u << v) > q) e += w(reg[v]);
    return e;
  };

  std::vector<Bus> out;
  for (uint32_t l = 0; l < 4; ++l) {
    const std::string lane = fmt::format("l{}", l);
    const Bus x = sumBits(c, lane + " address", forms(operands.selected[l], 0, 13), forms(operands.selected[4 + l], 0, 13), 13);
    const std::vector<WireId> readKey = decodeAddress(c, lane + " slot", Bus(x.begin() + 6, x.end()));
    constexpr int64_t A = 16;  // the group's and op's weight: above twice the byte terms' interval (8)
    std::vector<Bus> port(8);
    for (uint32_t p = 0; p < 8; ++p) {
      std::vector<MemoryBank> banks;
      for (uint32_t g = 0; g < 8; ++g) {
        Expr cond = A * (w(isLoad) - 1) - 3;
        for (uint32_t k = 3; k < 6; ++k) cond += A * (((g >> (k - 3)) & 1 ? w(x[k]) : 1 - w(x[k])) - 1);
        for (uint32_t k = 0; k < 3; ++k) cond += (p >> k) & 1 ? w(x[k]) + wider[k] : 1 - w(x[k]);
        const uint32_t bank = 8 * g + p;
        MemoryBank b;
        b.writeKey = writeKey;
        b.writeEnable = w(pairWritten[bank / 2]);
        b.data = Bus(f.chunk.begin() + 8 * (bank % 2), f.chunk.begin() + 8 * (bank % 2) + 8);
        b.readKey = readKey;
        b.readSelect = c.step(fmt::format("{} reads bank {}", lane, bank), cond);
        banks.push_back(std::move(b));
      }
      port[p] = c.memoryRead(fmt::format("{} memory byte {}", lane, p), std::move(banks));
    }
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
                            8 * (w(width[v]) + loadSigned + registerHolds(q) - 3) + held(bytes - 1, 7) - 1));
      }
      result.push_back(c.exclusiveOr(fmt::format("{} loaded[{}]", lane, q), terms));
    }
    out.push_back(std::move(result));
  }
  return out;
}

Unit loadUnit() {
  Unit u{Circuit("load"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const FrontWires front = buildFront(c);
  const OperandWires operands = buildOperandSelect(c, front);
  const std::vector<Bus> loaded = buildLoad(c, front, operands);
  LaneBuses lb;
  for (uint32_t l = 0; l < 4; ++l) {
    c.outputBus(fmt::format("lane {} loaded", l), loaded[l]);
    lb.results.push_back(loaded[l]);
  }
  u.lanes.push_back(std::move(lb));
  return u;
}

}  // namespace qgpu::compiler
