// The CUDA stand-in driver: a test-only shared library that exports the CUDA Driver API calls
// qgpu's cuda backend makes (runner/src/cuda_backend.cpp) and runs each launch on the qgpu
// interpreter at warp width 32. qgpu loads it through the same dlopen as libcuda.so.1 when
// QGPU_CUDA_DRIVER names it, so `qgpu record --backend cuda`, ci/hw-compare and sfu-probe run
// end to end without a GPU (ctest label hardware-path, docs/limits.md "The hardware path").
//
// It proves the plumbing (argument marshalling, copies, provenance, error paths), never the
// hardware: its device name and the symbol qgpuCudaStandIn say what it is, and qgpu refuses to
// record its results into goldens/. Like the real driver, a fault inside a kernel is reported
// by cuCtxSynchronize, not by cuLaunchKernel, and is sticky: every later call returns it
// (cuMemFree, cuModuleUnload and the context release still release, so that its unload log
// shows whether qgpu cleaned up).
//
// Knobs, all environment variables (read when cuInit runs):
//   QGPU_CUDA_STANDIN_MEMORY     device memory in bytes (default 2 GiB): cuMemAlloc past it
//                                returns CUDA_ERROR_OUT_OF_MEMORY
//   QGPU_CUDA_STANDIN_MAX_STEPS  warp instructions per launch (default 200 000 000): past it
//                                the launch fails with CUDA_ERROR_LAUNCH_TIMEOUT
//   QGPU_CUDA_STANDIN_LOG        a file to which each call is appended, one line each, and a
//                                last line at unload with what was never freed
//   QGPU_CUDA_STANDIN_CORRUPT    "dtoh": flip bit 0 of the first byte of every device-to-host
//                                copy (tests that a divergence reaches the gate's verdict)
#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "qgpu/interp/launch.h"
#include "qgpu/interp/program.h"
#include "qgpu/interp/ptx_parser.h"

#define QGPU_STANDIN_EXPORT extern "C" __attribute__((visibility("default")))

struct CUctx_st {
  int unused = 0;
};
struct CUmod_st {
  qgpu::Program program;
};
struct CUfunc_st {
  CUmod_st* module = nullptr;
  uint32_t function = 0;  // index into program.functions
};

namespace {

constexpr const char* kDeviceName = "qgpu CUDA stand-in (the interpreter, not a GPU)";
constexpr const char* kDescription =
    "qgpu CUDA stand-in driver: launches run on the qgpu interpreter at warp width 32; not hardware";

struct Allocation {
  bool live = false;
  std::vector<uint8_t> data;
};

struct State {
  std::mutex mutex;
  bool initialised = false;
  uint64_t memoryBytes = uint64_t{2} << 30;
  uint64_t usedBytes = 0;
  uint64_t maxSteps = 200'000'000;
  bool corruptDtoH = false;
  std::string logPath;
  CUctx_st context;
  int contextRefs = 0;
  bool contextCurrent = false;
  CUresult sticky = CUDA_SUCCESS;  // a kernel fault: every later call returns it
  // Allocation k is at qgpu::globalBufferAddress(k), so a pointer parameter needs no
  // translation: the interpreter sees the launch's buffers at the same addresses.
  std::vector<Allocation> allocations;
  std::vector<std::unique_ptr<CUmod_st>> modules;
  std::vector<std::unique_ptr<CUfunc_st>> functions;

  ~State() {
    size_t live = 0, loaded = 0;
    for (const Allocation& a : allocations) live += a.live;
    for (const auto& m : modules) loaded += m != nullptr;
    log(fmt::format("unload: {} allocations ({} bytes) not freed, {} modules not unloaded, "
                    "primary context retained {} more times than released",
                    live, usedBytes, loaded, contextRefs));
  }

