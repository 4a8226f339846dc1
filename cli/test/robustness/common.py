"""Building blocks of the robustness cases: a small valid kernel and launch spec to break."""
import json

HEAD = ".version 7.0\n.target sm_75\n.address_size 64\n"

BODY = """\
  ld.param.u64 %rd1, [k_param_0];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r1;
  ret;
"""


def ptx(body=BODY, decls="  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n", head=HEAD, module="",
        params=".param .u64 k_param_0"):
    """A module with one entry `k`; parts replaceable to break one thing at a time."""
    return f"{head}{module}\n.visible .entry k({params})\n{{\n{decls}{body}}}\n"


def spec_obj(**fields):
    s = {"name": "k", "ptx": {"nvcc": "k.ptx"}, "entry": "k", "grid": [1], "block": [4],
         "params": [{"name": "out", "buffer": {"type": "u32", "count": 4}}], "outputs": ["out"]}
    s.update(fields)
    return s


def spec(**fields):
    return json.dumps(spec_obj(**fields), indent=1)


def files(spec_text=None, ptx_text=None):
    """launch.json and k.ptx for `qgpu run {dir}`."""
    return {"launch.json": spec() if spec_text is None else spec_text,
            "k.ptx": ptx() if ptx_text is None else ptx_text}


def scalar_files(type_, value):
    """Files for a kernel with a second, unused parameter `x` of `type_` given `value`."""
    s = spec_obj()
    s["params"].append({"name": "x", "scalar": {"type": type_, "value": value}})
    return files(spec_text=json.dumps(s), ptx_text=ptx(params=f".param .u64 k_param_0, .param .{type_} k_param_1"))


def nested(depth, open_="[", close="]", inner="0"):
    """`depth` levels of open_ ... close around inner."""
    return open_ * depth + inner + close * depth


def result_text(**fields):
    """A qgpu-result-1 file with one u32 output of 2 elements; fields replace top-level keys."""
    r = {"format": "qgpu-result-1", "kernel": "k", "backend": "interp", "flavour": "nvcc", "warp_width": 4,
         "outputs": [{"name": "out", "type": "u32", "count": 2, "bits": ["0x00000001", "0x00000002"]}],
         "provenance": {"kind": "interpreter"}}
    r.update(fields)
    return json.dumps(r)


def trace_header(**fields):
    h = {"format": "qgpu-trace-1", "kernel": "k", "entry": "k", "flavour": "nvcc", "ptx": "k.ptx", "warp_width": 4,
         "grid": [1, 1, 1], "block": [4, 1, 1], "inject": None,
         "buffers": [{"index": 0, "name": "out", "type": "u32", "count": 4, "address": "0x740000000000",
                      "output": True}],
         "files": {}, "code": [{"pc": 0, "fn": "k", "line": 1, "text": "st.global.u32 [%rd2], %r1;"}]}
    h.update(fields)
    return h


def trace_event(value="0x00000001", **fields):
    """Lane 0 of warp 0, block 0 writes `value` to out[0]."""
    e = {"b": 0, "w": 0, "pc": 0, "ln": 1, "m": "0x1", "st": [[0, "global", "0x740000000000", 4, value]]}
    e.update(fields)
    return e


def trace_text(header=None, events=None, end=True):
    """A qgpu-trace-1 file: the header, the events (default: one write), the end line."""
    lines = [json.dumps(header if header is not None else trace_header())]
    lines += [json.dumps(e) for e in (events if events is not None else [trace_event()])]
    if end:
        lines.append(json.dumps({"end": {"steps": len(lines) - 1, "truncated": False, "error": None}}))
    return "\n".join(lines) + "\n"

LOOP_BODY = "$L1:\n  add.s32 %r1, %r1, 1;\n  bra $L1;\n  ret;\n"


def model_files(**changes):
    """config.json of model/testdata/tiny-tied with `changes`, for `qgpu model info {dir}` (the
    weights come with model_prepare)."""
    import pathlib
    c = json.loads((pathlib.Path(__file__).parent.parent.parent.parent / "model/testdata/tiny-tied/config.json").read_text())
    c.update(changes)
    return {"config.json": json.dumps(c)}


def model_prepare(dir):
    """Copies tiny-tied's weights into the case folder."""
    import pathlib
    import shutil
    shutil.copy(pathlib.Path(__file__).parent.parent.parent.parent / "model/testdata/tiny-tied/model.safetensors", dir)
