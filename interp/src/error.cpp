// qgpu::Error and the names of its kinds (the exit-code classes of the CLI).
#include "qgpu/interp/error.h"

namespace qgpu {

const char* errorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Parse: return "parse error";
    case ErrorKind::Decode: return "decode error";
    case ErrorKind::Launch: return "launch error";
    case ErrorKind::Memory: return "memory fault";
    case ErrorKind::Deadlock: return "deadlock";
    case ErrorKind::StepLimit: return "step limit";
    case ErrorKind::Trap: return "trap";
    case ErrorKind::Undefined: return "undefined behaviour";
    case ErrorKind::Input: return "input error";
    case ErrorKind::Backend: return "backend error";
    case ErrorKind::Diverged: return "divergence";
  }
  return "error";
}

}  // namespace qgpu