  void log(const std::string& line) const {
    if (logPath.empty()) return;
    if (FILE* f = std::fopen(logPath.c_str(), "a")) {
      std::fprintf(f, "%s\n", line.c_str());
      std::fclose(f);
    }
  }
};

State& state() {
  static State s;
  return s;
}

uint64_t envNumber(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  unsigned long long n = std::strtoull(v, &end, 0);
  if (*end) {
    std::fprintf(stderr, "qgpu CUDA stand-in: %s='%s' is not a number; using %llu\n", name, v,
                 static_cast<unsigned long long>(fallback));
    return fallback;
  }
  return n;
}

// The checks every call after cuInit makes, in the real driver's order.
CUresult ready(const State& s, bool needContext = true) {
  if (!s.initialised) return CUDA_ERROR_NOT_INITIALIZED;
  if (s.sticky != CUDA_SUCCESS) return s.sticky;
  if (needContext && !s.contextCurrent) return CUDA_ERROR_INVALID_CONTEXT;
  return CUDA_SUCCESS;
}

// The allocation holding [ptr, ptr + bytes), or nullptr.
Allocation* findRange(State& s, CUdeviceptr ptr, size_t bytes, uint64_t& offset) {
  for (uint32_t k = 0; k < s.allocations.size(); ++k) {
    Allocation& a = s.allocations[k];
    uint64_t base = qgpu::globalBufferAddress(k);
    if (!a.live || ptr < base || ptr - base > a.data.size()) continue;
    offset = ptr - base;
    if (bytes > a.data.size() - offset) return nullptr;
    return &a;
  }
  return nullptr;
}

// Where the JIT logs go, from cuModuleLoadDataEx's options.
struct JitLogs {
  char* error = nullptr;
  size_t errorBytes = 0;
  char* info = nullptr;
  size_t infoBytes = 0;
};

void writeLog(char* buffer, size_t bytes, const std::string& text) {
  if (!buffer || bytes == 0) return;
  size_t n = std::min(text.size(), bytes - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
}

// What a failed interpreter launch is on a GPU: the code cuCtxSynchronize would return.
CUresult launchFailureCode(qgpu::ErrorKind kind, const std::string& what) {
  switch (kind) {
    case qgpu::ErrorKind::StepLimit: return CUDA_ERROR_LAUNCH_TIMEOUT;
    case qgpu::ErrorKind::Trap: return CUDA_ERROR_ILLEGAL_INSTRUCTION;
    case qgpu::ErrorKind::Memory:
      return what.find("misaligned") != std::string::npos ? CUDA_ERROR_MISALIGNED_ADDRESS
                                                           : CUDA_ERROR_ILLEGAL_ADDRESS;
    default: return CUDA_ERROR_LAUNCH_FAILED;
  }
}

}  // namespace

// ------------------------------------------------------------------ identity
/// Present only in the stand-in: qgpu's cuda backend looks it up to mark its results.
QGPU_STANDIN_EXPORT const char* qgpuCudaStandIn() { return kDescription; }

// ------------------------------------------------------------------ errors
QGPU_STANDIN_EXPORT CUresult cuGetErrorName(CUresult error, const char** str) {
  if (!str) return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
#define QGPU_NAME(code) \
  case code: *str = #code; return CUDA_SUCCESS;
    QGPU_NAME(CUDA_SUCCESS)
    QGPU_NAME(CUDA_ERROR_INVALID_VALUE)
    QGPU_NAME(CUDA_ERROR_OUT_OF_MEMORY)
    QGPU_NAME(CUDA_ERROR_NOT_INITIALIZED)
    QGPU_NAME(CUDA_ERROR_NO_DEVICE)
    QGPU_NAME(CUDA_ERROR_INVALID_DEVICE)
    QGPU_NAME(CUDA_ERROR_INVALID_IMAGE)
    QGPU_NAME(CUDA_ERROR_INVALID_CONTEXT)
    QGPU_NAME(CUDA_ERROR_INVALID_PTX)
    QGPU_NAME(CUDA_ERROR_INVALID_HANDLE)
    QGPU_NAME(CUDA_ERROR_NOT_FOUND)
    QGPU_NAME(CUDA_ERROR_ILLEGAL_ADDRESS)
    QGPU_NAME(CUDA_ERROR_LAUNCH_TIMEOUT)
    QGPU_NAME(CUDA_ERROR_ILLEGAL_INSTRUCTION)
    QGPU_NAME(CUDA_ERROR_MISALIGNED_ADDRESS)
    QGPU_NAME(CUDA_ERROR_LAUNCH_FAILED)
    QGPU_NAME(CUDA_ERROR_NOT_SUPPORTED)
#undef QGPU_NAME
    default: *str = nullptr; return CUDA_ERROR_INVALID_VALUE;
  }
}

