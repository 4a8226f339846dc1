#!/usr/bin/env python3
"""Runs one bad-input case of the robustness suite (ctest label `robustness`).

A case is a Python file in cases/ that defines
  ARGS     the qgpu arguments; "{dir}" is the case's scratch folder, "{src}" the source tree
  FILES    optional {relative name: text or bytes} written into the scratch folder first
  RC       the expected exit code (2 for bad input)
  MESSAGE  a regular expression that stdout+stderr must match (re.search, multiline)
  SECONDS  optional time bound (default 2), MEMORY_MIB optional address-space bound (1024)
  PREPARE  optional function(scratch folder) run after FILES are written (e.g. sparse files)
It may import common.py (minimal valid PTX and launch specs to break). A crash (signal),
a hang (time bound), running out of the memory bound, a different exit code or a message
that does not match fails the case.
Usage: run_case.py --qgpu BIN --src SRC --work DIR CASE.py
"""
import argparse
import pathlib
import re
import resource
import shutil
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qgpu", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("case")
    a = ap.parse_args()
    case = pathlib.Path(a.case)
    sys.path.insert(0, str(case.parent.parent))  # common.py
    spec = {"__file__": str(case)}
    exec(compile(case.read_text(), str(case), "exec"), spec)
    work = pathlib.Path(a.work) / case.stem
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name, content in spec.get("FILES", {}).items():
        p = work / name
        p.parent.mkdir(parents=True, exist_ok=True)
        (p.write_bytes if isinstance(content, bytes) else p.write_text)(content)
    if "PREPARE" in spec:
        spec["PREPARE"](str(work))
    args = [x.replace("{dir}", str(work)).replace("{src}", a.src) for x in spec["ARGS"]]
    seconds = spec.get("SECONDS", 2)
    mib = spec.get("MEMORY_MIB", 1024)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    start = time.monotonic()
    try:
        p = subprocess.run([a.qgpu] + args, cwd=a.src, capture_output=True, timeout=seconds,
                           preexec_fn=limit)
    except subprocess.TimeoutExpired:
        print(f"FAIL: no answer within {seconds} s (a hang): qgpu {' '.join(args)}")
        return 1
    took = time.monotonic() - start
    out = p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")
    shown = out if len(out) < 4000 else out[:2000] + "\n...\n" + out[-2000:]
    print(f"qgpu {' '.join(args)[:300]}\nexit {p.returncode} after {took:.2f} s\n{shown}")
    if p.returncode < 0:
        print(f"FAIL: killed by signal {-p.returncode} (a crash)")
        return 1
    if p.returncode != spec["RC"]:
        print(f"FAIL: exit code {p.returncode}, expected {spec['RC']}")
        return 1
    if not re.search(spec["MESSAGE"], out, re.M):
        print(f"FAIL: the output does not match /{spec['MESSAGE']}/")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
