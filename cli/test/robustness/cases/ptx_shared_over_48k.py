# One byte past 48 KiB of static shared memory.
from common import *
FILES = files(ptx_text=ptx(decls="  .shared .b8 s[49153];\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = "'s' needs 49153 bytes of shared memory"
