// `qgpu diff --html FILE`: one self-contained page (inline CSS, no external
// resources) with the verdict, a table per output buffer, and for every
// writing instruction the PTX around it and its .cu line.
#pragma once

#include <string>

#include "qgpu/debug/result_diff.h"

namespace qgpu {

/// `program` (may be null) supplies the PTX context of writing instructions;
/// `command` is shown as the command that reproduces the report.
std::string renderHtmlReport(const ResultDiff& d, const Program* program, const std::string& command);

std::string htmlEscape(const std::string& s);

}  // namespace qgpu
