// Launch specs, results/goldens, the gate and the backends, through the
// library API the CLI is built on.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <fstream>

#include "qgpu/backend.h"
#include "qgpu/compare.h"
#include "qgpu/gate.h"
#include "qgpu/golden.h"
#include "qgpu/interp/error.h"
#include "qgpu/json_input.h"
#include "qgpu/launch_spec.h"

namespace qgpu {
namespace {

const std::filesystem::path kSource = QGPU_SOURCE_DIR;

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("qgpu-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

void write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::string loadError(const std::string& json) {
  TempDir d;
  write(d.path() / "launch.json", json);
  try {
    loadLaunchSpec(d.path());
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Input);
    std::string msg = e.what();
    return msg.substr(msg.find(": ") + 2);  // drop the temp path
  }
  return "no error";
}

const char* kMinimal = R"({"name": "k", "entry": "k", "ptx": {"nvcc": "k.ptx"}, "grid": [1], "block": [4],
  "params": [{"name": "out", "buffer": {"type": "u32", "count": 4}}], "outputs": ["out"]})";

TEST(LaunchSpec, LoadsTheDemoKernel) {
  LaunchSpec s = loadLaunchSpec(kSource / "kernels/dot");
  EXPECT_EQ(s.name, "dot");
  EXPECT_EQ(s.block.x, 4u);
  ASSERT_EQ(s.params.size(), 4u);
  EXPECT_TRUE(s.params[0].isBuffer);
  EXPECT_FALSE(s.params[3].isBuffer);
  EXPECT_EQ(s.params[3].scalarBits, 3u);
  Launch l = materializeLaunch(s);
  ASSERT_EQ(l.buffers.size(), 3u);
  float a[4];
  std::memcpy(a, l.buffers[0].data.data(), 16);
  EXPECT_EQ(a[2], 3.0f);
}

TEST(LaunchSpec, Initialisers) {
  TempDir d;
  write(d.path() / "launch.json", R"({"name": "k", "entry": "k", "ptx": {"nvcc": "k.ptx"}, "grid": [1], "block": [1],
    "params": [
      {"name": "v", "buffer": {"type": "f32", "count": 6, "init": {"values": [1.5, "0x7f800001", "nan", "-inf", "-0"]}}},
      {"name": "i", "buffer": {"type": "s16", "count": 3, "init": {"iota": {"start": -1, "step": 2}}}},
      {"name": "r", "buffer": {"type": "u32", "count": 64, "init": {"random": {"seed": 7, "min": 10, "max": 12}}}},
      {"name": "f", "buffer": {"type": "u8", "count": 3, "init": {"fill": 255}}}
    ], "outputs": ["v"]})");
  Launch l = materializeLaunch(loadLaunchSpec(d.path()));
  uint32_t v[6];
  std::memcpy(v, l.buffers[0].data.data(), 24);
  EXPECT_EQ(v[0], 0x3fc00000u);
  EXPECT_EQ(v[1], 0x7f800001u);
  EXPECT_EQ(v[2], 0x7fc00000u);
  EXPECT_EQ(v[3], 0xff800000u);
  EXPECT_EQ(v[4], 0x80000000u);
  EXPECT_EQ(v[5], 0u);  // zero padded
  int16_t i[3];
  std::memcpy(i, l.buffers[1].data.data(), 6);
  EXPECT_EQ(i[0], -1);
  EXPECT_EQ(i[2], 3);
  std::set<uint32_t> seen;
  for (size_t k = 0; k < 64; ++k) {
    uint32_t x;
    std::memcpy(&x, l.buffers[2].data.data() + 4 * k, 4);
    EXPECT_GE(x, 10u);
    EXPECT_LE(x, 12u);
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_EQ(l.buffers[3].data, (std::vector<uint8_t>{255, 255, 255}));
  // Deterministic: the same spec gives the same bytes.
  EXPECT_EQ(materializeLaunch(loadLaunchSpec(d.path())).buffers[2].data, l.buffers[2].data);
}

TEST(LaunchSpec, BadSpecsNameTheField) {
  EXPECT_EQ(loadError("{"), "malformed JSON: [json.exception.parse_error.101] parse error at line 1, column 2: syntax error while parsing object key - unexpected end of input; expected string literal");
  std::string s = kMinimal;
  EXPECT_EQ(loadError(s.substr(0, s.size() - 1) + R"(, "colour": 1})"), "unknown field \"colour\"");
  EXPECT_EQ(loadError(R"({"name": "k"})"), "missing \"entry\"");
  std::string badType = s;
  badType.replace(badType.find("\"u32\""), 5, "\"u33\"");
  EXPECT_EQ(loadError(badType), "param \"out\": unknown element type \"u33\"");
  std::string badOut = s;
  badOut.replace(badOut.find("[\"out\"]"), 7, "[\"nope\"]");
  EXPECT_EQ(loadError(badOut), "output \"nope\" is not a parameter");
  std::string badGrid = s;
  badGrid.replace(badGrid.find("[1]"), 3, "[0]");
  EXPECT_EQ(loadError(badGrid), "\"grid\"[0] must be a positive integer");
  std::string badInit = s;
  badInit.replace(badInit.find("\"count\": 4}"), 11, "\"count\": 2, \"init\": {\"values\": [1, 2, 3]}}");
  EXPECT_EQ(loadError(badInit), "param \"out\": 3 values for a buffer of 2 elements");
}

