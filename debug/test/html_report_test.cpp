// The HTML report opens in headless Chromium (Debian `chromium`): the test
// renders one report and checks the rendered DOM for the key elements.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>

#include "qgpu/debug/html_report.h"
#include "test_support.h"

namespace qgpu {
namespace {

using test::pcOf;
using test::testKernel;

std::string findChromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"})
    if (std::filesystem::exists(p)) return p;
  return "";
}

std::string runCommand(const std::string& cmd, int& rc) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) out.append(buf.data(), n);
  rc = pclose(f);
  return out;
}

ResultDiff faultySaxpyDiff(const Program*& program, const LaunchSpec& saxpy) {
  RunResult a = makeBackend("interp")->run(saxpy, RunOptions{});
  RunOptions faulty;
  faulty.inject = parseFaultInjection(fmt::format("pc={},lane=0,bit=22", pcOf(saxpy, "fma.rn.f32")));
  static AttributedRun b;
  b = runAttributed(saxpy, faulty);
  program = &loadProgram(saxpy.ptxPath("nvcc"));
  ResultDiff d = diffResults(a, b.result, "clean <run>", "faulty & injected", 8, &b, program, &saxpy);
  d.attribution = b.label;
  return d;
}

TEST(HtmlReport, IsSelfContainedAndEscaped) {
  LaunchSpec saxpy = testKernel("saxpy");
  const Program* program = nullptr;
  std::string html = renderHtmlReport(faultySaxpyDiff(program, saxpy), program, "qgpu diff a b");
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("clean &lt;run&gt;"), std::string::npos);
  EXPECT_NE(html.find("faulty &amp; injected"), std::string::npos);
}

TEST(HtmlReport, RendersInHeadlessChromium) {
  std::string chromium = findChromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium)";
  LaunchSpec saxpy = testKernel("saxpy");
  const Program* program = nullptr;
  ResultDiff d = faultySaxpyDiff(program, saxpy);
  auto dir = test::scratchDir("html");
  std::ofstream(dir / "report.html") << renderHtmlReport(d, program, "qgpu diff a b --html report.html");
  int rc = -1;
  std::string dom = runCommand(
      fmt::format("{} --headless --disable-gpu --no-sandbox --no-first-run --user-data-dir={} --dump-dom file://{} "
                  "2>/dev/null",
                  chromium, (dir / "profile").string(), (dir / "report.html").string()),
      rc);
  ASSERT_EQ(rc, 0) << dom;
  uint32_t store = pcOf(saxpy, "st.global.f32");
  // The inline script ran, so the browser parsed and rendered the whole page.
  EXPECT_NE(dom.find("data-rendered=\"ok\""), std::string::npos) << dom;
  EXPECT_NE(dom.find("id=\"verdict\" class=\"divergent\""), std::string::npos) << dom;
  EXPECT_NE(dom.find("DIVERGENT: 1 of 16 elements differ"), std::string::npos) << dom;
  EXPECT_NE(dom.find("id=\"buffer-y\""), std::string::npos) << dom;
  EXPECT_NE(dom.find("<tr class=\"mismatch\"><td>0</td>"), std::string::npos) << dom;
  EXPECT_NE(dom.find(fmt::format("id=\"pc-{}\"", store)), std::string::npos) << dom;
  EXPECT_NE(dom.find("<pre class=\"ptx\">"), std::string::npos) << dom;
  EXPECT_NE(dom.find("st.global.f32"), std::string::npos) << dom;
  EXPECT_NE(dom.find("<pre class=\"cu\">"), std::string::npos) << dom;
  EXPECT_NE(dom.find("y[i] = a * v + y[i];"), std::string::npos) << dom;
}

}  // namespace
}  // namespace qgpu
