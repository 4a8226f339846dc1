# A parameter that is both a buffer and a scalar.
from common import *
FILES = files(spec_text=spec(params=[{"name": "out", "buffer": {"type": "u32", "count": 4}, "scalar": {"type": "u32", "value": 1}}]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'needs exactly one of "buffer" or "scalar"'
