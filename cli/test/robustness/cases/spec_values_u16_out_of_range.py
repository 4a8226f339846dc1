# A buffer value 65536 for .u16.
from common import *
FILES = files(spec_text=spec(params=[{"name": "out", "buffer": {"type": "u16", "count": 4, "init": {"values": [1, 65536]}}}]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'param "out" init\\[1\\]: 65536 is out of range for \\.u16'
