# Bit types take either sign: b32 fill -1 is 0xffffffff (the kernel stores over it).
from common import *
FILES = files(spec_text=spec(params=[{"name": "out", "buffer": {"type": "b32", "count": 4, "init": {"fill": -1}}}]))
ARGS = ["run", "{dir}"]
RC = 0
MESSAGE = '\\[3\\] 3 \\(0x00000003\\)'
