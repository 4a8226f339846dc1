# A register declared twice.
from common import *
FILES = files(ptx_text=ptx(decls="  .reg .b32 %r<4>;\n  .reg .b32 %r1;\n  .reg .b64 %rd<4>;\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = "register '%r1' declared twice"
