// Numerics tooling (issue #4):
//   qgpu lint PTX...     places whose hardware bits the PTX alone does not fix
//   qgpu coverage        opcode x type x modifier forms: accepted / in the corpus / oracle-tested
//   qgpu sfu-probe INSTR approximate instructions on hardware vs the interpreter
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_commands.h"
#include "qgpu/backend.h"
#include "qgpu/interp/error.h"
#include "qgpu/interp/isa.h"
#include "qgpu/interp/oracle_matrix.h"
#include "qgpu/interp/program.h"
#include "qgpu/interp/ptx_parser.h"
#include "qgpu/interp/types.h"
#include "qgpu/launch_spec.h"

namespace qgpu::cli {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error(ErrorKind::Input, fmt::format("{}: cannot read", p.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }
bool isRounding(const std::string& m) { return m == "rn" || m == "rz" || m == "rm" || m == "rp"; }
bool isFloatArithType(const std::vector<std::string>& mods) {
  return has(mods, "f32") || has(mods, "f64") || has(mods, "f16") || has(mods, "f16x2");
}

// ------------------------------------------------------------------ lint
struct Finding {
  std::string file;
  uint32_t line;
  std::string kind, message;
};

std::vector<Finding> lintModule(const ptx::Module& m) {
  std::vector<Finding> out;
  for (const ptx::Function& f : m.functions) {
    struct Def {
      uint32_t line;
      bool acrossLabel;  // a label (join point) lies between the mul and here
    };
    std::map<std::string, Def> unmodedMul;  // register -> the un-moded mul defining it
    for (const ptx::Statement& s : f.body) {
      if (s.kind == ptx::Statement::Kind::Label)
        for (auto& [reg, def] : unmodedMul) def.acrossLabel = true;
      if (s.kind != ptx::Statement::Kind::Instruction) continue;
      const ptx::Instruction& in = s.instruction;
      const auto& mods = in.modifiers;
      bool floatOp = isFloatArithType(mods);
      bool moded = std::any_of(mods.begin(), mods.end(), isRounding);
      if (has(mods, "approx") || (in.opcode == "div" && has(mods, "full")))
        out.push_back({m.fileName, in.loc.line, "approx",
                       fmt::format("'{}': approximate; its bits depend on the chip (the interpreter models it)", in.text)});
      if (in.opcode == "mma" && (has(mods, "f16") || has(mods, "bf16")))
        out.push_back({m.fileName, in.loc.line, "approx",
                       fmt::format("'{}': the f32 accumulation order and rounding of f16/bf16 mma are the chip's; the "
                                   "interpreter models them as sequential fma.rn (docs/semantics.md)",
                                   in.text)});
      if ((in.opcode == "add" || in.opcode == "sub") && floatOp && !moded) {
        for (size_t i = 1; i < in.operands.size(); ++i) {
          const ptx::Operand& op = in.operands[i];
          if (op.kind != ptx::Operand::Kind::Register) continue;
          auto it = unmodedMul.find(op.name);
          if (it == unmodedMul.end()) continue;
          if (!it->second.acrossLabel)
            out.push_back({m.fileName, in.loc.line, "contraction",
                           fmt::format("'{}' uses {} from the un-moded mul at line {}: ptxas may fuse them into "
                                       "one fma (different bits); write .rn on both to forbid it",
                                       in.text, op.name, it->second.line)});
          else
            out.push_back({m.fileName, in.loc.line, "note",
                           fmt::format("'{}' may use {} from the un-moded mul at line {} across a label (join "
                                       "point); contraction needs that mul to be the only reaching definition",
                                       in.text, op.name, it->second.line)});
        }
      }
      if (!in.operands.empty() && in.operands[0].kind == ptx::Operand::Kind::Register) {
        unmodedMul.erase(in.operands[0].name);
        if (in.opcode == "mul" && floatOp && !moded) unmodedMul[in.operands[0].name] = {in.loc.line, false};
      }
    }
  }
  return out;
}

void addLint(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "lint", "Report PTX whose hardware result is not fixed by the PTX alone: un-moded mul.f32/f64 feeding "
              "an un-moded add/sub (ptxas may contract to fma), .approx instructions and f16/bf16 mma. Exit 1 if any, 0 clean, "
              "2 bad input");
  auto files = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("ptx", *files, "PTX files")->required();
  cmd->add_flag("--json", *json, "Print the findings as JSON");
  cmd->callback([files, json, &ctx] {
    std::vector<Finding> all;
    for (const std::string& f : *files) {
      auto found = lintModule(ptx::parseModule(readFile(f), f));
      all.insert(all.end(), found.begin(), found.end());
    }
    if (*json) {
      nlohmann::json j = nlohmann::json::array();
      for (const Finding& x : all) j.push_back({{"file", x.file}, {"line", x.line}, {"kind", x.kind}, {"message", x.message}});
      std::cout << j.dump(2) << "\n";
    } else {
      for (const Finding& x : all) std::cout << fmt::format("{}:{}: {}: {}\n", x.file, x.line, x.kind, x.message);
    }
    size_t serious = std::count_if(all.begin(), all.end(), [](const Finding& x) { return x.kind != "note"; });
    if (!*json)
      std::cout << fmt::format("{} finding(s), {} note(s) in {} file(s)\n", serious, all.size() - serious, files->size());
    ctx.exitCode = serious == 0 ? 0 : 1;
  });
}

// ------------------------------------------------------------------ coverage
// A canonical key for an instruction form: opcode plus its modifiers sorted
// (so "add.rn.ftz.f32" and a corpus "add.ftz.rn.f32" match), then its types in the
// order written (set.lt.f16.u16 and set.lt.u16.f16 are different forms). Memory hints
// and cache operators are not part of a numeric form.
std::string formKey(const std::string& opcode, std::vector<std::string> mods) {
  std::vector<std::string> types;
  std::erase_if(mods, [&](const std::string& m) {
    const bool isType = parseScalarType(m).has_value() || m == "e4m3x2" || m == "e5m2x2";
    if (isType) types.push_back(m);
    return isType;
  });
  std::sort(mods.begin(), mods.end());
  std::string k = opcode;
  for (const auto& m : mods) k += "." + m;
  for (const auto& t : types) k += "." + t;
  return k;
}
std::string keyOfSpelling(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, '.')) parts.push_back(t);
  return formKey(parts[0], std::vector<std::string>(parts.begin() + 1, parts.end()));
}

