# .version 7.9 does not exist (7.8 is the last 7.x; ptxas rejects it).
from common import *
FILES = files(ptx_text=ptx(head=HEAD.replace("7.0", "7.9")))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"unsupported \.version"
