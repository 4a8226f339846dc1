# random with max < min.
from common import *
FILES = files(spec_text=spec(params=[{"name": "out", "buffer": {"type": "u32", "count": 4, "init": {"random": {"seed": 1, "min": 5, "max": 1}}}}]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'random max < min'
