# Fewer bit patterns than count.
from common import *
FILES = {"a.json": result_text(outputs=[{"name": "out", "type": "u32", "count": 3, "bits": ["0x00000001"]}]), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = "output 'out': 1 bit patterns for count 3"