void addCoverage(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "coverage", "For every opcode x type x modifier form the front end accepts: is it in the corpus "
                  "(kernels/*/*.ptx), is it covered by the numeric oracle tests; plus unsupported PTX instructions");
  struct Opts {
    std::string kernels = "kernels";
    bool json = false, all = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--kernels", o->kernels, "Corpus folder")->capture_default_str();
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->add_flag("--all", o->all, "List every accepted form (default: summary plus corpus forms)");
  cmd->callback([o, &ctx] {
    // Corpus forms.
    std::map<std::string, uint64_t> corpus;
    std::map<std::string, std::string> corpusSpelling;
    std::vector<std::string> files;
    if (fs::is_directory(o->kernels))
      for (const auto& dir : fs::directory_iterator(o->kernels))
        if (dir.is_directory())
          for (const auto& f : fs::directory_iterator(dir.path()))
            if (f.path().extension() == ".ptx") files.push_back(f.path().string());
    std::sort(files.begin(), files.end());
    std::set<std::string> unsupportedInCorpus;
    const auto supported = supportedOpcodes();
    for (const auto& f : files) {
      ptx::Module m = ptx::parseModule(readFile(f), f);
      for (const auto& fn : m.functions)
        for (const auto& s : fn.body) {
          if (s.kind != ptx::Statement::Kind::Instruction) continue;
          const auto& in = s.instruction;
          std::string key = formKey(in.opcode, in.modifiers);
          ++corpus[key];
          std::string sp = in.opcode;
          for (const auto& md : in.modifiers) sp += "." + md;
          corpusSpelling.emplace(key, sp);
          if (!std::binary_search(supported.begin(), supported.end(), in.opcode)) unsupportedInCorpus.insert(in.opcode);
        }
    }
    // Oracle forms (one source of truth: the list the oracle tests iterate).
    std::set<std::string> oracle;
    for (const auto& s : oracle::floatCases()) oracle.insert(keyOfSpelling(s));
    for (const auto& s : oracle::cvtCases()) oracle.insert(keyOfSpelling(s));
    for (const auto& s : oracle::packedCvtCases()) oracle.insert(keyOfSpelling(s));
    for (const auto& s : oracle::warpCases()) oracle.insert(keyOfSpelling(s));
    for (const auto& s : oracle::mmaCases()) oracle.insert(keyOfSpelling(s));
    for (const auto& s : oracle::videoCases()) oracle.insert(keyOfSpelling(s));
    for (const auto& s : oracle::integerCases()) {
      std::stringstream ss(s);
      std::string part;
      while (std::getline(ss, part, '+')) oracle.insert(keyOfSpelling(part));
    }
    // Accepted forms.
    struct Row {
      std::string form;
      bool inCorpus, inOracle;
      uint64_t uses;
    };
    std::vector<Row> rows;
    std::set<std::string> seen;
    // Candidate forms (ptx_isa.def's QGPU_PTX_FORMS rows), each tried through the real
    // front end: the ones that decode are "accepted".
    for (const FormFamily& f : formFamilies())
      for (const auto& form : expandForms(f)) {
        std::string key = keyOfSpelling(form);
        if (!seen.insert(key).second) continue;
        if (!formAccepted(form)) continue;
        auto it = corpus.find(key);
        rows.push_back({form, it != corpus.end(), oracle.count(key) > 0, it == corpus.end() ? 0 : it->second});
      }
    std::set<std::string> catalogued;
    for (const auto& r : rows) catalogued.insert(keyOfSpelling(r.form));
    // Corpus forms outside the numeric catalogue (memory, control, warp ops): listed as seen.
    std::vector<std::pair<std::string, uint64_t>> otherCorpus;
    for (const auto& [key, n] : corpus)
      if (!catalogued.count(key)) otherCorpus.push_back({corpusSpelling[key], n});
    const std::vector<std::string> unsupported = unsupportedOpcodes();
    size_t nCorpus = 0, nOracle = 0, nBoth = 0;
    for (const auto& r : rows) {
      nCorpus += r.inCorpus;
      nOracle += r.inOracle;
      nBoth += r.inCorpus && r.inOracle;
    }
    std::vector<std::string> corpusNotOracle;
    for (const auto& r : rows)
      if (r.inCorpus && !r.inOracle) corpusNotOracle.push_back(r.form);
    if (o->json) {
      nlohmann::json j;
      j["corpus_files"] = files.size();
      j["accepted_forms"] = rows.size();
      j["in_corpus"] = nCorpus;
      j["oracle_tested"] = nOracle;
      j["corpus_and_oracle"] = nBoth;
      j["forms"] = nlohmann::json::array();
      for (const auto& r : rows)
        j["forms"].push_back({{"form", r.form}, {"corpus_uses", r.uses}, {"oracle", r.inOracle}});
      j["other_corpus_forms"] = nlohmann::json::object();
      for (const auto& [sp, n] : otherCorpus) j["other_corpus_forms"][sp] = n;
      j["unsupported_opcodes"] = unsupported;
      j["unsupported_in_corpus"] = std::vector<std::string>(unsupportedInCorpus.begin(), unsupportedInCorpus.end());
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << fmt::format("corpus: {} PTX file(s) under {}\n", files.size(), o->kernels);
      std::cout << fmt::format("numeric forms the front end accepts: {}\n", rows.size());
      std::cout << fmt::format("  exercised by the corpus:           {}\n", nCorpus);
      std::cout << fmt::format("  covered by the numeric oracle:     {}\n", nOracle);
      std::cout << fmt::format("  both:                              {}\n", nBoth);
      std::cout << "\nform                                corpus  oracle\n";
      for (const auto& r : rows)
        if (o->all || r.inCorpus)
          std::cout << fmt::format("{:<36}{:>6}  {}\n", r.form, r.uses, r.inOracle ? "yes" : "no");
      if (!o->all) std::cout << "(--all lists every accepted form)\n";
      if (!corpusNotOracle.empty()) {
        std::cout << "\ncorpus forms without oracle coverage:\n";
        for (const auto& f : corpusNotOracle) std::cout << "  " << f << "\n";
      }
      std::cout << "\nother corpus instructions (memory, control, warp; not numeric forms):\n";
      for (const auto& [sp, n] : otherCorpus) std::cout << fmt::format("  {:<36}{:>6}\n", sp, n);
      std::cout << "\nPTX instructions the front end does not support:\n  ";
      for (size_t i = 0; i < unsupported.size(); ++i) std::cout << unsupported[i] << (i + 1 < unsupported.size() ? " " : "\n");
      if (!unsupportedInCorpus.empty()) {
        std::cout << "unsupported instructions USED by the corpus:";
        for (const auto& u : unsupportedInCorpus) std::cout << " " << u;
        std::cout << "\n";
      }
    }
    ctx.exitCode = 0;
  });
}

