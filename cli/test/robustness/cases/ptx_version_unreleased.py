# .version 99.9 (ptxas: Unsupported .version).
from common import *
FILES = files(ptx_text=ptx(head=HEAD.replace("7.0", "99.9")))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r'k\.ptx:1:1: unsupported \.version 99\.9'
