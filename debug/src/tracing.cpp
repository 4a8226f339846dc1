// Interpreter runs with observers: trace files (qgpu run --trace) and write attribution.
#include "qgpu/debug/tracing.h"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include "qgpu/interp/error.h"

namespace qgpu {

namespace {
// Buffer params become launch buffers in declaration order (materializeLaunch).
std::map<std::string, uint32_t> bufferIndices(const LaunchSpec& spec) {
  std::map<std::string, uint32_t> m;
  uint32_t next = 0;
  for (const ParamSpec& p : spec.params)
    if (p.isBuffer) m[p.name] = next++;
  return m;
}
}  // namespace

TraceHeader traceHeaderFor(const LaunchSpec& spec, const RunOptions& options) {
  TraceHeader h;
  h.kernel = spec.name;
  h.entry = spec.entry;
  h.flavour = options.flavour;
  h.ptx = spec.ptxPath(options.flavour).string();
  h.warpWidth = options.warpWidth;
  h.grid = spec.grid;
  h.block = spec.block;
  if (options.inject) h.inject = formatFaultInjection(*options.inject);
  auto index = bufferIndices(spec);
  for (const ParamSpec& p : spec.params)
    if (p.isBuffer)
      h.buffers.push_back({index[p.name], p.name, scalarTypeName(p.buffer.type), p.buffer.count,
                           std::find(spec.outputs.begin(), spec.outputs.end(), p.name) != spec.outputs.end()});
  return h;
}

TraceSession::TraceSession(const LaunchSpec& spec, RunOptions& options, const std::filesystem::path& path,
                           uint64_t maxSteps)
    : out_(path) {
  if (!out_) throw Error(ErrorKind::Input, fmt::format("{}: cannot write the trace", path.string()));
  const Program& program = loadProgram(spec.ptxPath(options.flavour));
  writer_ = std::make_unique<TraceWriter>(out_, program, traceHeaderFor(spec, options), maxSteps, options.observer);
  options.observer = writer_.get();
}

TraceSession::~TraceSession() {
  if (!finished_) finish("the launch failed (its error was reported where it was run)");
}

void TraceSession::finish(const std::string& error) {
  if (finished_) return;
  finished_ = true;
  writer_->finish(error);
}

RunResult runTraced(const LaunchSpec& spec, const RunOptions& options,
                    const std::filesystem::path& tracePath, uint64_t maxSteps) {
  RunOptions traced = options;
  TraceSession session(spec, traced, tracePath, maxSteps);
  try {
    RunResult r = makeOracleBackend()->run(spec, traced);
    session.finish();
    return r;
  } catch (const Error& e) {
    session.finish(e.what());
    throw;
  }
}

const WriterInfo* AttributedRun::writerOf(const std::string& output, uint64_t element) const {
  auto it = writers.find(output);
  if (it == writers.end() || element >= it->second.size() || !it->second[element]) return nullptr;
  return &*it->second[element];
}

AttributedRun runAttributed(const LaunchSpec& spec, const RunOptions& options) {
  Launch sizes = materializeLaunch(spec);  // same buffer sizes as the run's own launch
  WriteAttribution attribution(sizes, options.observer);
  RunOptions ro = options;
  ro.observer = &attribution;
  AttributedRun a;
  a.result = makeOracleBackend()->run(spec, ro);
  a.label = fmt::format("interp {} W={}{}", options.flavour, options.warpWidth,
                        options.inject ? " inject " + formatFaultInjection(*options.inject) : "");
  auto index = bufferIndices(spec);
  for (const OutputBuffer& o : a.result.outputs) {
    uint32_t eb = scalarTypeBytes(o.type);
    auto& w = a.writers[o.name];
    for (uint64_t i = 0; i < o.count; ++i) {
      w.push_back(attribution.lastWriter(index[o.name], i * eb, eb));
    }
  }
  return a;
}

}  // namespace qgpu