QGPU_STANDIN_EXPORT CUresult cuGetErrorString(CUresult error, const char** str) {
  if (!str) return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
    case CUDA_SUCCESS: *str = "no error"; break;
    case CUDA_ERROR_INVALID_VALUE: *str = "invalid argument"; break;
    case CUDA_ERROR_OUT_OF_MEMORY: *str = "out of memory (the stand-in's QGPU_CUDA_STANDIN_MEMORY)"; break;
    case CUDA_ERROR_NOT_INITIALIZED: *str = "initialization error"; break;
    case CUDA_ERROR_NO_DEVICE: *str = "no CUDA-capable device is detected"; break;
    case CUDA_ERROR_INVALID_DEVICE: *str = "invalid device ordinal"; break;
    case CUDA_ERROR_INVALID_IMAGE: *str = "device kernel image is invalid"; break;
    case CUDA_ERROR_INVALID_CONTEXT: *str = "invalid device context"; break;
    case CUDA_ERROR_INVALID_PTX: *str = "a PTX JIT compilation failed"; break;
    case CUDA_ERROR_INVALID_HANDLE: *str = "invalid resource handle"; break;
    case CUDA_ERROR_NOT_FOUND: *str = "named symbol not found"; break;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *str = "an illegal memory access was encountered"; break;
    case CUDA_ERROR_LAUNCH_TIMEOUT:
      *str = "the launch timed out and was terminated (the stand-in's QGPU_CUDA_STANDIN_MAX_STEPS)";
      break;
    case CUDA_ERROR_ILLEGAL_INSTRUCTION: *str = "an illegal instruction was encountered"; break;
    case CUDA_ERROR_MISALIGNED_ADDRESS: *str = "misaligned address"; break;
    case CUDA_ERROR_LAUNCH_FAILED: *str = "unspecified launch failure"; break;
    case CUDA_ERROR_NOT_SUPPORTED: *str = "operation not supported (by the stand-in)"; break;
    default: *str = nullptr; return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

// ------------------------------------------------------------------ device
QGPU_STANDIN_EXPORT CUresult cuInit(unsigned int flags) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (!s.initialised) {
    s.memoryBytes = envNumber("QGPU_CUDA_STANDIN_MEMORY", s.memoryBytes);
    s.maxSteps = envNumber("QGPU_CUDA_STANDIN_MAX_STEPS", s.maxSteps);
    const char* corrupt = std::getenv("QGPU_CUDA_STANDIN_CORRUPT");
    s.corruptDtoH = corrupt && std::string(corrupt) == "dtoh";
    if (const char* p = std::getenv("QGPU_CUDA_STANDIN_LOG")) s.logPath = p;
    s.initialised = true;
  }
  s.log("cuInit");
  return CUDA_SUCCESS;
}

QGPU_STANDIN_EXPORT CUresult cuDriverGetVersion(int* version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  *version = CUDA_VERSION;  // the API of the headers it was built with
  return CUDA_SUCCESS;
}

QGPU_STANDIN_EXPORT CUresult cuDeviceGetCount(int* count) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (CUresult r = ready(s, false)) return r;
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

QGPU_STANDIN_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (CUresult r = ready(s, false)) return r;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

