# count 2^61 of u64: 2^64 bytes wrapped to 0 and passed the 1 GiB check.
from common import *
FILES = files(spec_text=spec(params=[{"name": "out", "buffer": {"type": "u64", "count": 2305843009213693952, "init": {"fill": 1}}}]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'param "out": 2305843009213693952 elements of \\.u64 are more than the 1073741824 bytes a buffer may have'
