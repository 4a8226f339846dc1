# 48 KiB of static shared memory is allowed.
from common import *
FILES = files(ptx_text=ptx(decls="  .shared .b8 s[49152];\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"))
ARGS = ["run", "{dir}"]
RC = 0
MESSAGE = '\\[3\\] 3'
