# Three 1 GiB buffers: each allowed, their sum past the 2 GiB launch limit (refused before any fill).
from common import *
FILES = files(spec_text=spec(params=[{"name": n, "buffer": {"type": "u8", "count": 1 << 30}} for n in ("out", "b", "c")]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'param "c": the buffers so far total 3221225472 bytes, more than the 2147483648 bytes a launch may have'
