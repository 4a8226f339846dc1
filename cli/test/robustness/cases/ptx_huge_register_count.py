# 200 million registers in one declaration: refused at once (was minutes and gigabytes).
from common import *
FILES = files(ptx_text=ptx(decls="  .reg .b32 %r<200000000>;\n  .reg .b64 %rd<4>;\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'%r<200000000>' declares more than 65536 registers in function 'k'"
