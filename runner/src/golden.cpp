// Goldens: provenance stamping, loading and staleness.
#include "qgpu/golden.h"

#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <fstream>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "qgpu/backend.h"
#include "qgpu/interp/error.h"
#include "qgpu/interp/input_file.h"

namespace qgpu {

std::string sha256File(const std::filesystem::path& path) {
  // Regular files only: the hash of /dev/zero never ends (docs/limits.md).
  checkInputFile(path, "the file to hash", ~uint64_t{0});
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Input, fmt::format("{}: cannot read", path.string()));
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  char buf[65536];
  while (in) {
    in.read(buf, sizeof buf);
    EVP_DigestUpdate(ctx, buf, static_cast<size_t>(in.gcount()));
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_DigestFinal_ex(ctx, md, &len);
  EVP_MD_CTX_free(ctx);
  std::string hex;
  for (unsigned i = 0; i < len; ++i) hex += fmt::format("{:02x}", md[i]);
  return hex;
}

namespace {
std::filesystem::path hostRefPath(const LaunchSpec& spec) { return spec.dir / "host_ref.cpp"; }
}  // namespace

void stampProvenance(RunResult& r, const LaunchSpec& spec, const std::string& source,
                     const std::string& command) {
  auto& p = r.provenance;
  p["source"] = source;
  p["launch_sha256"] = sha256File(spec.file);
  // The kind is what the backend declares; a host reference depends on host_ref.cpp, every
  // other kind on the PTX it ran.
  const ProvenanceKind kind = backendInfo(r.backend).provenance;
  p["kind"] = fromStandInDriver(r) ? kStandInProvenanceKind : provenanceKindName(kind);
  if (kind == ProvenanceKind::HostReference) {
    p["host_ref_sha256"] = sha256File(hostRefPath(spec));
#ifdef __VERSION__
    p["compiler"] = std::string("g++ ") + __VERSION__;
#endif
    p["flags"] = "-O3 -ffp-contract=off -fno-fast-math";
  } else {
    p["ptx_sha256"] = sha256File(spec.ptxPath(r.flavour));
    p["ptx_file"] = spec.ptx.at(r.flavour);
  }
  if (!spec.modelDependent.empty()) p["model_dependent"] = spec.modelDependent;
  p["date"] = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(
                                                     std::chrono::system_clock::now())));
  p["command"] = command;
}

std::vector<Golden> loadGoldens(const std::filesystem::path& goldensDir, const LaunchSpec& spec) {
  std::vector<Golden> out;
  std::filesystem::path dir = goldensDir / spec.name;
  if (!std::filesystem::is_directory(dir)) return out;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string launchHash = sha256File(spec.file);
  for (const auto& f : files) {
    Golden g;
    g.path = f;
    g.source = f.stem().string();
    g.result = readResultFile(f);
    const auto& p = g.result.provenance;
    if (g.result.kernel != spec.name) {
      g.stale = true;
      g.staleReason = fmt::format("recorded for kernel '{}'", g.result.kernel);
    } else if (p.value("launch_sha256", "") != launchHash) {
      g.stale = true;
      g.staleReason = "launch.json changed since it was recorded";
    } else if (p.value("kind", "") == provenanceKindName(ProvenanceKind::HostReference)) {
      std::filesystem::path hr = spec.dir / "host_ref.cpp";
      if (!std::filesystem::exists(hr) || p.value("host_ref_sha256", "") != sha256File(hr)) {
        g.stale = true;
        g.staleReason = "host_ref.cpp changed since it was recorded";
      }
    } else {
      if (!spec.ptx.count(g.result.flavour)) {
        g.stale = true;
        g.staleReason = fmt::format("the spec no longer has '{}' PTX", g.result.flavour);
      } else if (p.value("ptx_sha256", "") != sha256File(spec.ptxPath(g.result.flavour))) {
        g.stale = true;
        g.staleReason = fmt::format("{} changed since it was recorded", spec.ptx.at(g.result.flavour));
      }
    }
    out.push_back(std::move(g));
  }
  return out;
}

// The model token: the first word that is letters followed by digits
// ("T4", "H200", "A100"), lower-cased.
std::string sourceNameForDevice(const std::string& deviceName) {
  size_t i = 0;
  while (i < deviceName.size()) {
    size_t j = deviceName.find(' ', i);
    if (j == std::string::npos) j = deviceName.size();
    std::string word = deviceName.substr(i, j - i);
    size_t k = 0;
    while (k < word.size() && std::isalpha(static_cast<unsigned char>(word[k]))) ++k;
    if (k > 0 && k < word.size() && std::isdigit(static_cast<unsigned char>(word[k]))) {
      std::string s;
      for (char c : word)
        if (std::isalnum(static_cast<unsigned char>(c))) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    }
    i = j + 1;
  }
  return "gpu";
}

}  // namespace qgpu
