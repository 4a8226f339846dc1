# An initialiser with two forms.
from common import *
FILES = files(spec_text=spec(params=[{"name": "out", "buffer": {"type": "u32", "count": 4, "init": {"fill": 1, "iota": {"start": 0, "step": 1}}}}]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = '"init" must be one of values/fill/iota/random/bits'
