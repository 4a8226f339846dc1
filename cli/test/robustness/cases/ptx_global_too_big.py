# A 4 GiB .global variable (its initial bytes used to be allocated).
from common import *
FILES = files(ptx_text=ptx(module=".global .b32 g[1073741824];\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'g' needs 4294967296 bytes of global memory, more than the limit of 1073741824 bytes"
