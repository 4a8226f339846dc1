# --limit -5 (elements printed).
from common import *
FILES = files()
ARGS = ["run", "{dir}", "--limit", "-5"]
RC = 2
MESSAGE = "--limit: '-5' is not an unsigned integer"
