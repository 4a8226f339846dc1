# More values than the buffer's count.
from common import *
FILES = files(spec_text=spec(params=[{"name": "out", "buffer": {"type": "u32", "count": 2, "init": {"values": [1, 2, 3]}}}]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'param "out": 3 values for a buffer of 2 elements'
