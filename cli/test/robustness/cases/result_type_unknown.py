# An output of an unknown type.
from common import *
FILES = {"a.json": result_text(outputs=[{"name": "out", "type": "q7", "count": 0, "bits": []}]), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = "output 'out': unknown type"
