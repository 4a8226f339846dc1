#!/usr/bin/env python3
"""The hardware path without hardware (ctest label `hardware-path`): one case per ctest test.

Each case runs `qgpu record --backend cuda`, ci/hw-compare or `qgpu sfu-probe` with
QGPU_CUDA_DRIVER naming the stand-in driver (cuda_standin.cpp), so the cuda backend's own
dlopen loads it, and checks the plumbing: argument marshalling, copies both ways, provenance,
the driver's errors as clean exit-2 messages, nothing leaked, and that record never writes the
stand-in's results into goldens/. The stand-in's call log (QGPU_CUDA_STANDIN_LOG) shows what
crossed the Driver API. Exit 0 pass, 1 fail, 77 skipped (qgpu built without cuda.h).
Usage: hardware_path_test.py --qgpu BIN --standin LIB --src SRC --work DIR CASE
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
KERNELS = HERE / "kernels"
NOTHING_LEAKED = "unload: 0 allocations (0 bytes) not freed, 0 modules not unloaded, " \
                 "primary context retained 0 more times than released"


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


class Case:
    def __init__(self, a, name):
        self.qgpu, self.standin, self.src = a.qgpu, a.standin, pathlib.Path(a.src)
        self.work = pathlib.Path(a.work) / name
        shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir(parents=True)
        self.log = self.work / "driver.log"

    def run(self, args, env=None, cwd=None, timeout=30):
        e = dict(os.environ, QGPU_CUDA_DRIVER=self.standin, QGPU_CUDA_STANDIN_LOG=str(self.log))
        e.update(env or {})
        p = subprocess.run(args, cwd=cwd or self.work, env=e, capture_output=True, text=True, timeout=timeout)
        out = p.stdout + p.stderr
        print(f"$ {' '.join(str(x) for x in args)}\nexit {p.returncode}\n{out[-3000:]}")
        return p.returncode, out

    def qgpu_run(self, *args, **kw):
        return self.run([self.qgpu, *args], **kw)

    def record(self, *kernels, goldens="recorded", **kw):
        return self.qgpu_run("record", "--backend", "cuda", *kernels, "--kernels-dir", str(KERNELS),
                             "--goldens-dir", str(self.work / goldens), **kw)

    def driver_log(self):
        return self.log.read_text() if self.log.exists() else ""

    def expect_nothing_leaked(self):
        last = self.driver_log().strip().splitlines()[-1:]
        expect(last == [NOTHING_LEAKED], f"the stand-in's last log line is {last}, expected [{NOTHING_LEAKED!r}]")

    def expect_error(self, rc, out, pattern):
        expect(rc == 2, f"exit {rc}, expected 2")
        expect(re.search(pattern, out, re.M), f"the output does not match /{pattern}/")
        expect("Traceback" not in out and "terminate called" not in out, "a crash")


def result_bits(path):
    r = json.loads(pathlib.Path(path).read_text())
    return r, {o["name"]: [int(x, 16) for x in o["bits"]] for o in r["outputs"]}


def golden_files(folder):
    return sorted(str(p.relative_to(folder)) for p in pathlib.Path(folder).rglob("*.json"))


# ------------------------------------------------------------------ record
def record_marshalling(c):
    rc, out = c.record("marshal")
    expect(rc == 0, f"record exit {rc}")
    r, bits = result_bits(c.work / "recorded/marshal/standin.json")
    # The scalars as the kernel saw them: u8 171, u16 0xbeef, f64 -1.5, s32 20.
    expect(bits["pout"] == [0xab, 0xbeef, 0xbff8000000000000, 20], f"scalars echoed {bits['pout']}")
    # in-out copied in and back: io[i] += in[i] for i < 20, the rest as initialised.
    want = [65536 + 256 * i + (1000 + 3 * i if i < 20 else 0) for i in range(24)]
    expect(bits["pio"] == want, f"pio {bits['pio']}")
    p = r["provenance"]
    expect("stand-in" in p.get("device", ""), f"device {p.get('device')!r} does not say stand-in")
    expect("not hardware" in p.get("stand_in", ""), f"stand_in {p.get('stand_in')!r}")
    expect(p.get("kind") == "stand-in driver (not hardware)", f"kind {p.get('kind')!r}")
    expect(p.get("driver_library") == c.standin, f"driver_library {p.get('driver_library')!r}")
    expect(p.get("compute_capability") == "7.5" and p.get("source") == "standin", f"provenance {p}")
    expect("stand-in" in p.get("jit_info_log", ""), "the JIT info log did not come through")
    log = c.driver_log()
    launch = re.findall(r"^cuLaunchKernel marshal .*$", log, re.M)
    expect(len(launch) == 1, f"{len(launch)} launches")
    expect(re.fullmatch(r"cuLaunchKernel marshal grid 1,1,1 block 32,1,1 shared 0 params pa=0xab pin=(0x[0-9a-f]+) "
                        r"pb=0xbeef pio=(0x[0-9a-f]+) pc=0xbff8000000000000 pout=(0x[0-9a-f]+) pn=0x14",
                        launch[0]), f"launch line {launch[0]!r}")
    # Every buffer is copied in whole (outputs too: their initial contents count) and out whole.
    expect(re.findall(r"^cuMemcpyHtoD 0x[0-9a-f]+ (\d+) bytes$", log, re.M) == ["96", "96", "32"], "HtoD copies")
    expect(re.findall(r"^cuMemcpyDtoH 0x[0-9a-f]+ (\d+) bytes$", log, re.M) == ["96", "96", "32"], "DtoH copies")
    c.expect_nothing_leaked()


def record_refuses_goldens(c):
    # The default folder, goldens/ of wherever qgpu runs, and one named explicitly.
    (c.work / "goldens").mkdir()
    for args in ([], ["--goldens-dir", str(c.work / "goldens") + "/"]):
        rc, out = c.qgpu_run("record", "--backend", "cuda", "marshal", "--kernels-dir", str(KERNELS), *args)
        c.expect_error(rc, out, r"marshal came from the stand-in CUDA driver .* never goldens")
        expect(golden_files(c.work / "goldens") == [], "a stand-in result was written into goldens/")


def record_bad_ptx(c):
    rc, out = c.record("bad_ptx")
    c.expect_error(rc, out, r"bad_ptx \[nvcc\]: backend error: cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX \(218\)")
    expect(re.search(r"JIT log for .*bad_ptx/kernel\.ptx:\n.*frobnicate", out), "the JIT error log is missing")
    expect(re.search(r"0 goldens written, 1 failed", out), "record's summary")
    expect(golden_files(c.work / "recorded") == [], "a golden was written")
    c.expect_nothing_leaked()


def record_trap(c):
    # A fault poisons the context, as on a GPU: the kernel after it is not blamed for it.
    rc, out = c.record("trap", "marshal")
    c.expect_error(rc, out, r"trap \[nvcc\]: backend error: cuCtxSynchronize \(kernel execution\) failed: "
                            r"CUDA_ERROR_ILLEGAL_INSTRUCTION \(715\)")
    expect(re.search(r"qgpu CUDA stand-in: launch of trapper failed: trap", out), "the stand-in's reason")
    expect(re.search(r"marshal \[nvcc\]: backend error: not run: the CUDA context was lost when trap faulted", out),
           "the kernel after the fault")
    expect(re.search(r"0 goldens written, 2 failed", out), "record's summary")
    c.expect_nothing_leaked()


def record_step_budget(c):
    rc, out = c.record("spin", env={"QGPU_CUDA_STANDIN_MAX_STEPS": "1000"})
    c.expect_error(rc, out, r"spin \[nvcc\]: backend error: cuCtxSynchronize \(kernel execution\) failed: "
                            r"CUDA_ERROR_LAUNCH_TIMEOUT \(702\)")
    expect(re.search(r"step limit of 1000", out), "the stand-in's reason")
    c.expect_nothing_leaked()


def record_out_of_memory(c):
    # 150 bytes: the first 96-byte buffer fits, the second does not.
    rc, out = c.record("marshal", env={"QGPU_CUDA_STANDIN_MEMORY": "150"})
    c.expect_error(rc, out, r"marshal \[nvcc\]: backend error: cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY \(2\)")
    expect(golden_files(c.work / "recorded") == [], "a golden was written")
    c.expect_nothing_leaked()


def record_no_driver(c):
    missing = str(c.work / "no-such-driver.so")
    rc, out = c.record("marshal", env={"QGPU_CUDA_DRIVER": missing})
    c.expect_error(rc, out, rf"no CUDA driver: dlopen\({re.escape(missing)}\) failed")
    # A library that is no CUDA driver at all.
    rc, out = c.record("marshal", env={"QGPU_CUDA_DRIVER": "libm.so.6"})
    c.expect_error(rc, out, r"CUDA driver has no symbol cuInit")


# ------------------------------------------------------------------ ci/hw-compare
def hw_compare_args(c, *extra):
    return [str(c.src / "ci/hw-compare"), "--qgpu", c.qgpu, "--out", str(c.work / "report"), *extra]


def corpus_goldens(src):
    """The goldens ci/hw-compare records from the corpus: one per kernel and flavour it has."""
    names = []
    for spec in sorted((src / "kernels").glob("*/launch.json")):
        flavours = json.loads(spec.read_text())["ptx"]
        names += [f"{spec.parent.name}/standin{'' if f == 'nvcc' else '-' + f}.json"
                  for f in ("nvcc", "clang") if f in flavours]
    return sorted(names)


def hw_compare(c):
    # The whole corpus through the cuda backend and the stand-in, then the gate: every kernel
    # marshalled by the backend must give what the interpreter gives directly.
    rc, out = c.run(hw_compare_args(c, "--goldens-dir", "recorded"))  # relative: from the work folder
    expect(rc == 0, f"hw-compare exit {rc}")
    want = corpus_goldens(c.src)
    expect(len(want) > 50 and golden_files(c.work / "recorded") == want,
           f"recorded {len(golden_files(c.work / 'recorded'))} goldens, the corpus has {len(want)}")
    report = c.work / "report"
    expect(f"{len(want)} goldens written, 0 failed" in (report / "record.log").read_text(), "record.log")
    expect(re.search(r"^\d+ passed, 0 failed$", (report / "check.txt").read_text(), re.M), "check.txt")
    outcomes = json.loads((report / "check.json").read_text())["outcomes"]
    expect(len(outcomes) >= len(want) and all(o["pass"] and any(g.startswith("standin") for g in o["goldens"])
                                              for o in outcomes), "check.json: an outcome without a stand-in golden")
    expect(len((report / "new-goldens.txt").read_text().split()) == len(want), "new-goldens.txt")
    c.expect_nothing_leaked()


def hw_compare_divergence(c):
    # Results that differ from the interpreter must reach the verdict: exit 1, FAIL lines.
    rc, out = c.run(hw_compare_args(c, "--goldens-dir", str(c.work / "recorded"), "--kernel", "saxpy", "--kernel", "dot"),
                    env={"QGPU_CUDA_STANDIN_CORRUPT": "dtoh"})
    expect(rc == 1, f"hw-compare exit {rc}, expected 1 (divergence)")
    check = (c.work / "report/check.txt").read_text()
    expect(re.search(r"^FAIL saxpy \[nvcc, W=32\]", check, re.M) and re.search(r"^0 passed, 8 failed$", check, re.M),
           "check.txt")
    expect(golden_files(c.work / "recorded") == ["dot/standin-clang.json", "dot/standin.json",
                                                 "saxpy/standin-clang.json", "saxpy/standin.json"], "--kernel")


def hw_compare_refuses_goldens(c):
    # By default hw-compare records into the corpus' goldens/: refused, exit 2, nothing written.
    before = golden_files(c.src / "goldens")
    rc, out = c.run(hw_compare_args(c, "--kernel", "saxpy"))
    expect(rc == 2, f"hw-compare exit {rc}, expected 2")
    expect(re.search(r"never goldens", (c.work / "report/record.log").read_text()), "record.log")
    expect(golden_files(c.src / "goldens") == before, "goldens/ changed")


# ------------------------------------------------------------------ sfu-probe
SFU = ["sfu-probe", "rcp.approx.ftz.f32", "--range", "0x3f800000:0x3f800400", "--slice", "300", "--json"]


def sfu_probe(c):
    rc, out = c.qgpu_run(*SFU)
    expect(rc == 0, f"sfu-probe exit {rc}")
    j = json.loads(out[out.index("{"):out.rindex("}") + 1])
    expect(j["inputs"] == 1024 and j["bit_exact"] == 1024, f"{j['bit_exact']}/{j['inputs']}")
    expect("stand-in" in j.get("device", "") and j.get("stand_in") is True, f"device {j.get('device')!r}")
    # 1024 inputs in slices of 300: four launches, grids of 2, 2, 2 and 1 blocks.
    launches = re.findall(r"^cuLaunchKernel probe grid (\d+),1,1 block 256,1,1 .* pn=(0x[0-9a-f]+)$",
                          c.driver_log(), re.M)
    expect(launches == [("2", "0x12c"), ("2", "0x12c"), ("2", "0x12c"), ("1", "0x7c")], f"launches {launches}")
    c.expect_nothing_leaked()


def sfu_probe_divergence(c):
    # The stand-in flips bit 0 of the first byte of every copy back: element 0 of each slice.
    rc, out = c.qgpu_run(*SFU, env={"QGPU_CUDA_STANDIN_CORRUPT": "dtoh"})
    expect(rc == 1, f"sfu-probe exit {rc}, expected 1")
    j = json.loads(out[out.index("{"):out.rindex("}") + 1])
    expect(j["bit_exact"] == 1020 and len(j["examples"]) == 4, f"{j['bit_exact']} bit-exact, {j['examples']}")
    expect(j["ulp_histogram"].get("<2") == 4, f"histogram {j['ulp_histogram']}")


CASES = {f.__name__: f for f in [
    record_marshalling, record_refuses_goldens, record_bad_ptx, record_trap, record_step_budget,
    record_out_of_memory, record_no_driver, hw_compare, hw_compare_divergence, hw_compare_refuses_goldens,
    sfu_probe, sfu_probe_divergence]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qgpu", required=True)
    ap.add_argument("--standin", required=True, help="the stand-in driver; empty: built without cuda.h")
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("case", choices=sorted(CASES))
    a = ap.parse_args()
    if not a.standin:
        print("SKIP: qgpu was built without cuda.h, so it has no cuda backend to test")
        return 77
    try:
        CASES[a.case](Case(a, a.case))
    except Failure as f:
        print(f"FAIL: {f}")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
