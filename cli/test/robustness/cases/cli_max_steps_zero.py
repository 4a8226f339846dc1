# --max-steps 0 can run nothing.
from common import *
FILES = files()
ARGS = ["run", "{dir}", "--max-steps", "0"]
RC = 2
MESSAGE = '--max-steps: 0 is less than 1'
