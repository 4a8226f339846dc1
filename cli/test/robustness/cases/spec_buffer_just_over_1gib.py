# One element past the 1 GiB buffer limit.
from common import *
FILES = files(spec_text=spec(params=[{"name": "out", "buffer": {"type": "u8", "count": (1 << 30) + 1}}]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = '1073741825 elements of \\.u8 are more than the 1073741824 bytes'
