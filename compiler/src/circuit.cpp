// Circuit IR construction (with the range of every wire derived as it is built) and
// the exact integer evaluator.
#include "qgpu/compiler/circuit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>

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
    case NodeKind::MemoryRead: return "memory read";
    case NodeKind::LookupRead: return "lookup read";
    case NodeKind::CountRead: return "count read";
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

WireId Circuit::exclusiveOr(const std::string& name, const std::vector<WireId>& bits) {
  Expr e;
  for (WireId b : bits) {
    if (b >= nodes_.size() || !nodes_[b].range.isBit())
      throw CompileError(fmt::format("{}: exclusive or '{}' reads '{}', which is not a bit", name_, name,
                                     b < nodes_.size() ? nodes_[b].name : "?"));
    e += w(b);
  }
  if (e.terms.size() != bits.size())
    throw CompileError(fmt::format("{}: exclusive or '{}' reads a wire twice", name_, name));
  return exclusiveOr(name, std::move(e));
}

WireId Circuit::exclusiveOr(const std::string& name, Expr e) {
  checkWires(e, name);
  Node n;
  n.kind = NodeKind::Sum;
  n.name = name;
  n.range = {0, 1};
  n.structuralBit = true;
  n.exclusive = true;
  n.ownChannel = true;
  n.value = std::move(e);
  return add(std::move(n));
}

WireId Circuit::channel(const std::string& name, Expr e) {
  const WireId id = sum(name, std::move(e));
  nodes_[id].ownChannel = true;  // a sum the planner writes into a channel of its own
  return id;
}

WireId Circuit::exclusiveSum(const std::string& name, Expr e, Range declared) {
  checkWires(e, name);
  Node n;
  n.kind = NodeKind::Sum;
  n.name = name;
  n.range = declared;
  n.structuralBit = declared.isBit();
  n.exclusive = true;
  n.ownChannel = true;
  n.value = std::move(e);
  return add(std::move(n));
}

void Circuit::notBefore(WireId id, WireId other, uint32_t levelsAfter) {
  if (id >= nodes_.size() || other >= id)
    throw CompileError(fmt::format("{}: notBefore: wire {} must follow wire {}", name_, id, other));
  Node& n = nodes_[id];
  if (n.kind != NodeKind::Step && n.kind != NodeKind::Gate)
    throw CompileError(fmt::format("{}: notBefore: '{}' is no step or gate", name_, n.name));
  n.notBefore = other;
  n.notBeforeGap = levelsAfter;
}

void Circuit::exclusiveGroup(const std::string& name, const std::vector<WireId>& bits) {
  std::set<WireId> seen;
  for (WireId b : bits) {
    if (b >= nodes_.size() || !nodes_[b].structuralBit)
      throw CompileError(fmt::format("{}: exclusive group '{}': wire {} is not a structural bit", name_, name, b));
    if (!seen.insert(b).second) throw CompileError(fmt::format("{}: exclusive group '{}' holds '{}' twice", name_, name, nodes_[b].name));
  }
  groups_.emplace_back(name, bits);
}

bool Circuit::declaredExclusive(const std::vector<WireId>& bits) const {
  for (const auto& [name, group] : groups_) {
    const std::set<WireId> g(group.begin(), group.end());
    if (std::all_of(bits.begin(), bits.end(), [&](WireId b) { return g.count(b) != 0; })) return true;
  }
  return false;
}

const FlatForms& Circuit::flatForms() const {
  if (flat_ && flat_->nodes.size() == nodes_.size()) return *flat_;
  auto f = std::make_shared<FlatForms>();
  auto terms = [&](const Expr& e) {
    for (const Term& t : e.terms) {
      f->wire.push_back(t.wire);
      f->coeff.push_back(t.coeff);
    }
    return static_cast<uint32_t>(f->wire.size());
  };
  for (const Node& n : nodes_) {
    FlatForms::FlatNode x;
    x.kind = n.kind;
    x.control = n.control;
    x.lo = n.range.lo;
    x.hi = n.range.hi;
    x.condConstant = n.cond.constant;
    x.valueConstant = n.value.constant;
    x.condBegin = static_cast<uint32_t>(f->wire.size());
    if (n.kind == NodeKind::Step || n.kind == NodeKind::Gate || n.kind == NodeKind::Sum) {
      x.condEnd = terms(n.cond);
      x.valueEnd = terms(n.value);
    } else {
      x.condEnd = x.valueEnd = x.condBegin;
    }
    f->nodes.push_back(x);
  }
  flat_ = std::move(f);
  return *flat_;
}

