# More than the 64 KiB constant bank.
from common import *
FILES = files(ptx_text=ptx(module=".const .b8 c[40000];\n.const .b8 d[40000];\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'d' needs 40000 bytes of constant memory, more than the limit of 65536 bytes"
