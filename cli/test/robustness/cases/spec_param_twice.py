# A parameter declared twice.
from common import *
FILES = files(spec_text=spec(params=[{"name": "out", "buffer": {"type": "u32", "count": 4}}, {"name": "out", "buffer": {"type": "u32", "count": 4}}]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'param "out": declared twice'