std::vector<WireId> Circuit::reads(WireId id) const {
  const Node& n = nodes_.at(id);
  std::vector<WireId> r;
  for (const Expr* e : {&n.cond, &n.value})
    for (const Term& t : e->terms) r.push_back(t.wire);
  if (n.kind == NodeKind::Gate) r.push_back(n.control);
  if (n.kind == NodeKind::LookupRead) {
    const Lookup& l = lookups_.at(n.port);
    for (const Bus* b : {&l.key, &l.queries.at(n.query), &l.value}) r.insert(r.end(), b->begin(), b->end());
  }
  if (n.kind == NodeKind::CountRead) {
    r.push_back(counters_.at(n.port).marker);
    r.push_back(counters_.at(n.port).counted);
  }
  if (n.kind == NodeKind::MemoryRead)
    for (const MemoryBank& b : memories_.at(n.port).banks) {
      r.insert(r.end(), b.writeKey.begin(), b.writeKey.end());
      r.insert(r.end(), b.readKey.begin(), b.readKey.end());
      r.insert(r.end(), b.data.begin(), b.data.end());
      for (const Term& t : b.writeEnable.terms) r.push_back(t.wire);
      if (b.readSelect) r.push_back(*b.readSelect);
    }
  return r;
}

bool Circuit::mutuallyExclusive(const std::vector<WireId>& bits) const {
  for (WireId b : bits) {
    const Node& n = nodes_.at(b);
    if (n.kind != NodeKind::Step || !n.structuralBit) return bits.size() <= 1;
  }
  for (size_t i = 0; i < bits.size(); ++i)
    for (size_t j = i + 1; j < bits.size(); ++j)
      if (rangeOf(nodes_[bits[i]].cond + nodes_[bits[j]].cond).hi >= 0) return false;
  return true;
}

Bus Circuit::readBits(NodeKind kind, const std::string& name, uint32_t port, uint32_t width) {
  Bus out;
  for (uint32_t i = 0; i < width; ++i) {
    Node n;
    n.kind = kind;
    n.name = fmt::format("{}[{}]", name, i);
    n.range = {0, 1};
    n.port = port;
    n.bit = i;
    out.push_back(add(std::move(n)));
  }
  return out;
}

Bus Circuit::memoryRead(const std::string& name, std::vector<MemoryBank> banks) {
  if (banks.empty()) throw CompileError(fmt::format("{}: memory port '{}' has no bank", name_, name));
  const size_t width = banks[0].data.size();
  std::vector<WireId> selects;
  for (size_t i = 0; i < banks.size(); ++i) {
    const MemoryBank& b = banks[i];
    const std::string where = fmt::format("memory port '{}', bank {}", name, i);
    if (b.data.size() != width || width == 0 || width > kBankBits)
      throw CompileError(fmt::format("{}: {}: {} data bits (every bank of a port holds the same 1..{})", name_, where,
                                     b.data.size(), kBankBits));
    if (b.delay > kMaxDelay)
      throw CompileError(fmt::format("{}: {}: delay {} (the conv window reaches {} positions back)", name_, where, b.delay,
                                     kMaxDelay));
    if (b.writeKey.size() > kBankSlots || b.readKey.size() > kBankSlots)
      throw CompileError(fmt::format("{}: {}: more than {} slots", name_, where, kBankSlots));
    checkWires(b.writeEnable, where);
    if (rangeOf(b.writeEnable).hi > 1)
      throw CompileError(fmt::format("{}: {}: the write enable can exceed 1", name_, where));
    auto bits = [&](const std::vector<WireId>& ws, const char* what) {
      for (WireId x : ws)
        if (x >= nodes_.size() || !nodes_[x].structuralBit)
          throw CompileError(fmt::format("{}: {}: {} wire {} is not a structural bit", name_, where, what, x));
    };
    bits(b.writeKey, "write key");
    bits(b.readKey, "read key");
    bits(b.data, "data");
    if (!mutuallyExclusive(b.writeKey) || !mutuallyExclusive(b.readKey))
      throw CompileError(fmt::format("{}: {}: its keys are not provably one-hot (steps of one decoder)", name_, where));
    if (b.readSelect) {
      bits({*b.readSelect}, "read select");
      selects.push_back(*b.readSelect);
    } else if (banks.size() > 1) {
      throw CompileError(fmt::format("{}: {}: a port of several banks needs a read select per bank", name_, where));
    }
  }
  if (!mutuallyExclusive(selects))
    throw CompileError(fmt::format("{}: memory port '{}': its banks' read selects are not provably exclusive", name_, name));
  const uint32_t port = static_cast<uint32_t>(memories_.size());
  memories_.push_back({name, std::move(banks), {}});
  memories_[port].read = readBits(NodeKind::MemoryRead, name, port, static_cast<uint32_t>(width));
  return memories_[port].read;
}

