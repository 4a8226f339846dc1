# A bit pattern that is a number.
from common import *
FILES = {"a.json": result_text(outputs=[{"name": "out", "type": "u32", "count": 2, "bits": [1, 2]}]), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = "output 'out'\\[0\\]: 1 is not a 0x bit pattern"
