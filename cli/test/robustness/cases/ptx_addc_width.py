# addc.u64 into a 32-bit register.
from common import *
FILES = files(ptx_text=ptx(body="  add.cc.u64 %rd1, %rd2, %rd3;\n  addc.u64 %r1, %rd2, %rd3;\n" + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'%r1' is a 32-bit register; 'addc\.u64"