Bus Circuit::lookup(const std::string& name, const Bus& key, const Bus& query, const Bus& value) {
  return lookup(name, key, std::vector<Bus>{query}, value).front();
}

std::vector<Bus> Circuit::lookup(const std::string& name, const Bus& key, const std::vector<Bus>& queries,
                                 const Bus& value) {
  if (queries.empty() || queries.size() > kMaxLookupQueries)
    throw CompileError(fmt::format("{}: lookup '{}': {} queries (1..{})", name_, name, queries.size(), kMaxLookupQueries));
  for (const Bus& query : queries)
    if (key.size() != query.size() || key.empty() || key.size() > kLookupKeyBits)
      throw CompileError(fmt::format("{}: lookup '{}': key and query must have the same 1..{} bits ({} and {})", name_,
                                     name, kLookupKeyBits, key.size(), query.size()));
  if (value.empty() || value.size() > 128)
    throw CompileError(fmt::format("{}: lookup '{}': {} value bits (1..128)", name_, name, value.size()));
  std::vector<const Bus*> buses{&key, &value};
  for (const Bus& query : queries) buses.push_back(&query);
  for (const Bus* b : buses)
    for (WireId x : *b)
      if (x >= nodes_.size() || !nodes_[x].structuralBit)
        throw CompileError(fmt::format("{}: lookup '{}': wire {} is not a structural bit", name_, name, x));
  const uint32_t index = static_cast<uint32_t>(lookups_.size());
  lookups_.push_back({name, key, value, queries, {}});
  for (uint32_t q = 0; q < queries.size(); ++q) {
    const std::string readName = queries.size() == 1 ? name : fmt::format("{} query {}", name, q);
    Bus read = readBits(NodeKind::LookupRead, readName, index, static_cast<uint32_t>(value.size()));
    for (WireId r : read) nodes_[r].query = q;
    lookups_[index].reads.push_back(std::move(read));
  }
  return lookups_[index].reads;
}

