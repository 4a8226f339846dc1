# count 2.2e126 used to be reported as count 0.
from common import *
FILES = {"a.json": result_text(outputs=[{"name": "out", "type": "u32", "count": 2.2e126, "bits": []}]), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = 'a\\.json: output \'out\': \\"count\\" must be a non-negative integer, got 2\\.2e\\+126'
