# kernel given as a number names the field.
from common import *
FILES = {"a.json": result_text(kernel=5), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = 'a\\.json: "kernel" must be a string'
