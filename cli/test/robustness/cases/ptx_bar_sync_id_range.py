# bar.sync 99 (ptxas: ids are 0..15).
from common import *
FILES = files(ptx_text=ptx(body="  bar.sync 99;\n" + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"barrier number 99 is out of range 0\.\.15"
