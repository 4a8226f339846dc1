// Handler templates: the lane loop lives here, once; an op supplies only its
// per-lane body `static R apply(const Instr&, A...)`.
#pragma once

#include "exec_context.h"

namespace qgpu {

/// Instructions with no effect on values in a sequentially consistent
/// interpreter (fences, prefetch, nanosleep).
inline void noopHandler(const Instr&, ExecContext&, uint32_t) {}

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

/// H<T>::run for the C++ type T of a PTX integer type (or, with
/// allowFloat, f32/f64); nullptr for other types. The one place that maps
/// PTX types to host types for handler templates.
template <template <class> class H, bool AllowFloat = false>
Handler pickByType(ScalarType t) {
  switch (t) {
    case ScalarType::U16: case ScalarType::B16: return &H<uint16_t>::run;
    case ScalarType::S16: return &H<int16_t>::run;
    case ScalarType::U32: case ScalarType::B32: return &H<uint32_t>::run;
    case ScalarType::S32: return &H<int32_t>::run;
    case ScalarType::U64: case ScalarType::B64: return &H<uint64_t>::run;
    case ScalarType::S64: return &H<int64_t>::run;
    case ScalarType::F32:
      if constexpr (AllowFloat) return &H<float>::run;
      return nullptr;
    case ScalarType::F64:
      if constexpr (AllowFloat) return &H<double>::run;
      return nullptr;
    default: return nullptr;
  }
}

/// Binds a per-lane Op<T> to a handler shape (Unary/Binary/Ternary) as H<T>.
template <template <class> class Op, template <class, class> class Shape>
struct Bind {
  template <class T>
  struct As {
    static void run(const Instr& in, ExecContext& c, uint32_t m) { Shape<T, Op<T>>::run(in, c, m); }
  };
};

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
