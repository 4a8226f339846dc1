// Rewrites PTX spellings that ptxas accepts into the core forms the decoder
// lowers, on the syntax tree and before any layout:
//   - vector registers (.reg .v2 .u32 v): one scalar register per element,
//     v.x/v.y/v.z/v.w (and the aliases v.r/v.g/v.b/v.a); a whole vector used as
//     an operand becomes the {v.x, v.y, ...} list;
//   - register+offset operands outside brackets (st.u64 [a], t+1): a hidden add
//     into a temporary register just before the instruction;
//   - .reg parameters and return values of .func: hidden .param variables,
//     an ld.param at the function's start and an st.param before every ret;
//     call arguments that are registers or immediates, and call results that are
//     registers: hidden .param variables with st.param before / ld.param after.
// The hidden names start with "__qgpu_" and every inserted statement carries the
// source location and text of the statement it came from.
#pragma once

#include "qgpu/interp/ptx_ast.h"

namespace qgpu {

void desugarModule(ptx::Module& module);

}  // namespace qgpu
