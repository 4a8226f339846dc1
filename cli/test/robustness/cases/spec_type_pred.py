# A .pred buffer (not a memory type).
from common import *
FILES = files(spec_text=spec(params=[{"name": "out", "buffer": {"type": "pred", "count": 4}}]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'unknown element type "pred"'