std::string jsonInputError(const std::string& text) {
  try {
    parseJsonInput(text, "x.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(JsonInput, DepthIsBoundedAndKeysAreUnique) {
  auto nest = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  EXPECT_EQ(jsonInputError(nest(kMaxJsonDepth)), "");
  EXPECT_EQ(jsonInputError(nest(kMaxJsonDepth + 1)), "x.json: JSON nested deeper than 64 levels (docs/limits.md)");
  EXPECT_EQ(jsonInputError(nest(1000000)), "x.json: JSON nested deeper than 64 levels (docs/limits.md)");
  EXPECT_EQ(jsonInputError(R"({"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]})"), "");
  EXPECT_EQ(jsonInputError(R"({"a": 1, "b": 2, "a": 3})"), "x.json: duplicate key \"a\" in one JSON object");
  EXPECT_EQ(jsonInputError(R"([{"k": 1}, {"k": 2, "k": 2}])"), "x.json: duplicate key \"k\" in one JSON object");
  EXPECT_EQ(parseJsonInput(R"({"a": [1, {"b": 2}]})", "x.json")["a"][1]["b"], 2);
}

TEST(Results, JsonRoundTripAndCorruptGoldens) {
  LaunchSpec s = loadLaunchSpec(kSource / "kernels/dot");
  RunResult r = makeBackend("interp")->run(s, {});
  RunResult back = resultFromJson(resultToJson(r), "mem");
  EXPECT_TRUE(compareResults(r, back).equal);
  EXPECT_EQ(back.outputs[0].element(0), 0x42000000u);
  nlohmann::json j = resultToJson(r);
  j["outputs"][0]["bits"][0] = "0xZZ";
  try {
    resultFromJson(j, "golden.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "golden.json: output 'out'[0]: \"0xZZ\" is not a valid .f32 bit pattern");
  }
  j = resultToJson(r);
  j["outputs"][0]["count"] = 2;
  EXPECT_THROW(resultFromJson(j, "golden.json"), Error);
  j = resultToJson(r);
  j.erase("format");
  EXPECT_THROW(resultFromJson(j, "golden.json"), Error);
}

TEST(Gate, PassesDetectsDivergenceAndStaleness) {
  LaunchSpec s = loadLaunchSpec(kSource / "kernels/dot");
  EXPECT_TRUE(runGate(s, "nvcc", 4, kSource / "goldens").pass);

  TempDir d;
  GateOutcome none = runGate(s, "nvcc", 4, d.path());
  EXPECT_FALSE(none.pass);
  EXPECT_NE(none.message.find("no usable golden"), std::string::npos);

  RunResult golden = makeBackend("host-ref")->run(s, {});
  stampProvenance(golden, s, "host-ref", "test");
  golden.outputs[0].bytes[0] ^= 1;  // 32 -> 32.000004
  writeResultFile(d.path() / "dot" / "host-ref.json", golden);
  GateOutcome bad = runGate(s, "nvcc", 32, d.path());
  EXPECT_FALSE(bad.pass);
  EXPECT_NE(bad.message.find("out: 1 of 1 elements differ"), std::string::npos) << bad.message;
  EXPECT_NE(bad.message.find("(1 ulp, normal vs normal)"), std::string::npos) << bad.message;
  EXPECT_NE(bad.message.find("reproduce: build/bin/qgpu"), std::string::npos) << bad.message;

  golden.provenance["launch_sha256"] = "0000";
  writeResultFile(d.path() / "dot" / "host-ref.json", golden);
  GateOutcome stale = runGate(s, "nvcc", 4, d.path());
  EXPECT_FALSE(stale.pass);
  ASSERT_EQ(stale.staleGoldens.size(), 1u);
  EXPECT_NE(stale.staleGoldens[0].find("launch.json changed"), std::string::npos);
}

TEST(Gate, ResolvesKernelNamesAndPaths) {
  const std::filesystem::path corpus = kSource / "kernels";
  const std::vector<std::filesystem::path> all = resolveKernels({}, corpus);
  EXPECT_EQ(all, discoverKernels(corpus));
  EXPECT_GE(all.size(), 49u);
  const std::string byPath = (corpus / "saxpy").string();
  const std::vector<std::filesystem::path> named = resolveKernels({"dot", byPath}, corpus);
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0], corpus / "dot");
  EXPECT_EQ(named[1], std::filesystem::path(byPath));
  EXPECT_THROW(resolveKernels({}, corpus / "no-such-folder"), Error);
}