// ------------------------------------------------------------------ sfu-probe
// The kernel: out[i] = INSTR(in[i]) (or INSTR(in[i], b) for div) for i < n.
std::string probePtx(const std::string& instr, bool binary, const std::string& bBits) {
  std::string op = binary ? fmt::format("{} %f2, %f1, 0f{};", instr, bBits) : fmt::format("{} %f2, %f1;", instr);
  return fmt::format(R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry probe(.param .u64 pin, .param .u64 pout, .param .u32 pn)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.param.u32 %r1, [pn];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  {}
  st.global.f32 [%rd5], %f2;
DONE:
  ret;
}}
)",
                     op);
}

// Distance in units in the last place between two non-NaN floats.
uint64_t ulpDistance(uint32_t a, uint32_t b) {
  auto ord = [](uint32_t x) -> int64_t {
    return (x & 0x80000000u) ? -static_cast<int64_t>(x & 0x7fffffffu) : static_cast<int64_t>(x);
  };
  int64_t d = ord(a) - ord(b);
  return static_cast<uint64_t>(d < 0 ? -d : d);
}

// One end of --range: all of `text` as 0x hex or decimal (std::stoull took "12abc" as 12
// and threw a bare "stoull" for "abc").
uint64_t rangeBound(const std::string& text) {
  bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const char* begin = text.data() + (hex ? 2 : 0);
  const char* end = text.data() + text.size();
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(begin, end, v, hex ? 16 : 10);
  if (begin == end || ptr != end || ec != std::errc())
    throw Error(ErrorKind::Input, fmt::format("--range: '{}' is not an input bit pattern (0x hex or decimal, at most 2^32)", text));
  return v;
}

