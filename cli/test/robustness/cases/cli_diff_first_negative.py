# diff --first -1.
from common import *
FILES = {"a.json": result_text(), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json", "--first", "-1"]
RC = 2
MESSAGE = "--first: '-1' is not an unsigned integer"
