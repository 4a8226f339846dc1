# An element type that does not exist.
from common import *
FILES = files(spec_text=spec(params=[{"name": "out", "buffer": {"type": "u33", "count": 4}}]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'param "out": unknown element type "u33"'
