# --trace-limit -1.
from common import *
FILES = files()
ARGS = ["run", "{dir}", "--trace-limit", "-1"]
RC = 2
MESSAGE = "--trace-limit: '-1' is not an unsigned integer"
