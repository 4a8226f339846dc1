# Two .local arrays that together pass 512 KiB per thread.
from common import *
FILES = files(ptx_text=ptx(decls="  .local .b8 a[300000];\n  .local .b8 b[300000];\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'b' needs 300000 bytes of local memory per thread"
