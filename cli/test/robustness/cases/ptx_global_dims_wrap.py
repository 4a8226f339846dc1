# Array dimensions whose product passes 2^64 (used to wrap).
from common import *
FILES = files(ptx_text=ptx(module=".global .b8 g[4294967295][4294967295][4294967295];\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'g' needs over 2\^64 bytes of global memory"