// Inputs per launch: two u32 buffers of that many elements, each within a launch's 1 GiB.
constexpr uint64_t kMaxProbeSlice = kMaxBufferBytes / 4;

void addSfuProbe(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "sfu-probe", "Run an approximate f32 instruction (e.g. rcp.approx.ftz.f32) over an input set on the cuda "
                   "backend and compare with the interpreter: bit-exact count and ULP histogram");
  struct Opts {
    std::string instr, range, b = "3f800000", against;
    bool all = false, json = false;
    uint64_t slice = 1u << 24;
  };
  auto o = std::make_shared<Opts>();
  const std::vector<std::string> hardware =
      backendNames([](const BackendInfo& b) { return b.provenance == ProvenanceKind::Hardware; });
  if (!hardware.empty()) o->against = hardware.front();
  cmd->add_option("instr", o->instr, "Instruction, e.g. ex2.approx.ftz.f32 or div.full.f32")->required();
  cmd->add_option("--range", o->range, "Input bit patterns LO:HI (hex or decimal, HI exclusive)");
  cmd->add_flag("--all", o->all, "All 2^32 f32 inputs, in slices");
  cmd->add_option("--slice", o->slice, fmt::format("Inputs per launch (1 to {})", kMaxProbeSlice))
      ->check(unsignedOption(1))
      ->capture_default_str();
  cmd->add_option("--b", o->b, "Second operand bits (hex) of div.*")->capture_default_str();
  cmd->add_option("--against", o->against, "Backend compared with the interpreter (default: the hardware backend; the interpreter self-checks)")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print the report as JSON");
  cmd->callback([o, &ctx] {
    if (o->instr.find(".f32") == std::string::npos)
      throw Error(ErrorKind::Input, "sfu-probe probes f32 instructions (e.g. rcp.approx.f32)");
    bool binary = o->instr.rfind("div", 0) == 0;
    uint64_t lo = 0, hi = 0;
    if (o->all) {
      hi = uint64_t{1} << 32;
    } else {
      auto colon = o->range.find(':');
      if (colon == std::string::npos) throw Error(ErrorKind::Input, "sfu-probe needs --range LO:HI or --all");
      lo = rangeBound(o->range.substr(0, colon));
      hi = rangeBound(o->range.substr(colon + 1));
      if (hi <= lo || hi > (uint64_t{1} << 32)) throw Error(ErrorKind::Input, "--range: need LO < HI <= 2^32");
    }
    if (o->slice > kMaxProbeSlice)
      throw Error(ErrorKind::Input, fmt::format("--slice: {} is more than {} inputs per launch (a buffer is at most "
                                                "1 GiB)", o->slice, kMaxProbeSlice));
    std::string ptx = probePtx(o->instr, binary, o->b);
    if (!decodesInKernel(".reg .f32 %f<3>;\n" + (binary ? fmt::format("{} %f2, %f1, 0f{};", o->instr, o->b)
                                               : fmt::format("{} %f2, %f1;", o->instr))))
      throw Error(ErrorKind::Input, fmt::format("'{}' is not an instruction the interpreter accepts", o->instr));
    auto hw = makeBackend(o->against);
    auto interp = makeOracleBackend();
    fs::path dir = fs::temp_directory_path() / fmt::format("qgpu-sfu-probe-{}", ::getpid());
    fs::create_directories(dir);
    {
      std::ofstream(dir / "probe.ptx") << ptx;
    }
    uint64_t total = 0, exact = 0, nanMismatch = 0;
    std::map<int, uint64_t> hist;  // bucket k: ULP distance in [2^(k-1), 2^k), 0: exact
    std::vector<std::string> examples;
    // What ran the probe, from the first launch's provenance: a stand-in driver must show.
    std::string device;
    bool standIn = false;
    try {
      for (uint64_t start = lo; start < hi; start += o->slice) {
        uint64_t n = std::min<uint64_t>(o->slice, hi - start);
        nlohmann::json spec = {
            {"name", "sfu-probe"},
            {"ptx", {{"nvcc", "probe.ptx"}}},
            {"entry", "probe"},
            {"grid", {(n + 255) / 256, 1, 1}},
            {"block", {256, 1, 1}},
            {"params",
             {{{"name", "pin"}, {"buffer", {{"type", "u32"}, {"count", n}, {"init", {{"iota", {{"start", start}, {"step", 1}}}}}}}},
              {{"name", "pout"}, {"buffer", {{"type", "u32"}, {"count", n}}}},
              {{"name", "pn"}, {"scalar", {{"type", "u32"}, {"value", n}}}}}},
            {"outputs", {"pout"}}};
        std::ofstream(dir / "launch.json") << spec.dump(2);
        LaunchSpec ls = loadLaunchSpec(dir / "launch.json");
        RunOptions ro;
        ro.warpWidth = 32;
        ro.maxSteps = ~uint64_t{0};
        RunResult want = hw->run(ls, ro);
        RunResult got = interp->run(ls, ro);
        device = want.provenance.value("device", "");
        standIn = fromStandInDriver(want);
        const OutputBuffer& wb = want.outputs.at(0);
        const OutputBuffer& gb = got.outputs.at(0);
        for (uint64_t i = 0; i < n; ++i) {
          uint32_t a = static_cast<uint32_t>(wb.element(i)), b = static_cast<uint32_t>(gb.element(i));
          ++total;
          bool na = std::isnan(std::bit_cast<float>(a)), nb = std::isnan(std::bit_cast<float>(b));
          if (a == b) {
            ++exact;
            ++hist[0];
            continue;
          }
          if (examples.size() < 10)
            examples.push_back(fmt::format("in {:#010x}: {} {:#010x}, interp {:#010x}", start + i, o->against, a, b));
          if (na || nb) {
            ++nanMismatch;
            continue;
          }
          uint64_t d = ulpDistance(a, b);
          int k = 64 - std::countl_zero(d);
          ++hist[k];
        }
      }
    } catch (...) {
      fs::remove_all(dir);
      throw;
    }
    fs::remove_all(dir);
    if (o->json) {
      nlohmann::json j = {{"instr", o->instr}, {"against", o->against}, {"inputs", total}, {"bit_exact", exact},
                          {"nan_mismatch", nanMismatch}, {"examples", examples}};
      if (!device.empty()) j["device"] = device;
      if (standIn) j["stand_in"] = true;
      for (auto [k, n] : hist) j["ulp_histogram"][k == 0 ? "0" : fmt::format("<{}", uint64_t{1} << k)] = n;
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << fmt::format("{} on {}{} vs interp: {}/{} bit-exact\n", o->instr, o->against,
                               device.empty() ? "" : " (" + device + ")", exact, total);
      if (standIn) std::cout << "(through the stand-in CUDA driver: the interpreter, not hardware)\n";
      std::cout << "ULP distance histogram:\n";
      for (auto [k, n] : hist)
        std::cout << fmt::format("  {:>12}  {}\n", k == 0 ? std::string("0") : fmt::format("[{}, {})", uint64_t{1} << (k - 1), uint64_t{1} << k), n);
      if (nanMismatch) std::cout << fmt::format("  NaN vs other: {}\n", nanMismatch);
      for (const auto& e : examples) std::cout << "  " << e << "\n";
    }
    ctx.exitCode = exact == total ? 0 : 1;
  });
}

}  // namespace

void addNumericsCommands(CLI::App& app, Context& ctx) {
  addLint(app, ctx);
  addCoverage(app, ctx);
  addSfuProbe(app, ctx);
}

}  // namespace qgpu::cli