Bus Circuit::countSince(const std::string& name, WireId marker, WireId counted, uint32_t bits, uint32_t from) {
  if (bits == 0 || bits > kMaxCountBits)
    throw CompileError(fmt::format("{}: counter '{}': {} bits (1..{}: one layer of threshold heads)", name_, name, bits,
                                   kMaxCountBits));
  if (from == 0 || from + bits > 33)
    throw CompileError(fmt::format("{}: counter '{}': thresholds {}..{} (1..32: the levels its read separates)", name_,
                                   name, from, from + bits - 1));
  for (WireId x : {marker, counted})
    if (x >= nodes_.size() || !nodes_[x].structuralBit)
      throw CompileError(fmt::format("{}: counter '{}': wire {} is not a structural bit", name_, name, x));
  const uint32_t index = static_cast<uint32_t>(counters_.size());
  counters_.push_back({name, marker, counted, from, {}});
  counters_[index].atLeast = readBits(NodeKind::CountRead, name, index, bits);
  return counters_[index].atLeast;
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

Evaluator::Evaluator(const Circuit& c) : c_(c) {
  for (const MemoryPort& p : c.memories()) {
    slots_.emplace_back(p.banks.size());
    history_.emplace_back(p.banks.size(), std::vector<uint64_t>(kMaxDelay + 1, 0));
  }
  stored_.resize(c.lookups().size());
  positions_.assign(c.lookups().size(), 0);
  counts_.assign(c.counters().size(), -1);
}

std::vector<int64_t> Evaluator::step(const std::vector<int64_t>& inputs) {
  const Circuit& c = c_;
  if (inputs.size() != c.inputs().size())
    throw CompileError(fmt::format("{}: {} input values for {} inputs", c.name(), inputs.size(), c.inputs().size()));
  std::vector<int64_t> v(c.nodes().size(), 0);
  std::vector<std::vector<uint64_t>> answer(c.memories().size());  // per port, per bank
  std::vector<std::vector<const std::vector<int64_t>*>> lookupValue(c.lookups().size());  // per lookup, query: the match
  for (size_t l = 0; l < c.lookups().size(); ++l) lookupValue[l].assign(c.lookups()[l].queries.size(), nullptr);
  std::vector<bool> lookupStored(c.lookups().size(), false);  // per lookup: this position stored
  std::vector<bool> counted(c.counters().size(), false);           // per counter: this position taken
  // The one slot a key selects (nullopt: none); more than one is an error.
  auto slotOf = [&](const std::vector<WireId>& key, const std::string& where) -> std::optional<uint32_t> {
    std::optional<uint32_t> s;
    for (uint32_t j = 0; j < key.size(); ++j)
      if (v[key[j]]) {
        if (s) throw CompileError(fmt::format("{}: {}: key is not one-hot (slots {} and {})", c.name(), where, *s, j));
        s = j;
      }
    return s;
  };
  const FlatForms& flat = c.flatForms();
  const WireId* wire = flat.wire.data();
  const int64_t* coeff = flat.coeff.data();
  auto form = [&](uint32_t begin, uint32_t end, int64_t constant) {
    i128 s = constant;
    for (uint32_t j = begin; j < end; ++j) s += static_cast<i128>(coeff[j]) * v[wire[j]];
    return static_cast<int64_t>(s);
  };
  size_t next = 0;
  for (size_t i = 0; i < c.nodes().size(); ++i) {
    const FlatForms::FlatNode& f = flat.nodes[i];
    switch (f.kind) {
      case NodeKind::Input: v[i] = inputs[next++]; break;
      case NodeKind::Step:
        v[i] = form(f.condBegin, f.condEnd, f.condConstant) >= 0 ? form(f.condEnd, f.valueEnd, f.valueConstant) : 0;
        break;
      case NodeKind::Gate: v[i] = v[f.control] ? form(f.condEnd, f.valueEnd, f.valueConstant) : 0; break;
      case NodeKind::Sum: v[i] = form(f.condEnd, f.valueEnd, f.valueConstant); break;
      default: {  // the reads: lookups, counters, memory ports
        const Node& n = c.nodes()[i];
        switch (n.kind) {
          case NodeKind::LookupRead: {
            const Lookup& l = c.lookups()[n.port];
            auto& stored = stored_[n.port];
            if (!lookupStored[n.port]) {  // the lookup's first bit: store this position
              lookupStored[n.port] = true;
              Stored& here = stored[busValue(v, l.key)];
              ++here.count;
              here.value.clear();
              for (WireId x : l.value) {
                here.value.push_back(v[x]);
                here.allZero = here.allZero && v[x] == 0;  // several matches are exact when all their values are 0
              }
              ++positions_[n.port];
            }
            const std::vector<int64_t>*& match = lookupValue[n.port][n.query];
            if (!match) {  // the query's first bit: find its key
              const uint64_t q = busValue(v, l.queries[n.query]);
              auto it = stored.find(q);
              const size_t found = it == stored.end() ? 0 : it->second.count;
              if (found != 1 && !(found > 1 && it->second.allZero))
                throw CompileError(fmt::format("{}: lookup '{}' at position {}: {} positions hold the key {:#x} (exactly one "
                                               "must, or several all of whose values are 0: the softmax is exact only then)",
                                               c.name(), l.name, positions_[n.port] - 1, found, q));
              match = &it->second.value;
            }
            v[i] = (*match)[n.bit];
            break;
          }
          case NodeKind::CountRead: {
            const Counter& k = c.counters()[n.port];
            int64_t& count = counts_[n.port];
            if (!counted[n.port]) {  // the counter's first bit: this position's marker or count
              counted[n.port] = true;
              if (v[k.marker]) count = 0;
              else if (v[k.counted] && count >= 0) ++count;
            }
            v[i] = count < 0 || count >= static_cast<int64_t>(n.bit + k.from) ? 1 : 0;
            break;
          }
          case NodeKind::MemoryRead: {
            const MemoryPort& p = c.memories()[n.port];
            if (answer[n.port].empty()) {  // the port's first bit: every bank writes, then reads
              answer[n.port].assign(p.banks.size(), 0);
              uint32_t selected = 0;
              for (size_t b = 0; b < p.banks.size(); ++b) {
                const MemoryBank& bank = p.banks[b];
                const std::string where = fmt::format("memory port '{}', bank {}", p.name, b);
                auto& slots = slots_[n.port][b];
                auto& history = history_[n.port][b];  // history[d]: the data d positions back
                history.insert(history.begin(), busValue(v, bank.data));
                history.pop_back();
                if (value(bank.writeEnable, v) == 1)
                  if (auto s = slotOf(bank.writeKey, where + " write")) slots[*s] = history[bank.delay];
                if (bank.readSelect && !v[*bank.readSelect]) continue;
                ++selected;
                if (auto s = slotOf(bank.readKey, where + " read")) {
                  auto it = slots.find(*s);
                  if (it != slots.end()) answer[n.port][b] = it->second;
                }
              }
              if (selected > 1 && p.banks.size() > 1)
                throw CompileError(fmt::format("{}: memory port '{}': {} banks selected", c.name(), p.name, selected));
            }
            for (uint64_t a : answer[n.port]) v[i] += static_cast<int64_t>((a >> n.bit) & 1);
            break;
          }
          default: break;
        }
      }
    }
    if (v[i] < f.lo || v[i] > f.hi) {
      const Node& n = c.nodes()[i];
      throw CompileError(fmt::format("{}: {} '{}' = {} is outside its range [{}, {}]", c.name(),
                                     nodeKindName(n.kind), n.name, v[i], n.range.lo, n.range.hi));
    }
  }
  for (const auto& [name, group] : c.exclusiveGroups()) {
    if (std::count_if(group.begin(), group.end(), [&](WireId b) { return v[b] != 0; }) < 2) continue;
    std::vector<std::string> on;  // the error's names, built only for the error
    for (WireId b : group)
      if (v[b]) on.push_back(c.node(b).name);
    throw CompileError(fmt::format("{}: exclusive group '{}': {} are 1 at once ({})", c.name(), name, on.size(),
                                   fmt::join(on, ", ")));
  }
  return v;
}

std::vector<int64_t> Evaluator::stepOutputs(const std::vector<int64_t>& inputs) {
  std::vector<int64_t> v = step(inputs), out;
  for (const auto& [name, wire] : c_.outputs()) out.push_back(v[wire]);
  return out;
}

std::vector<int64_t> evaluate(const Circuit& c, const std::vector<int64_t>& inputs) { return Evaluator(c).step(inputs); }

std::vector<int64_t> evaluateOutputs(const Circuit& c, const std::vector<int64_t>& inputs) {
  return Evaluator(c).stepOutputs(inputs);
}

uint64_t busValue(const std::vector<int64_t>& values, const Bus& bus) {
  uint64_t x = 0;
  for (size_t i = 0; i < bus.size(); ++i)
    if (values.at(bus[i])) x |= uint64_t{1} << i;
  return x;
}

}  // namespace qgpu::compiler
