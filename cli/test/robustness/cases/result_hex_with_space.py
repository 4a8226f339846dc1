# A bit pattern '0x 1' used to be accepted.
from common import *
FILES = {"a.json": result_text(outputs=[{"name": "out", "type": "u32", "count": 2, "bits": ["0x 1", "0x00000002"]}]), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = 'output \'out\'\\[0\\]: \\"0x 1\\" is not a valid \\.u32 bit pattern'
