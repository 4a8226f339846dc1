// The integer compare unit (machine SETP on integers): chunk comparisons in one level,
// then every compare code as one threshold over the chunks' signed digits, the code's
// selector folded in.
#include <fmt/format.h>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {
namespace {
constexpr uint32_t kChunk = 12;
}

const std::vector<std::string>& compareCodes() {
  static const std::vector<std::string> codes = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
  return codes;
}

Unit compareUnit(uint32_t bits, uint32_t lanes, bool isSigned) {
  Unit u{Circuit(fmt::format("setp.{}{}x{}", isSigned ? "s" : "u", bits, lanes)), {}, {}, {}};
  Circuit& c = u.circuit;
  for (const std::string& code : compareCodes()) {
    u.selectors.push_back(c.inputBit("sel." + code));
    u.selectorNames.push_back(code);
  }
  const uint32_t chunks = (bits + kChunk - 1) / kChunk;
  for (uint32_t l = 0; l < lanes; ++l) {
    LaneBuses lb;
    lb.operands.push_back(c.inputBus(fmt::format("l{}.a", l), bits));
    lb.operands.push_back(c.inputBus(fmt::format("l{}.b", l), bits));
    // D = sum_m d_m 2^m, d_m = [A_m > B_m] - [A_m < B_m]: its sign is the comparison's
    // (the top chunk outweighs all below). Signed: the sign bit counts as -2^(n-1),
    // i.e. flipped in the top chunk.
    Expr du, ds;
    for (uint32_t m = 0; m < chunks; ++m) {
      Expr au, bu, as, bs;
      for (uint32_t i = m * kChunk; i < std::min(bits, (m + 1) * kChunk); ++i) {
        const int64_t k = int64_t{1} << (i - m * kChunk);
        const Expr a = w(lb.operands[0][i]), b = w(lb.operands[1][i]);
        const bool top = i == bits - 1;
        au += k * a;
        bu += k * b;
        as += top ? k * (1 - a) : k * a;
        bs += top ? k * (1 - b) : k * b;
      }
      const std::string n = fmt::format("l{}.chunk{}", l, m);
      const int64_t weight = int64_t{1} << m;
      const Expr digit = w(c.step(n + ".gt", au - bu - 1)) - w(c.step(n + ".lt", bu - au - 1));
      du += weight * digit;
      if (isSigned && m + 1 == chunks)
        ds += weight * (w(c.step(n + ".sgt", as - bs - 1)) - w(c.step(n + ".slt", bs - as - 1)));
      else
        ds += weight * digit;
    }
    const Expr D = isSigned ? ds : du;  // eq..ge compare by the type's signedness
    const Expr U = du;                  // lo..hs are always unsigned
    const int64_t M = int64_t{1} << (chunks + 1);  // beyond |D|: a closed selector wins
    auto sel = [&](size_t code) { return M * (w(u.selectors[code]) - 1); };
    const std::string n = fmt::format("l{}.p", l);
    Expr r;
    // eq = [D >= 0] + [-D >= 0] - 1, each term under its selector.
    Expr eq = w(c.step(n + ".eq1", D + sel(0))) + w(c.step(n + ".eq2", -D + sel(0))) - w(u.selectors[0]);
    Expr neq = w(c.step(n + ".ne1", D + sel(1))) + w(c.step(n + ".ne2", -D + sel(1))) - w(u.selectors[1]);
    r += eq;
    r += w(u.selectors[1]) - neq;
    r += w(c.step(n + ".lt", -D - 1 + sel(2)));
    r += w(c.step(n + ".le", -D + sel(3)));
    r += w(c.step(n + ".gt", D - 1 + sel(4)));
    r += w(c.step(n + ".ge", D + sel(5)));
    r += w(c.step(n + ".lo", -U - 1 + sel(6)));
    r += w(c.step(n + ".ls", -U + sel(7)));
    r += w(c.step(n + ".hi", U - 1 + sel(8)));
    r += w(c.step(n + ".hs", U + sel(9)));
    WireId p = c.sum(n, r);
    c.output(n, p);
    lb.results.push_back({p});
    u.lanes.push_back(std::move(lb));
  }
  return u;
}

}  // namespace qgpu::compiler
