// The HTML report of `qgpu diff --html`: one self-contained page per diff.
#include "qgpu/debug/html_report.h"

#include <map>

#include <fmt/format.h>

namespace qgpu {

std::string htmlEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

namespace {

const char* kStyle = R"(body{font-family:sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}h1.divergent{color:#b00}h1.identical{color:#070}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.2em .6em;font-family:monospace;text-align:left}
th{background:#eee}pre{background:#f6f6f6;padding:.5em;overflow-x:auto}.hit{background:#ffd54f;font-weight:bold}
code{background:#f0f0f0;padding:0 .2em})";

std::string context(const std::vector<std::pair<uint32_t, std::string>>& lines, uint32_t hit) {
  std::string s;
  for (const auto& [n, text] : lines)
    s += fmt::format("<span{}>{:5}  {}</span>\n", n == hit ? " class=\"hit\"" : "", n, htmlEscape(text));
  return s;
}

}  // namespace

std::string renderHtmlReport(const ResultDiff& d, const Program* program, const std::string& command) {
  std::string h = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>qgpu diff: {}</title>"
      "<style>{}</style></head>\n<body>\n<h1 id=\"verdict\" class=\"{}\">{}</h1>\n"
      "<p>expected: <code>{}</code><br>actual: <code>{}</code></p>\n",
      d.equal ? "identical" : "divergent", kStyle, d.equal ? "identical" : "divergent", htmlEscape(d.verdict()),
      htmlEscape(d.expectedLabel), htmlEscape(d.actualLabel));
  if (!command.empty()) h += fmt::format("<p>reproduce: <code id=\"command\">{}</code></p>\n", htmlEscape(command));
  if (!d.problems.empty()) {
    h += "<ul id=\"problems\">\n";
    for (const std::string& p : d.problems) h += "<li>" + htmlEscape(p) + "</li>\n";
    h += "</ul>\n";
  }
  std::map<uint32_t, PcInfo> writers;
  for (const BufferDiff& b : d.buffers) {
    h += fmt::format("<h2>{} <small>(.{} &times; {}): {} differ</small></h2>\n", htmlEscape(b.name),
                     scalarTypeName(b.type), b.count, b.differing);
    if (!b.differing) continue;
    h += fmt::format("<table class=\"diff\" id=\"buffer-{}\">\n<tr><th>index</th><th>expected</th><th>actual</th>"
                     "<th>ULP</th><th>class</th><th>written by</th></tr>\n",
                     htmlEscape(b.name));
    for (const ElementDiff& e : b.first) {
      std::string writer = "&mdash;";
      if (e.writer) {
        writers[e.writer->info.pc] = e.writer->where;
        writer = fmt::format("block {} thread {}: <a href=\"#pc-{}\">pc {}</a> <code>{}</code>", e.writer->block,
                             e.writer->thread, e.writer->info.pc, e.writer->info.pc,
                             htmlEscape(e.writer->where.text));
      }
      h += fmt::format("<tr class=\"mismatch\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       e.index, htmlEscape(formatElement(b.type, e.expected)),
                       htmlEscape(formatElement(b.type, e.actual)), e.ulp,
                       isFloat(b.type) ? e.expectedClass + " / " + e.actualClass : "", writer);
    }
    h += "</table>\n";
    if (b.differing > b.first.size())
      h += fmt::format("<p>&hellip; {} more differing elements (raise --first)</p>\n", b.differing - b.first.size());
  }
  if (!writers.empty()) {
    h += fmt::format("<h2>Writing instructions <small>({})</small></h2>\n", htmlEscape(d.attribution));
    for (const auto& [pc, w] : writers) {
      h += fmt::format("<section class=\"writer\" id=\"pc-{}\"><h3>pc {} in {}: <code>{}</code></h3>\n", pc, pc,
                       htmlEscape(w.function), htmlEscape(w.text));
      if (program && w.ptxLine) {
        std::vector<std::pair<uint32_t, std::string>> lines;
        const auto& src = program->module.sourceLines;
        for (uint32_t n = w.ptxLine > 6 ? w.ptxLine - 6 : 1; n <= w.ptxLine + 3 && n <= src.size(); ++n)
          lines.emplace_back(n, src[n - 1]);
        h += fmt::format("<p>{}:{}</p><pre class=\"ptx\">{}</pre>\n", htmlEscape(w.ptxFile), w.ptxLine,
                         context(lines, w.ptxLine));
      }
      if (w.srcLine) {
        auto lines = fileContext(w.srcFile, w.srcLine, 3);
        h += fmt::format("<p>{}:{}</p>", htmlEscape(w.srcFile), w.srcLine);
        h += lines.empty() ? "<p>(source file not readable)</p>\n"
                           : fmt::format("<pre class=\"cu\">{}</pre>\n", context(lines, w.srcLine));
      } else {
        h += "<p>(no .loc line information in this PTX)</p>\n";
      }
      h += "</section>\n";
    }
  }
  // Marks the page as rendered by a browser (the headless test looks for it).
  h += "<script>document.body.dataset.rendered = 'ok';</script>\n</body></html>\n";
  return h;
}

}  // namespace qgpu
