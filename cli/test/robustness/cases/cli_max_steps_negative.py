# --max-steps -1 used to be taken as 2^64-1.
from common import *
FILES = files()
ARGS = ["run", "{dir}", "--max-steps", "-1"]
RC = 2
MESSAGE = "--max-steps: '-1' is not an unsigned integer"
