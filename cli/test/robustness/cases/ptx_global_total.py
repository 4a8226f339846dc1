# Two .global variables of 768 MiB each: each under 1 GiB, together over (both would be allocated).
from common import *
FILES = files(ptx_text=ptx(module=".global .b8 g[805306368];\n.global .b8 h[805306368];\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'h' needs 805306368 bytes of global memory, more than the limit of 1073741824 bytes"
