# .version 9.0, the newest this ptxas reads, is accepted.
from common import *
FILES = files(ptx_text=ptx(head=HEAD.replace("7.0", "9.0")))
ARGS = ["run", "{dir}"]
RC = 0
MESSAGE = r"\[3\] 3"
