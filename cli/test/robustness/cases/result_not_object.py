# A result that is an array.
from common import *
FILES = {"a.json": "[1]", "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = 'a\\.json: not a JSON object'
