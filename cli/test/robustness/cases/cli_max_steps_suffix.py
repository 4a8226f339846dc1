# --max-steps 10k.
from common import *
FILES = files()
ARGS = ["run", "{dir}", "--max-steps", "10k"]
RC = 2
MESSAGE = "--max-steps: '10k' is not an unsigned integer"
