// Handler templates: the lane loop lives here, once; an op supplies only its
// per-lane body `static R apply(const Instr&, A...)`.
#pragma once

#include "exec_context.h"

namespace qgpu {

template <class T, class Op>
void unaryHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  forLanes(c, m, [&](uint32_t l) { d[l] = bitsOf(Op::apply(in, as<T>(a[l]))); });
}

template <class T, class Op>
void binaryHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  forLanes(c, m, [&](uint32_t l) { d[l] = bitsOf(Op::apply(in, as<T>(a[l]), as<T>(b[l]))); });
}

template <class T, class Op>
void ternaryHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const uint64_t* x = c.reg(in.s[2]);
  forLanes(c, m, [&](uint32_t l) {
    d[l] = bitsOf(Op::apply(in, as<T>(a[l]), as<T>(b[l]), as<T>(x[l])));
  });
}

/// Picks Op<T> instantiated for the C++ type of an integer PTX type.
template <template <class> class Op, template <class, class> class Shape>
Handler pickInteger(ScalarType t) {
  switch (t) {
    case ScalarType::U16: case ScalarType::B16: return &Shape<uint16_t, Op<uint16_t>>::run;
    case ScalarType::S16: return &Shape<int16_t, Op<int16_t>>::run;
    case ScalarType::U32: case ScalarType::B32: return &Shape<uint32_t, Op<uint32_t>>::run;
    case ScalarType::S32: return &Shape<int32_t, Op<int32_t>>::run;
    case ScalarType::U64: case ScalarType::B64: return &Shape<uint64_t, Op<uint64_t>>::run;
    case ScalarType::S64: return &Shape<int64_t, Op<int64_t>>::run;
    default: return nullptr;
  }
}

template <class T, class Op>
struct Unary {
  static void run(const Instr& in, ExecContext& c, uint32_t m) { unaryHandler<T, Op>(in, c, m); }
};
template <class T, class Op>
struct Binary {
  static void run(const Instr& in, ExecContext& c, uint32_t m) { binaryHandler<T, Op>(in, c, m); }
};
template <class T, class Op>
struct Ternary {
  static void run(const Instr& in, ExecContext& c, uint32_t m) { ternaryHandler<T, Op>(in, c, m); }
};

}  // namespace qgpu