QGPU_STANDIN_EXPORT CUresult cuDeviceGetName(char* name, int len, CUdevice device) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (CUresult r = ready(s, false)) return r;
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  writeLog(name, static_cast<size_t>(len), kDeviceName);
  return CUDA_SUCCESS;
}

QGPU_STANDIN_EXPORT CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (CUresult r = ready(s, false)) return r;
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  // The interpreter's target is sm_75; other attributes are not asked for by qgpu.
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 7; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 5; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; return CUDA_SUCCESS;
    default: return CUDA_ERROR_NOT_SUPPORTED;
  }
}

// ------------------------------------------------------------------ context
QGPU_STANDIN_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice device) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (CUresult r = ready(s, false)) return r;
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  ++s.contextRefs;
  *ctx = &s.context;
  return CUDA_SUCCESS;
}

QGPU_STANDIN_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice device) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.initialised) return CUDA_ERROR_NOT_INITIALIZED;
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (s.contextRefs == 0) return CUDA_ERROR_INVALID_CONTEXT;
  --s.contextRefs;
  return CUDA_SUCCESS;
}

QGPU_STANDIN_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (CUresult r = ready(s, false)) return r;
  if (ctx && (ctx != &s.context || s.contextRefs == 0)) return CUDA_ERROR_INVALID_CONTEXT;
  s.contextCurrent = ctx != nullptr;
  return CUDA_SUCCESS;
}

QGPU_STANDIN_EXPORT CUresult cuCtxSynchronize() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.log("cuCtxSynchronize");
  return ready(s);  // launches run synchronously; a fault was kept for this call
}

// ------------------------------------------------------------------ modules
namespace {

CUresult loadModule(CUmodule* module, const void* image, const JitLogs& logs) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (CUresult r = ready(s)) return r;
  if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
  const char* text = static_cast<const char*>(image);
  if (std::memcmp(text, "\x7f" "ELF", 4) == 0) {
    writeLog(logs.error, logs.errorBytes, "qgpu CUDA stand-in: cubin images are not supported, only PTX text");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  try {
    auto m = std::make_unique<CUmod_st>();
    m->program = qgpu::decodeModule(qgpu::ptx::parseModule(text, "module image"));
    writeLog(logs.info, logs.infoBytes, fmt::format("{}; module of {} functions", kDescription,
                                                    m->program.functions.size()));
    *module = m.get();
    s.modules.push_back(std::move(m));
    s.log(fmt::format("cuModuleLoadData: {} bytes of PTX", std::strlen(text)));
    return CUDA_SUCCESS;
  } catch (const qgpu::Error& e) {
    // Where ptxas would print its complaint: the JIT error log.
    writeLog(logs.error, logs.errorBytes, fmt::format("qgpu CUDA stand-in: {}: {}", qgpu::errorKindName(e.kind()), e.what()));
    s.log(fmt::format("cuModuleLoadData: CUDA_ERROR_INVALID_PTX: {}", e.what()));
    return CUDA_ERROR_INVALID_PTX;
  }
}

}  // namespace

QGPU_STANDIN_EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  return loadModule(module, image, JitLogs{});
}

QGPU_STANDIN_EXPORT CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions,
                                                CUjit_option* options, void** optionValues) {
  if (numOptions && (!options || !optionValues)) return CUDA_ERROR_INVALID_VALUE;
  JitLogs logs;
  for (unsigned i = 0; i < numOptions; ++i) {
    switch (options[i]) {
      case CU_JIT_ERROR_LOG_BUFFER: logs.error = static_cast<char*>(optionValues[i]); break;
      case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: logs.errorBytes = reinterpret_cast<uintptr_t>(optionValues[i]); break;
      case CU_JIT_INFO_LOG_BUFFER: logs.info = static_cast<char*>(optionValues[i]); break;
      case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: logs.infoBytes = reinterpret_cast<uintptr_t>(optionValues[i]); break;
      default: break;  // optimisation levels and the like change nothing here
    }
  }
  return loadModule(module, image, logs);
}

