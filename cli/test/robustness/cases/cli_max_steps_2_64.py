# --max-steps 2^64 used to be clamped silently.
from common import *
FILES = files()
ARGS = ["run", "{dir}", "--max-steps", "18446744073709551616"]
RC = 2
MESSAGE = '--max-steps: 18446744073709551616 is more than 2\\^64-1'
