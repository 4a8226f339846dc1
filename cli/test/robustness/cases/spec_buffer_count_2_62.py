# count 2^62 of u32 (wrapped to 0 bytes, then printing read out of bounds).
from common import *
FILES = files(spec_text=spec(params=[{"name": "out", "buffer": {"type": "u32", "count": 4611686018427387904}}]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = '4611686018427387904 elements of \\.u32 are more than'
