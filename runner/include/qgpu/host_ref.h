// Host references: independent C++ computations of a kernel's outputs.
//
// A kernel folder's host_ref.cpp defines one function with QGPU_HOST_REF(name).
// It receives the launch's buffers, initialised exactly as launch.json says, and
// overwrites the output buffers the way the kernel would. The `host-ref`
// backend runs it; `qgpu record --backend host-ref` turns its outputs into a
// golden with provenance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace qgpu {

struct HostDim3 {
  uint32_t x = 1, y = 1, z = 1;
};

/// What a host reference sees of a launch: buffers by parameter name (mutable
/// byte views of their initial contents), scalars by name, and the geometry.
class HostRefArgs {
 public:
  virtual ~HostRefArgs() = default;
  virtual std::span<std::byte> bufferBytes(std::string_view name) = 0;
  virtual uint64_t scalarBits(std::string_view name) const = 0;
  virtual HostDim3 grid() const = 0;
  virtual HostDim3 block() const = 0;
  virtual uint32_t dynamicSharedBytes() const = 0;

  template <class T>
  std::span<T> buffer(std::string_view name) {
    std::span<std::byte> bytes = bufferBytes(name);
    return {reinterpret_cast<T*>(bytes.data()), bytes.size() / sizeof(T)};
  }
  template <class T>
  T scalar(std::string_view name) const {
    uint64_t bits = scalarBits(name);
    T value;
    std::memcpy(&value, &bits, sizeof(T));
    return value;
  }
};

using HostRefFn = void (*)(HostRefArgs&);

/// Registers `fn` as the host reference of kernel `name` (called by the macro).
bool registerHostRef(std::string_view name, HostRefFn fn);
/// The host reference of kernel `name`, or nullptr.
HostRefFn findHostRef(std::string_view name);

}  // namespace qgpu

#define QGPU_HOST_REF(name)                                                        \
  static void qgpu_host_ref_##name(::qgpu::HostRefArgs& args);                     \
  [[maybe_unused]] static const bool qgpu_host_ref_registered_##name =             \
      ::qgpu::registerHostRef(#name, &qgpu_host_ref_##name);                       \
  static void qgpu_host_ref_##name([[maybe_unused]] ::qgpu::HostRefArgs& args)