TEST(Backends, UnknownBackendAndCudaWithoutDriver) {
  EXPECT_THROW(makeBackend("tpu"), Error);
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib) {
    dlclose(lib);
    GTEST_SKIP() << "a CUDA driver is installed here; the no-driver path is not reachable";
  }
  LaunchSpec s = loadLaunchSpec(kSource / "kernels/dot");
  try {
    makeBackend("cuda")->run(s, {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Backend);
    EXPECT_NE(std::string(e.what()).find("no CUDA driver"), std::string::npos) << e.what();
  }
}

TEST(Backends, RegisterThemselvesWithWhatTheyDeclare) {
  // The runner's own backends are linked into every program that links qgpu_runner.
  for (const char* name : {"cuda", "host-ref", "interp"}) {
    const BackendInfo* b = findBackend(name);
    ASSERT_NE(b, nullptr) << name;
    EXPECT_EQ(b->make()->name(), b->name);
    EXPECT_FALSE(b->summary.empty()) << name;
  }
  const BackendInfo& interp = backendInfo("interp");
  EXPECT_EQ(interp.provenance, ProvenanceKind::Interpreter);
  EXPECT_TRUE(interp.traces && interp.runsPtx && !interp.recordsGoldens);
  EXPECT_EQ(interp.warpWidths, (std::vector<uint32_t>{4, 32}));
  const BackendInfo& ref = backendInfo("host-ref");
  EXPECT_EQ(ref.provenance, ProvenanceKind::HostReference);
  EXPECT_TRUE(!ref.runsPtx && ref.recordsGoldens && !ref.traces);
  EXPECT_EQ(backendInfo("cuda").provenance, ProvenanceKind::Hardware);
  EXPECT_EQ(makeOracleBackend()->name(), "interp");
  EXPECT_EQ(backendNames([](const BackendInfo& b) { return b.recordsGoldens; }),
            (std::vector<std::string>{"cuda", "host-ref"}));
  EXPECT_EQ(joinBackendNames({"a", "b", "c"}), "a, b or c");
  EXPECT_THROW(registerBackend({.name = "interp", .summary = "again", .provenance = ProvenanceKind::Model,
                                .warpWidths = {}, .runsPtx = true, .traces = false, .tokens = false,
                                .recordsGoldens = false, .make = [] { return makeOracleBackend(); }}),
               std::logic_error);
  try {
    makeBackend("tpu");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("host-ref, interp"), std::string::npos) << e.what();
  }
}

TEST(Goldens, ProvenanceKindIsWhatTheBackendDeclares) {
  LaunchSpec s = loadLaunchSpec(kSource / "kernels/dot");
  RunResult ref = makeBackend("host-ref")->run(s, {});
  stampProvenance(ref, s, "host-ref", "test");
  EXPECT_EQ(ref.provenance["kind"], "host reference");
  EXPECT_TRUE(ref.provenance.contains("host_ref_sha256"));
  EXPECT_FALSE(ref.provenance.contains("ptx_sha256"));
  EXPECT_TRUE(producedBy(ref, ProvenanceKind::HostReference));
  RunResult interp = makeOracleBackend()->run(s, {});
  stampProvenance(interp, s, "interp", "test");
  EXPECT_EQ(interp.provenance["kind"], "interpreter");  // not "hardware"
  EXPECT_TRUE(interp.provenance.contains("ptx_sha256"));
  EXPECT_FALSE(interp.provenance.contains("host_ref_sha256"));
  EXPECT_TRUE(producedBy(interp, ProvenanceKind::Interpreter));
  EXPECT_FALSE(producedBy(interp, ProvenanceKind::Hardware));
  // A golden's staleness follows its recorded kind: an interpreter golden depends on the PTX.
  TempDir d;
  interp.provenance["ptx_sha256"] = "0000";
  writeResultFile(d.path() / "dot" / "interp.json", interp);
  std::vector<Golden> gs = loadGoldens(d.path(), s);
  ASSERT_EQ(gs.size(), 1u);
  EXPECT_TRUE(gs[0].stale);
  EXPECT_NE(gs[0].staleReason.find("changed since it was recorded"), std::string::npos) << gs[0].staleReason;
}

TEST(Goldens, DeviceSourceNames) {
  EXPECT_EQ(sourceNameForDevice("Tesla T4"), "t4");
  EXPECT_EQ(sourceNameForDevice("NVIDIA H200"), "h200");
  EXPECT_EQ(sourceNameForDevice("NVIDIA H100 80GB HBM3"), "h100");
}

}  // namespace
}  // namespace qgpu