QGPU_STANDIN_EXPORT CUresult cuModuleUnload(CUmodule module) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.initialised) return CUDA_ERROR_NOT_INITIALIZED;
  for (auto& m : s.modules)
    if (m && m.get() == module) {
      std::erase_if(s.functions, [&](const auto& f) { return f->module == module; });
      m.reset();
      return s.sticky;  // released even after a fault, so the unload log shows what qgpu did
    }
  return s.sticky ? s.sticky : CUDA_ERROR_INVALID_HANDLE;
}

QGPU_STANDIN_EXPORT CUresult cuModuleGetFunction(CUfunction* fn, CUmodule module, const char* name) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (CUresult r = ready(s)) return r;
  if (!fn || !name) return CUDA_ERROR_INVALID_VALUE;
  bool known = false;
  for (const auto& m : s.modules) known |= m && m.get() == module;
  if (!known) return CUDA_ERROR_INVALID_HANDLE;
  const auto& functions = module->program.functions;
  for (uint32_t i = 0; i < functions.size(); ++i)
    if (functions[i].isEntry && functions[i].name == name) {
      s.functions.push_back(std::make_unique<CUfunc_st>(CUfunc_st{module, i}));
      *fn = s.functions.back().get();
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

// ------------------------------------------------------------------ memory
QGPU_STANDIN_EXPORT CUresult cuMemAlloc(CUdeviceptr* ptr, size_t bytes) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (CUresult r = ready(s)) return r;
  if (!ptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (bytes > s.memoryBytes - s.usedBytes) {
    s.log(fmt::format("cuMemAlloc {} bytes: CUDA_ERROR_OUT_OF_MEMORY ({} of {} in use)", bytes, s.usedBytes, s.memoryBytes));
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  uint32_t k = 0;
  while (k < s.allocations.size() && s.allocations[k].live) ++k;
  if (k == s.allocations.size()) s.allocations.emplace_back();
  s.allocations[k].live = true;
  s.allocations[k].data.assign(bytes, 0xcd);  // not zero: a missing copy shows
  s.usedBytes += bytes;
  *ptr = qgpu::globalBufferAddress(k);
  s.log(fmt::format("cuMemAlloc {} bytes -> {:#x}", bytes, *ptr));
  return CUDA_SUCCESS;
}

QGPU_STANDIN_EXPORT CUresult cuMemFree(CUdeviceptr ptr) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.initialised) return CUDA_ERROR_NOT_INITIALIZED;
  if (s.sticky == CUDA_SUCCESS && !s.contextCurrent) return CUDA_ERROR_INVALID_CONTEXT;
  for (uint32_t k = 0; k < s.allocations.size(); ++k) {
    Allocation& a = s.allocations[k];
    if (!a.live || ptr != qgpu::globalBufferAddress(k)) continue;
    s.usedBytes -= a.data.size();
    a.live = false;
    a.data = {};
    s.log(fmt::format("cuMemFree {:#x}", ptr));
    return s.sticky;  // freed even after a fault, so the unload log shows what qgpu did
  }
  return s.sticky ? s.sticky : CUDA_ERROR_INVALID_VALUE;
}

QGPU_STANDIN_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (CUresult r = ready(s)) return r;
  uint64_t offset = 0;
  Allocation* a = findRange(s, dst, bytes, offset);
  if (!a || !src) return CUDA_ERROR_INVALID_VALUE;
  if (bytes) std::memcpy(a->data.data() + offset, src, bytes);
  s.log(fmt::format("cuMemcpyHtoD {:#x} {} bytes", dst, bytes));
  return CUDA_SUCCESS;
}

