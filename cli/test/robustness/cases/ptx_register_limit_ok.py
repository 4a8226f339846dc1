# 65000 registers in a function are within the limit.
from common import *
FILES = files(ptx_text=ptx(decls="  .reg .b32 %r<64000>;\n  .reg .b64 %rd<4>;\n"))
ARGS = ["run", "{dir}"]
RC = 0
MESSAGE = '\\[3\\] 3'
