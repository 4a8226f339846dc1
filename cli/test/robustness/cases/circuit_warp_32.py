# --backend circuit is the 4-lane machine: --warp 32 is refused.
from common import *
FILES = files()
ARGS = ["run", "{dir}", "--backend", "circuit", "--warp", "32"]
RC = 2
MESSAGE = "4-lane core"
