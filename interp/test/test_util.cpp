// Helpers of the interpreter tests: run PTX text, evaluate one instruction on memory operands.
#include "test_util.h"

#include <cstring>
#include <stdexcept>

#include "qgpu/interp/ptx_parser.h"

namespace qgpu::test {

std::string header() { return ".version 9.0\n.target sm_75\n.address_size 64\n"; }

std::vector<std::vector<uint8_t>> run(const TestLaunch& t) {
  Program p = decodeModule(ptx::parseModule(t.ptx, "test.ptx"));
  Launch launch;
  launch.grid = t.grid;
  launch.block = t.block;
  launch.dynamicSharedBytes = t.dynamicShared;
  for (size_t i = 0; i < t.buffers.size(); ++i) {
    launch.buffers.push_back({"buf" + std::to_string(i), t.buffers[i]});
    LaunchArg a;
    a.kind = LaunchArg::Kind::Buffer;
    a.buffer = static_cast<uint32_t>(i);
    a.name = "buf" + std::to_string(i);
    launch.args.push_back(a);
  }
  for (uint32_t s : t.scalars) {
    LaunchArg a;
    a.scalarBits = s;
    a.scalarBytes = 4;
    launch.args.push_back(a);
  }
  LaunchOptions o;
  o.warpWidth = t.warp;
  o.maxSteps = t.maxSteps;
  runLaunch(p, t.entry, launch, o);
  std::vector<std::vector<uint8_t>> out;
  for (auto& b : launch.buffers) out.push_back(std::move(b.data));
  return out;
}

uint64_t eval(const std::string& snippet, uint64_t a, uint64_t b, uint64_t c) {
  std::string ptx = header() + R"(
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<8>;
  .reg .b16 %rs<8>;
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<10>;
  .reg .f64 %fd<8>;
  ld.param.u64 %rd8, [out];
  ld.param.u64 %rd9, [in];
  ld.global.u64 %rd1, [%rd9];
  ld.global.u64 %rd2, [%rd9+8];
  ld.global.u64 %rd3, [%rd9+16];
  cvt.u32.u64 %r1, %rd1;
  cvt.u32.u64 %r2, %rd2;
  cvt.u32.u64 %r3, %rd3;
  cvt.u16.u64 %rs1, %rd1;
  cvt.u16.u64 %rs2, %rd2;
  cvt.u16.u64 %rs3, %rd3;
  mov.b32 %f1, %r1;
  mov.b32 %f2, %r2;
  mov.b32 %f3, %r3;
  mov.b64 %fd1, %rd1;
  mov.b64 %fd2, %rd2;
  mov.b64 %fd3, %rd3;
  mov.u64 %rd4, 0;
)" + snippet + R"(
  st.global.u64 [%rd8], %rd4;
  ret;
}
)";
  std::vector<uint8_t> in(24);
  std::memcpy(in.data(), &a, 8);
  std::memcpy(in.data() + 8, &b, 8);
  std::memcpy(in.data() + 16, &c, 8);
  uint64_t results[2];
  int i = 0;
  for (uint32_t w : {4u, 32u}) {
    TestLaunch t;
    t.ptx = ptx;
    t.buffers = {std::vector<uint8_t>(8), in};
    t.warp = w;
    auto outs = run(t);
    std::memcpy(&results[i++], outs[0].data(), 8);
  }
  if (results[0] != results[1]) throw std::runtime_error("W=4 and W=32 results differ");
  return results[0];
}

uint32_t evalU32(const std::string& s, uint64_t a, uint64_t b, uint64_t c) {
  return static_cast<uint32_t>(eval(s + "\n  cvt.u64.u32 %rd4, %r4;", a, b, c));
}
uint64_t evalU64(const std::string& s, uint64_t a, uint64_t b, uint64_t c) { return eval(s, a, b, c); }
uint32_t evalF32(const std::string& s, uint64_t a, uint64_t b, uint64_t c) {
  return static_cast<uint32_t>(eval(s + "\n  mov.b32 %r4, %f4;\n  cvt.u64.u32 %rd4, %r4;", a, b, c));
}
uint64_t evalF64(const std::string& s, uint64_t a, uint64_t b, uint64_t c) {
  return eval(s + "\n  mov.b64 %rd4, %fd4;", a, b, c);
}
bool evalPred(const std::string& s, uint64_t a, uint64_t b, uint64_t c) {
  return eval(s + "\n  selp.u64 %rd4, 1, 0, %p1;", a, b, c) != 0;
}

std::vector<uint8_t> bytesOfU32(const std::vector<uint32_t>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
std::vector<uint32_t> u32Of(const std::vector<uint8_t>& b) {
  std::vector<uint32_t> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

}  // namespace qgpu::test
