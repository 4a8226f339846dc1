# 512 KiB of local memory per thread is allowed.
from common import *
FILES = files(ptx_text=ptx(decls="  .local .b8 s[524288];\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"))
ARGS = ["run", "{dir}"]
RC = 0
MESSAGE = '\\[3\\] 3'
