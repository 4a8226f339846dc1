# A bit pattern wider than the element.
from common import *
FILES = {"a.json": result_text(outputs=[{"name": "out", "type": "u32", "count": 1, "bits": ["0x100000000"]}]), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = '"0x100000000" is not a valid \\.u32 bit pattern'
