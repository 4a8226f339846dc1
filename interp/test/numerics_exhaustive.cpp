// Exhaustive mode of the numeric oracle (not run by ctest): every one of the
// 2^32 f32 inputs of the unary forms (rcp, sqrt in all rounding modes, with
// and without .ftz; cvt.*.f32 forms with --cvt) through the decoded handler,
// compared with the same references as numerics_oracle_tests.
//   build/bin/numerics_exhaustive [FORM...]   (default: every rcp/sqrt .f32 form)
#include <cstdio>
#include <string>
#include <vector>

#include "oracle/harness.h"
#include "oracle/reference.h"
#include "qgpu/interp/oracle_matrix.h"

using namespace qgpu::oracle;

int main(int argc, char** argv) {
  std::vector<std::string> forms;
  for (int i = 1; i < argc; ++i) forms.push_back(argv[i]);
  if (forms.empty())
    for (const auto& f : floatCases())
      if ((f.rfind("rcp.", 0) == 0 || f.rfind("sqrt.", 0) == 0) && f.find(".f32") != std::string::npos) forms.push_back(f);
  uint64_t totalMismatches = 0;
  for (const auto& form : forms) {
    bool cvt = form.rfind("cvt.", 0) == 0;
    FloatCase fc;
    CvtCase cc;
    std::string dst = "%r4";
    if (cvt) {
      cc = parseCvtCase(form);
      int b = regBits(cc.dst);
      dst = (b == 16 ? "%h4" : b == 32 ? "%r4" : "%rd4");
    } else {
      fc = parseFloatCase(form);
    }
    OneInstr k(form + " " + dst + ", %r1;");
    uint64_t* src = k.lanes("%r1");
    uint64_t* out = k.lanes(dst);
    uint64_t mismatches = 0;
    for (uint64_t base = 0; base < (uint64_t{1} << 32); base += kLanes) {
      if ((base & ((uint64_t{1} << 28) - 1)) == 0 && base) {
        std::fprintf(stderr, "  %s: %llu/16 done, %llu mismatches so far\n", form.c_str(),
                     static_cast<unsigned long long>(base >> 28), static_cast<unsigned long long>(mismatches));
      }
      for (uint32_t l = 0; l < kLanes; ++l) src[l] = base + l;
      k.run();
      for (uint32_t l = 0; l < kLanes; ++l) {
        uint64_t a = base + l;
        bool ok = cvt ? out[l] == expectCvt(cc, a)
                      : fc.id == FOp::Sqrt ? sqrtCorrect(fc, a, out[l]) : out[l] == expectFloat(fc, a, 0, 0);
        if (!ok && ++mismatches <= 5)
          std::printf("  %s: input %#010llx -> got %#llx\n", form.c_str(), static_cast<unsigned long long>(a),
                      static_cast<unsigned long long>(out[l]));
      }
    }
    std::printf("[exhaustive] %s: 4294967296 inputs, %llu mismatches\n", form.c_str(),
                static_cast<unsigned long long>(mismatches));
    std::fflush(stdout);
    totalMismatches += mismatches;
  }
  return totalMismatches == 0 ? 0 : 1;
}
