// Circuit IR construction (with the range of every wire derived as it is built) and
// the exact integer evaluator.
#include "qgpu/compiler/circuit.h"

#include <fmt/format.h>

#include <algorithm>

#include "qgpu/compiler/error.h"

namespace qgpu::compiler {
namespace {

__extension__ using i128 = __int128;  // exact products of 64-bit ranges

constexpr i128 kRangeLimit = static_cast<i128>(1) << 62;

int64_t checked(i128 v, const std::string& where) {
  if (v >= kRangeLimit || v <= -kRangeLimit)
    throw CompileError(fmt::format("{}: value range exceeds 2^62", where));
  return static_cast<int64_t>(v);
}

void addTerm(Expr& e, WireId wire, int64_t coeff) {
  for (Term& t : e.terms)
    if (t.wire == wire) {
      t.coeff += coeff;
      return;
    }
  e.terms.push_back({wire, coeff});
}

void dropZeros(Expr& e) {
  e.terms.erase(std::remove_if(e.terms.begin(), e.terms.end(), [](const Term& t) { return t.coeff == 0; }),
                e.terms.end());
}

}  // namespace

Expr& Expr::operator+=(const Expr& o) {
  constant += o.constant;
  for (const Term& t : o.terms) addTerm(*this, t.wire, t.coeff);
  dropZeros(*this);
  return *this;
}
Expr& Expr::operator-=(const Expr& o) { return *this += -o; }
Expr& Expr::operator*=(int64_t k) {
  constant *= k;
  for (Term& t : terms) t.coeff *= k;
  dropZeros(*this);
  return *this;
}
Expr operator+(Expr a, const Expr& b) { return a += b; }
Expr operator-(Expr a, const Expr& b) { return a -= b; }
Expr operator-(Expr a) { return a *= -1; }
Expr operator*(int64_t k, Expr a) { return a *= k; }
Expr operator*(Expr a, int64_t k) { return a *= k; }

const char* nodeKindName(NodeKind k) {
  switch (k) {
    case NodeKind::Input: return "input";
    case NodeKind::Step: return "step";
    case NodeKind::Gate: return "gate";
    case NodeKind::Sum: return "sum";
  }
  return "?";
}

bool sameTerms(const Expr& a, const Expr& b) {
  if (a.terms.size() != b.terms.size()) return false;
  for (size_t i = 0; i < a.terms.size(); ++i)
    if (a.terms[i].wire != b.terms[i].wire || a.terms[i].coeff != b.terms[i].coeff) return false;
  return true;
}

// Steps of value 1 whose conditions differ only in the constant test one form X against
// thresholds: [X + k >= 0] is nested in k, so at any input the steps that are on are those
// of the largest constants. Their weighted sum is one of the prefix sums in that order.

Range Circuit::rangeOf(const Expr& e) const {
  i128 lo = e.constant, hi = e.constant;
  std::vector<bool> done(e.terms.size(), false);
  for (size_t i = 0; i < e.terms.size(); ++i) {
    if (done[i]) continue;
    const Node& n = nodes_.at(e.terms[i].wire);
    if (n.kind == NodeKind::Step && n.structuralBit) {
      // The chain of steps on n's form among the remaining terms.
      std::vector<std::pair<int64_t, int64_t>> chain;  // (cond constant, coefficient)
      for (size_t j = i; j < e.terms.size(); ++j) {
        const Node& m = nodes_.at(e.terms[j].wire);
        if (done[j] || m.kind != NodeKind::Step || !m.structuralBit || !sameTerms(m.cond, n.cond)) continue;
        done[j] = true;
        chain.push_back({m.cond.constant, e.terms[j].coeff});
      }
      std::sort(chain.begin(), chain.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      i128 prefix = 0, cmin = 0, cmax = 0;
      for (const auto& [k, coeff] : chain) {
        prefix += coeff;
        cmin = std::min(cmin, prefix);
        cmax = std::max(cmax, prefix);
      }
      lo += cmin;
      hi += cmax;
      continue;
    }
    done[i] = true;
    const Range& r = n.range;
    i128 a = static_cast<i128>(e.terms[i].coeff) * r.lo, b = static_cast<i128>(e.terms[i].coeff) * r.hi;
    lo += std::min(a, b);
    hi += std::max(a, b);
  }
  return {checked(lo, name_), checked(hi, name_)};
}

void Circuit::checkWires(const Expr& e, const std::string& where) const {
  for (const Term& t : e.terms)
    if (t.wire >= nodes_.size())
      throw CompileError(fmt::format("{}: gate '{}' reads wire {} that does not exist", name_, where, t.wire));
}

WireId Circuit::add(Node n) {
  nodes_.push_back(std::move(n));
  return static_cast<WireId>(nodes_.size() - 1);
}

WireId Circuit::input(const std::string& name, Range r) {
  if (r.lo > r.hi) throw CompileError(fmt::format("{}: input '{}' has an empty range", name_, name));
  Node n;
  n.kind = NodeKind::Input;
  n.name = name;
  n.range = r;
  n.structuralBit = r.isBit();
  WireId id = add(std::move(n));
  inputs_.push_back(id);
  return id;
}

Bus Circuit::inputBus(const std::string& name, uint32_t bits) {
  Bus b;
  for (uint32_t i = 0; i < bits; ++i) b.push_back(inputBit(fmt::format("{}[{}]", name, i)));
  return b;
}

WireId Circuit::step(const std::string& name, Expr cond, Expr value) {
  checkWires(cond, name);
  checkWires(value, name);
  Node n;
  n.kind = NodeKind::Step;
  n.name = name;
  Range v = rangeOf(value), c = rangeOf(cond);
  n.range = {std::min<int64_t>(0, v.lo), std::max<int64_t>(0, v.hi)};
  if (c.lo >= 0) n.range = v;         // always on
  if (c.hi < 0) n.range = {0, 0};     // never on
  n.structuralBit = value.terms.empty() && value.constant == 1;
  n.cond = std::move(cond);
  n.value = std::move(value);
  return add(std::move(n));
}

WireId Circuit::gate(const std::string& name, WireId control, Expr value) {
  checkWires(value, name);
  if (control >= nodes_.size() || !nodes_[control].structuralBit)
    throw CompileError(fmt::format("{}: gate '{}' is controlled by '{}', which is not a structural bit "
                                   "(a bit input or a step of value 1)",
                                   name_, name, control < nodes_.size() ? nodes_[control].name : "?"));
  Node n;
  n.kind = NodeKind::Gate;
  n.name = name;
  Range v = rangeOf(value);
  n.range = {std::min<int64_t>(0, v.lo), std::max<int64_t>(0, v.hi)};
  n.control = control;
  n.value = std::move(value);
  return add(std::move(n));
}

WireId Circuit::sum(const std::string& name, Expr e) {
  checkWires(e, name);
  Node n;
  n.kind = NodeKind::Sum;
  n.name = name;
  n.range = rangeOf(e);
  n.value = std::move(e);
  return add(std::move(n));
}

void Circuit::output(const std::string& name, WireId wire) {
  if (wire >= nodes_.size()) throw CompileError(fmt::format("{}: output '{}' names no wire", name_, name));
  outputs_.push_back({name, wire});
}

void Circuit::outputBus(const std::string& name, const Bus& bus) {
  for (size_t i = 0; i < bus.size(); ++i) output(fmt::format("{}[{}]", name, i), bus[i]);
}

namespace {
int64_t value(const Expr& e, const std::vector<int64_t>& v) {
  i128 s = e.constant;
  for (const Term& t : e.terms) s += static_cast<i128>(t.coeff) * v[t.wire];
  return static_cast<int64_t>(s);
}
}  // namespace

std::vector<int64_t> evaluate(const Circuit& c, const std::vector<int64_t>& inputs) {
  if (inputs.size() != c.inputs().size())
    throw CompileError(fmt::format("{}: {} input values for {} inputs", c.name(), inputs.size(), c.inputs().size()));
  std::vector<int64_t> v(c.nodes().size(), 0);
  size_t next = 0;
  for (size_t i = 0; i < c.nodes().size(); ++i) {
    const Node& n = c.nodes()[i];
    switch (n.kind) {
      case NodeKind::Input: v[i] = inputs[next++]; break;
      case NodeKind::Step: v[i] = value(n.cond, v) >= 0 ? value(n.value, v) : 0; break;
      case NodeKind::Gate: v[i] = v[n.control] ? value(n.value, v) : 0; break;
      case NodeKind::Sum: v[i] = value(n.value, v); break;
    }
    if (v[i] < n.range.lo || v[i] > n.range.hi)
      throw CompileError(fmt::format("{}: {} '{}' = {} is outside its range [{}, {}]", c.name(),
                                     nodeKindName(n.kind), n.name, v[i], n.range.lo, n.range.hi));
  }
  return v;
}

std::vector<int64_t> evaluateOutputs(const Circuit& c, const std::vector<int64_t>& inputs) {
  std::vector<int64_t> v = evaluate(c, inputs), out;
  for (const auto& [name, wire] : c.outputs()) out.push_back(v[wire]);
  return out;
}

uint64_t busValue(const std::vector<int64_t>& values, const Bus& bus) {
  uint64_t x = 0;
  for (size_t i = 0; i < bus.size(); ++i)
    if (values.at(bus[i])) x |= uint64_t{1} << i;
  return x;
}

}  // namespace qgpu::compiler
