# An integer iota with a float step.
from common import *
FILES = files(spec_text=spec(params=[{"name": "out", "buffer": {"type": "u32", "count": 4, "init": {"iota": {"start": 0, "step": 0.5}}}}]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'integer iota needs integer start/step'