QGPU_STANDIN_EXPORT CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (CUresult r = ready(s)) return r;
  uint64_t offset = 0;
  Allocation* a = findRange(s, src, bytes, offset);
  if (!a || !dst) return CUDA_ERROR_INVALID_VALUE;
  if (bytes) std::memcpy(dst, a->data.data() + offset, bytes);
  if (bytes && s.corruptDtoH) *static_cast<uint8_t*>(dst) ^= 1;
  s.log(fmt::format("cuMemcpyDtoH {:#x} {} bytes", src, bytes));
  return CUDA_SUCCESS;
}

// ------------------------------------------------------------------ launch
QGPU_STANDIN_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gridX, unsigned gridY, unsigned gridZ,
                                            unsigned blockX, unsigned blockY, unsigned blockZ,
                                            unsigned sharedBytes, CUstream stream, void** params, void** extra) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (CUresult r = ready(s)) return r;
  bool known = false;
  for (const auto& fn : s.functions) known |= fn.get() == f;
  if (!known) return CUDA_ERROR_INVALID_HANDLE;
  if (stream || extra) return CUDA_ERROR_NOT_SUPPORTED;  // qgpu launches on the null stream
  const qgpu::Program& program = f->module->program;
  const qgpu::FunctionInfo& info = program.functions[f->function];
  if (!info.kernelParams.empty() && !params) return CUDA_ERROR_INVALID_VALUE;

  qgpu::Launch launch;
  launch.grid = {gridX, gridY, gridZ};
  launch.block = {blockX, blockY, blockZ};
  launch.dynamicSharedBytes = sharedBytes;
  // Each parameter is read at its declared size from what params[i] points to, as the
  // driver does: a pointer is its 8 bytes, which are an allocation's address already.
  std::string shown;
  for (size_t i = 0; i < info.kernelParams.size(); ++i) {
    const qgpu::KernelParam& p = info.kernelParams[i];
    if (p.size > 8) return CUDA_ERROR_NOT_SUPPORTED;  // aggregates: nothing in qgpu passes them
    qgpu::LaunchArg a;
    a.kind = qgpu::LaunchArg::Kind::Scalar;
    a.scalarBytes = p.size;
    a.name = p.name;
    std::memcpy(&a.scalarBits, params[i], p.size);
    launch.args.push_back(a);
    shown += fmt::format("{}{}={:#x}", i ? " " : "", p.name, a.scalarBits);
  }
  s.log(fmt::format("cuLaunchKernel {} grid {},{},{} block {},{},{} shared {} params {}", info.name, gridX, gridY,
                    gridZ, blockX, blockY, blockZ, sharedBytes, shown));
  for (uint32_t k = 0; k < s.allocations.size(); ++k)
    launch.buffers.push_back({fmt::format("allocation {:#x}", qgpu::globalBufferAddress(k)),
                              std::move(s.allocations[k].data)});
  qgpu::LaunchOptions options;
  options.warpWidth = 32;
  options.maxSteps = s.maxSteps;
  CUresult result = CUDA_SUCCESS;
  try {
    qgpu::runLaunch(program, info.name, launch, options);
  } catch (const qgpu::Error& e) {
    std::string what = fmt::format("{}: {}", qgpu::errorKindName(e.kind()), e.what());
    std::fprintf(stderr, "qgpu CUDA stand-in: launch of %s failed: %s\n", info.name.c_str(), what.c_str());
    s.log(fmt::format("cuLaunchKernel failed: {}", what));
    // A launch that does not fit the kernel fails at once; a fault inside the kernel is
    // reported later, by cuCtxSynchronize, and poisons the context as on a GPU.
    if (e.kind() == qgpu::ErrorKind::Launch) result = CUDA_ERROR_INVALID_VALUE;
    else s.sticky = launchFailureCode(e.kind(), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "qgpu CUDA stand-in: launch of %s failed: %s\n", info.name.c_str(), e.what());
    s.sticky = CUDA_ERROR_LAUNCH_FAILED;
  }
  for (uint32_t k = 0; k < s.allocations.size(); ++k) s.allocations[k].data = std::move(launch.buffers[k].data);
  return result;
}
