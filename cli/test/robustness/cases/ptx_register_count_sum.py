# Declarations that together pass the per-function register limit.
from common import *
FILES = files(ptx_text=ptx(decls="  .reg .b32 %r<40000>;\n  .reg .b64 %rd<40000>;\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'%rd<40000>' declares more than 65536 registers"
