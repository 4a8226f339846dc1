// Real hardware through the CUDA Driver API. libcuda is loaded with dlopen at
// run time, so the same binary runs (and says "no CUDA driver") on machines
// without a GPU. The PTX is JIT-compiled by the driver (cuModuleLoadDataEx,
// with the JIT log reported on failure); every driver call is checked.
//
// QGPU_CUDA_DRIVER names another library to dlopen in place of libcuda.so.1: the
// tests' stand-in driver (runner/test/cuda_standin), which runs launches on the
// interpreter. A library that exports qgpuCudaStandIn is a stand-in, and its
// results say so in their provenance ("stand_in"), so they never pass as hardware.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "qgpu/backend.h"
#include "qgpu/interp/error.h"
#include "qgpu/interp/input_file.h"

#ifdef QGPU_HAVE_CUDA_H
#include <cuda.h>
#endif

namespace qgpu {

#ifdef QGPU_HAVE_CUDA_H
namespace {

struct Driver {
  void* lib = nullptr;
  std::string path;      // what was dlopen'ed
  std::string standIn;   // the stand-in's description; empty for a real driver
  // Set when a kernel faulted: the error is sticky, the process's context is unusable.
  std::string lostContext;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, CUdevice_attribute, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, CUjit_option*, void**);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
};

template <class F>
void bind(Driver& d, F& fn, const char* name) {
  void* sym = dlsym(d.lib, name);
  if (!sym) throw Error(ErrorKind::Backend, fmt::format("CUDA driver has no symbol {}", name));
  fn = reinterpret_cast<F>(sym);
}

Driver& driver() {
  static Driver d = [] {
    Driver dr;
    const char* named = std::getenv("QGPU_CUDA_DRIVER");
    dr.path = named && *named ? named : "libcuda.so.1";
    dr.lib = dlopen(dr.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!dr.lib)
      throw Error(ErrorKind::Backend,
                  fmt::format("no CUDA driver: dlopen({}) failed: {}", dr.path, dlerror()));
    if (auto standIn = reinterpret_cast<const char* (*)()>(dlsym(dr.lib, "qgpuCudaStandIn")))
      dr.standIn = standIn();
    bind(dr, dr.cuInit, "cuInit");
    bind(dr, dr.cuDriverGetVersion, "cuDriverGetVersion");
    bind(dr, dr.cuDeviceGetCount, "cuDeviceGetCount");
    bind(dr, dr.cuDeviceGet, "cuDeviceGet");
    bind(dr, dr.cuDeviceGetName, "cuDeviceGetName");
    bind(dr, dr.cuDeviceGetAttribute, "cuDeviceGetAttribute");
    bind(dr, dr.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    bind(dr, dr.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    bind(dr, dr.cuCtxSetCurrent, "cuCtxSetCurrent");
    bind(dr, dr.cuModuleLoadDataEx, "cuModuleLoadDataEx");
    bind(dr, dr.cuModuleUnload, "cuModuleUnload");
    bind(dr, dr.cuModuleGetFunction, "cuModuleGetFunction");
    bind(dr, dr.cuMemAlloc, "cuMemAlloc_v2");
    bind(dr, dr.cuMemFree, "cuMemFree_v2");
    bind(dr, dr.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    bind(dr, dr.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    bind(dr, dr.cuLaunchKernel, "cuLaunchKernel");
    bind(dr, dr.cuCtxSynchronize, "cuCtxSynchronize");
    bind(dr, dr.cuGetErrorName, "cuGetErrorName");
    bind(dr, dr.cuGetErrorString, "cuGetErrorString");
    return dr;
  }();
  return d;
}

const char* errorName(CUresult r) {
  const char* name = "?";
  driver().cuGetErrorName(r, &name);
  return name ? name : "?";
}

void check(CUresult r, const char* call, const std::string& extra = "") {
  if (r == CUDA_SUCCESS) return;
  const char* name = errorName(r);
  const char* text = "?";
  driver().cuGetErrorString(r, &text);
  throw Error(ErrorKind::Backend, fmt::format("{} failed: {} ({}): {}{}", call, name, static_cast<int>(r), text, extra));
}

// The module and device memory of one launch, released however run() leaves it: a failed
// call must not leak them into the next kernel of a `qgpu record --all`. Cleanup after an
// error is unchecked (the error being reported is the one that matters).
struct LaunchResources {
  Driver& d;
  CUmodule module = nullptr;
  std::vector<CUdeviceptr> ptrs;
  ~LaunchResources() {
    for (CUdeviceptr p : ptrs)
      if (p) d.cuMemFree(p);
    if (module) d.cuModuleUnload(module);
  }
};

class CudaBackend : public Backend {
 public:
  ~CudaBackend() override {
    if (retained_) driver().cuDevicePrimaryCtxRelease(device_);
  }
  std::string name() const override { return "cuda"; }
  RunResult run(const LaunchSpec& spec, const RunOptions& options) override {
    Driver& d = driver();
    if (!d.lostContext.empty())
      throw Error(ErrorKind::Backend,
                  fmt::format("not run: the CUDA context was lost {}; a fault inside a kernel poisons the "
                              "process's context, so the kernels after it need a new qgpu process",
                              d.lostContext));
    check(d.cuInit(0), "cuInit");
    int count = 0;
    check(d.cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count == 0) throw Error(ErrorKind::Backend, "no CUDA device");
    CUdevice dev;
    check(d.cuDeviceGet(&dev, 0), "cuDeviceGet");
    // Retained once per backend, released when it goes: a primary context whose count drops
    // to zero is destroyed, and making one per kernel is slow.
    if (!retained_) {
      check(d.cuDevicePrimaryCtxRetain(&context_, dev), "cuDevicePrimaryCtxRetain");
      retained_ = true;
      device_ = dev;
    }
    check(d.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
    char devName[256] = {0};
    check(d.cuDeviceGetName(devName, sizeof devName, dev), "cuDeviceGetName");
    int major = 0, minor = 0, driverVersion = 0;
    check(d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute");
    check(d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cuDeviceGetAttribute");
    check(d.cuDriverGetVersion(&driverVersion), "cuDriverGetVersion");

    std::filesystem::path ptxPath = spec.ptxPath(options.flavour);
    std::string ptx = readInputFile(ptxPath, "PTX file", kMaxPtxFileBytes);

    char errorLog[16384] = {0}, infoLog[16384] = {0};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {errorLog, reinterpret_cast<void*>(sizeof errorLog), infoLog,
                    reinterpret_cast<void*>(sizeof infoLog)};
    LaunchResources held{d, nullptr, {}};
    // The call first: the log is only there once it returned.
    CUresult loaded = d.cuModuleLoadDataEx(&held.module, ptx.c_str(), 4, opts, vals);
    check(loaded, "cuModuleLoadDataEx", fmt::format("\nJIT log for {}:\n{}", ptxPath.string(), errorLog));
    CUfunction fn;
    check(d.cuModuleGetFunction(&fn, held.module, spec.entry.c_str()), "cuModuleGetFunction");

    Launch launch = materializeLaunch(spec);
    std::vector<CUdeviceptr>& ptrs = held.ptrs;
    ptrs.assign(launch.buffers.size(), 0);
    std::vector<uint64_t> scalarStore(launch.args.size());
    std::vector<void*> argPtrs;
    for (size_t i = 0; i < launch.buffers.size(); ++i) {
      size_t n = std::max<size_t>(launch.buffers[i].data.size(), 1);
      check(d.cuMemAlloc(&ptrs[i], n), "cuMemAlloc");
      if (!launch.buffers[i].data.empty())
        check(d.cuMemcpyHtoD(ptrs[i], launch.buffers[i].data.data(), launch.buffers[i].data.size()), "cuMemcpyHtoD");
    }
    for (size_t i = 0; i < launch.args.size(); ++i) {
      const LaunchArg& a = launch.args[i];
      if (a.kind == LaunchArg::Kind::Buffer) argPtrs.push_back(&ptrs[a.buffer]);
      else {
        scalarStore[i] = a.scalarBits;
        argPtrs.push_back(&scalarStore[i]);
      }
    }
    check(d.cuLaunchKernel(fn, spec.grid.x, spec.grid.y, spec.grid.z, spec.block.x, spec.block.y,
                           spec.block.z, spec.dynamicSharedBytes, nullptr, argPtrs.data(), nullptr),
          "cuLaunchKernel");
    CUresult ran = d.cuCtxSynchronize();
    if (ran != CUDA_SUCCESS) d.lostContext = fmt::format("when {} faulted ({})", spec.name, errorName(ran));
    check(ran, "cuCtxSynchronize (kernel execution)");
    for (size_t i = 0; i < launch.buffers.size(); ++i) {
      if (!launch.buffers[i].data.empty())
        check(d.cuMemcpyDtoH(launch.buffers[i].data.data(), ptrs[i], launch.buffers[i].data.size()), "cuMemcpyDtoH");
      check(d.cuMemFree(std::exchange(ptrs[i], 0)), "cuMemFree");
    }
    check(d.cuModuleUnload(std::exchange(held.module, nullptr)), "cuModuleUnload");

    RunResult r;
    r.kernel = spec.name;
    r.backend = name();
    r.flavour = options.flavour;
    r.warpWidth = 32;
    r.outputs = collectOutputs(spec, launch);
    r.provenance = {{"device", devName},
                    {"compute_capability", fmt::format("{}.{}", major, minor)},
                    {"driver_version", driverVersion},
                    {"jit_info_log", std::string(infoLog)},
                    {"driver_library", d.path}};
    if (!d.standIn.empty()) r.provenance["stand_in"] = d.standIn;
    return r;
  }

 private:
  bool retained_ = false;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

using CudaOrStub = CudaBackend;

}  // namespace

#else

namespace {
class NoCudaBackend : public Backend {
 public:
  std::string name() const override { return "cuda"; }
  RunResult run(const LaunchSpec&, const RunOptions&) override {
    throw Error(ErrorKind::Backend, "qgpu was built without the CUDA headers (cuda.h); no cuda backend");
  }
};
using CudaOrStub = NoCudaBackend;
}  // namespace

#endif

namespace {
[[maybe_unused]] const bool kRegistered = registerBackend({
    .name = "cuda",
    .summary = "a real GPU through the CUDA driver (its hardware warp width)",
    .provenance = ProvenanceKind::Hardware,
    .warpWidths = {32},
    .runsPtx = true,
    .traces = false,
    .tokens = false,
    .recordsGoldens = true,
    .make = [] { return std::unique_ptr<Backend>(std::make_unique<CudaOrStub>()); },
});
}  // namespace

}  // namespace qgpu
