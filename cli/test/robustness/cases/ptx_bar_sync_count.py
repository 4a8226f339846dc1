# bar.sync 0, 3 (ptxas: the count must be a multiple of the warp size).
from common import *
FILES = files(ptx_text=ptx(body="  bar.sync 0, 3;\n" + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"barrier thread count 3 is not a multiple of the warp size 32"
