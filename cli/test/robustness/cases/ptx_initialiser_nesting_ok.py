# Nested braces within the limit are fine (a 2 x 2 array).
from common import *
FILES = files(ptx_text=ptx(module=".global .b32 g[2][2] = {{1, 2}, {3, 4}};\n"))
ARGS = ["run", "{dir}"]
RC = 0
MESSAGE = r"\[3\] 3 \(0x00000003\)"
