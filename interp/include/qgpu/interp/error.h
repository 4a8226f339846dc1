// Errors of the interpreter library.
//
// The library never prints or exits: every problem (malformed PTX, a launch
// that does not match the kernel, a memory fault, a deadlock, a runaway loop)
// is thrown as qgpu::Error with a kind and a message that names where and why.
// Only the CLI turns errors into text on stderr and exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace qgpu {

enum class ErrorKind {
  Parse,      // PTX text the front end does not understand
  Decode,     // well-formed PTX that cannot be lowered (unknown op/type, bad operand)
  Launch,     // launch spec does not fit the kernel (params, sizes, geometry)
  Memory,     // out-of-bounds / misaligned / bad-space access
  Deadlock,   // barrier or warp-collective that can never complete
  StepLimit,  // --max-steps exceeded (runaway loop)
  Trap,       // the kernel executed trap
  Undefined,  // PTX whose result is undefined (e.g. shfl from an inactive lane)
  Input,      // bad files or options outside the PTX (JSON, goldens, CLI)
  Backend,    // a backend could not run (e.g. no CUDA driver, an op the compiled machine lacks)
  Diverged,   // a backend's run left its reference mid-launch (a token the compiled machine got wrong)
};

const char* errorKindName(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace qgpu
